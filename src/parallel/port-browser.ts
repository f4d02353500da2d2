// The worker's side of its thread in a browser (a module Web Worker; src/parallel/port.ts is the Node version): the
// first message is the start data, the others are jobs.
import type { Job, Reply, WorkerInit } from "./protocol.js";

const scope = globalThis as unknown as {
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  postMessage(message: unknown): void;
};
let jobs: ((job: Job) => void) | undefined;
const start = new Promise<WorkerInit>((resolve) => {
  let first = true;
  scope.addEventListener("message", (event) => {
    if (first) {
      first = false;
      resolve(event.data as WorkerInit);
    } else jobs?.(event.data as Job);
  });
});

/** The start data the pool gave this worker (its first message). */
export function workerInit(): Promise<WorkerInit> {
  return start;
}

/** Sends a reply to the pool. */
export function reply(message: Reply): void {
  scope.postMessage(message);
}

/** Calls `handler` for every job (the pool sends none before the worker's first reply). */
export function onJob(handler: (job: Job) => void): void {
  jobs = handler;
}
