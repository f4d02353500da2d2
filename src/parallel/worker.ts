// A pool worker: runs kernel calls on the pool's shared Wasm memory (its own instance of the threads build), and
// quantize/dequantize on its part of other shared arrays with the library's own Wasm instance and memory.
import { dequantize, quantize } from "../api/bulk.js";
import { requireCodes } from "../api/validate.js";
import { CodeRangeError } from "../errors.js";
import { newFlags } from "../exact/cast.js";
import { formatFromSpec } from "../format/registry.js";
import { requireBelow } from "../wasm/decode.js";
import { callKernel } from "../wasm/abi.js";
import { instantiateKernels, kernels, useKernels } from "../wasm/instance.js";
import { dotRowsArgs, dotRowsChecked, matmulArgs, matmulChecked, requireCodesIn } from "../dot/index.js";
import type { DotOptions } from "../dot/index.js";
import { onJob, reply, workerInit } from "./port.js";
import { type DequantizeJob, type DotJob, type Job, type QuantizeJob, type Reply, type WasmJob, errorData } from "./protocol.js";

const init = await workerInit();
/** The threads build on the shared memory: its globals (the encode kernel's block address) are this thread's own. */
const shared = instantiateKernels(init.module, init.memory);

function runWasm(job: WasmJob): Reply {
  const counter = new Int32Array(init.memory.buffer, job.counter, 1);
  let value: number | undefined;
  for (let c = Atomics.add(counter, 0, 1); c < job.calls.length; c = Atomics.add(counter, 0, 1)) {
    const v = callKernel(shared, job.fn, job.calls[c]!);
    if (typeof v === "number") value = Math.max(value ?? v, v);
  }
  return value === undefined ? { id: job.id } : { id: job.id, value };
}

function runQuantize(job: QuantizeJob): Reply {
  const flags = job.flags ? newFlags() : undefined;
  // Seeded R_i is keyed by the absolute index: this part starts at element job.first.
  const random = job.seed === undefined ? { random: job.random } : { seed: job.seed, seedIndex: job.first };
  quantize(job.src, formatFromSpec(job.format), { ...job.projection, ...random, out: job.out, flags });
  return { id: job.id, flags };
}

function runDequantize(job: DequantizeJob): Reply {
  const f = formatFromSpec(job.format);
  if (job.op === "dequantize") {
    dequantize(job.codes, f, { out: job.out });
    return { id: job.id };
  }
  // The pool sends formats of up to 16 bits only, whose codes are Uint8Array or Uint16Array.
  const codes = requireCodes(job.codes, f) as Uint8Array | Uint16Array;
  const k = kernels();
  const allowed = `a ${f.name} code in [0, ${f.codeCount - 1}]`;
  if (k) requireBelow(k, codes, f.codeCount, "codes", allowed);
  else {
    const i = codes.findIndex((c) => c >= f.codeCount);
    if (i >= 0) throw new CodeRangeError(`codes[${i}]`, `is ${codes[i]}; allowed: ${allowed}`);
  }
  return { id: job.id };
}

function runDot(job: DotJob): Reply {
  const formats = [formatFromSpec(job.formats[0]), formatFromSpec(job.formats[1])] as const;
  const options = { ...job.options, formats } as DotOptions;
  if (job.kind === "check") {
    requireCodesIn(job.a, formats[job.argument === undefined || job.argument === "a" ? 0 : 1], job.argument ?? "a");
  } else if (job.kind === "rows") {
    const o = { ...options, out: job.out as Float32Array };
    dotRowsChecked(job.a, job.b!, job.rows, job.k, o, dotRowsArgs(job.a, job.b!, job.rows, job.k, o, false));
  } else {
    const o = { ...options, scales: job.scales, out: job.out };
    matmulChecked(job.a, job.b!, job.rows, job.n, job.k, o, matmulArgs(job.a, job.b!, job.rows, job.n, job.k, o, false));
  }
  return { id: job.id };
}

onJob((job: Job) => {
  try {
    // The caller's kernel switch (useKernels) travels with each job, so the workers take the path it would take.
    if ("kernels" in job) useKernels(job.kernels);
    reply(job.op === "wasm" ? runWasm(job) : job.op === "quantize" ? runQuantize(job) : job.op === "dot" ? runDot(job) : runDequantize(job));
  } catch (error) {
    reply({ id: job.id, error: errorData(error) });
  }
});
reply({ id: -1 });
