// A pool worker: runs kernel calls on the pool's shared Wasm memory (its own instance of the threads build), and
// quantize/dequantize on its part of other shared arrays with the library's own Wasm instance and memory.
import { parentPort, workerData } from "node:worker_threads";
import { dequantize, quantize, quantizeReference, requireCodes, resolveQuantize } from "../api/bulk.js";
import { CodeRangeError } from "../errors.js";
import { newFlags } from "../exact/project.js";
import { type Format, type FormatSpec, makeFormat } from "../format/model.js";
import { randomR, seedKeys } from "../random.js";
import { requireBelow } from "../wasm/decode.js";
import { quantizeWasm } from "../wasm/encode.js";
import { kernels } from "../wasm/instance.js";
import { type DequantizeJob, type Job, type QuantizeJob, type Reply, type WasmJob, type WorkerInit, errorData } from "./protocol.js";

const init = workerData as WorkerInit;
/** The threads build on the shared memory: its globals (the encode kernel's block address) are this thread's own. */
const shared = new WebAssembly.Instance(init.module, { env: { memory: init.memory } }).exports as Record<string, (...args: number[]) => number | undefined>;

function runWasm(job: WasmJob): Reply {
  const value = shared[job.fn]!(...job.args);
  return typeof value === "number" ? { id: job.id, value } : { id: job.id };
}

const formats = new Map<string, Format>();
/** One Format per spec, so the per-Format caches (decode tables, kernel constants) are built once per worker. */
function formatOf(spec: FormatSpec): Format {
  const key = JSON.stringify(spec);
  let f = formats.get(key);
  if (!f) formats.set(key, (f = makeFormat(spec)));
  return f;
}

function runQuantize(job: QuantizeJob): Reply {
  const f = formatOf(job.format);
  const flags = job.flags ? newFlags() : undefined;
  if (job.seed === undefined) {
    quantize(job.src, f, { ...job.projection, random: job.random, out: job.out, flags });
    return { id: job.id, flags };
  }
  // Seeded R_i is keyed by the absolute index: this part starts at element job.first.
  const { rho } = resolveQuantize(f, job.src.length, { ...job.projection, seed: job.seed });
  const fast = job.src instanceof Float32Array && !flags && !(job.out instanceof Uint32Array) && quantizeWasm(job.src, f, rho, job.out, { seed: job.seed }, job.first);
  if (!fast) {
    const [k0, k1] = seedKeys(job.seed);
    quantizeReference(job.src, f, rho, job.out, (i) => randomR(k0, k1, job.first + i, rho.stochasticBits), flags);
  }
  return { id: job.id, flags };
}

function runDequantize(job: DequantizeJob): Reply {
  const f = formatOf(job.format);
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

parentPort!.on("message", (job: Job) => {
  try {
    parentPort!.postMessage(job.op === "wasm" ? runWasm(job) : job.op === "quantize" ? runQuantize(job) : runDequantize(job));
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: errorData(error) } satisfies Reply);
  }
});
parentPort!.postMessage({ id: -1 } satisfies Reply);
