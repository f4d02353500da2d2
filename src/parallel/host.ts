// The pool's side of a worker thread on Node (worker_threads). src/parallel/host-browser.ts is the same interface on
// Web Workers; the browser bundle swaps it in (scripts/build.mjs).
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Job, Reply, WorkerInit } from "./protocol.js";

/** A started worker: jobs out, replies and failures in. */
export interface WorkerHandle {
  post(job: Job): void;
  /** Replies; the first one (id −1) says the worker has instantiated the kernels. */
  onReply(listener: (reply: Reply) => void): void;
  /** An uncaught error or an exit of the worker. */
  onFailure(listener: (error: Error) => void): void;
  /** Whether an idle worker may let the process exit (Node; no-op in browsers). */
  keepAlive(busy: boolean): void;
  terminate(): Promise<void>;
}

/** Logical processors available to this process. */
export function hardwareThreads(): number {
  return availableParallelism();
}

/** Starts the worker module `source` (ES module text) with `init`. */
export function startWorker(source: string, init: WorkerInit): WorkerHandle {
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), { workerData: init });
  return {
    post: (job) => worker.postMessage(job),
    onReply: (listener) => void worker.on("message", listener),
    onFailure: (listener) => {
      worker.on("error", (error) => listener(new Error(`minifloat worker failed: ${error.message}`)));
      worker.on("exit", (code) => listener(new Error(`minifloat worker exited (code ${code})`)));
    },
    keepAlive: (busy) => void (busy ? worker.ref() : worker.unref()),
    // A timer holds Node open while the worker stops: an idle worker is unref'd (a reply arriving meanwhile unrefs it
    // again), and with nothing else running Node would exit before the caller's await of close() settled.
    terminate: async () => {
      const hold = setInterval(() => {}, 2 ** 30);
      try {
        await worker.terminate();
      } finally {
        clearInterval(hold);
      }
    },
  };
}
