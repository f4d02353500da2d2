// A conversion worker (threads.ts): runs the jobs it receives one at a time, on its own kernels and with its own
// readers of the input files, and posts each result back with its arrays moved, not copied.
import { parentPort } from "node:worker_threads";
import { inWasm } from "../wasm/memory.js";
import { useKernels } from "../wasm/instance.js";
import { type ConversionJob, JobContext } from "./jobs.js";
import { runJob } from "./run-job.js";
import { quantizeRangeJob } from "../cli/quantize-range.js";
import { errorData } from "../parallel/protocol.js";

const context = new JobContext();
let queue: Promise<void> = Promise.resolve();

/** The result's arrays as transferable copies (a view of Wasm memory is copied out; other arrays move as they are). */
function detach(value: unknown, transfer: ArrayBuffer[]): unknown {
  if (ArrayBuffer.isView(value)) {
    const a = inWasm(value) ? (value as Uint8Array).slice() : value;
    if (!transfer.includes(a.buffer as ArrayBuffer)) transfer.push(a.buffer as ArrayBuffer);
    return a;
  }
  if (Array.isArray(value)) return value.map((v) => detach(v, transfer));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, detach(v, transfer)]));
  return value;
}

parentPort!.on("message", (message: { id: number; job?: ConversionJob; control?: "release" | "close" }) => {
  // Jobs wait for the one before: they share the scratch buffers.
  queue = queue.then(async () => {
    try {
      if (message.control) {
        await (message.control === "close" ? context.close() : context.releaseOutput());
        parentPort!.postMessage({ id: message.id, result: null });
        return;
      }
      const job = message.job!;
      useKernels(job.kernels);
      const transfer: ArrayBuffer[] = [];
      const result = detach(await (job.op === "quantize" ? quantizeRangeJob(job, context) : runJob(job, context)), transfer);
      parentPort!.postMessage({ id: message.id, result }, transfer);
    } catch (error) {
      parentPort!.postMessage({ id: message.id, error: errorData(error) });
    }
  });
});
