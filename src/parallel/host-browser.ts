// The pool's side of a worker thread in browsers (Web Workers; src/parallel/host.ts is the Node version). Shared Wasm
// memory needs a cross-origin isolated page (COOP: same-origin, COEP: require-corp), checked by createPool.
import type { WorkerHandle } from "./host.js";
import type { Job, Reply, WorkerInit } from "./protocol.js";

/** Logical processors the browser reports (at least 1). */
export function hardwareThreads(): number {
  return Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1);
}

/** Starts the worker module `source` from a blob URL (same origin, so it may share the memory) and sends it `init`. */
export function startWorker(source: string, init: WorkerInit): WorkerHandle {
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  URL.revokeObjectURL(url);
  worker.postMessage(init);
  return {
    post: (job: Job) => worker.postMessage(job),
    onReply: (listener: (reply: Reply) => void) => worker.addEventListener("message", (event) => listener(event.data as Reply)),
    onFailure: (listener: (error: Error) => void) => {
      worker.addEventListener("error", (event) => listener(new Error(`minifloat worker failed: ${event.message}`)));
      worker.addEventListener("messageerror", () => listener(new Error("minifloat worker failed: a message could not be read")));
    },
    keepAlive: () => {},
    terminate: async () => worker.terminate(),
  };
}
