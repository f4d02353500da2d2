// The worker's side of its thread on Node (worker_threads): its start data, and jobs in and replies out.
// src/parallel/port-browser.ts is the Web Worker version; the browser bundle swaps it in (scripts/build.mjs).
import { parentPort, workerData } from "node:worker_threads";
import type { Job, Reply, WorkerInit } from "./protocol.js";

/** The start data the pool gave this worker. */
export async function workerInit(): Promise<WorkerInit> {
  return workerData as WorkerInit;
}

/** Sends a reply to the pool. */
export function reply(message: Reply): void {
  parentPort!.postMessage(message);
}

/** Calls `handler` for every job. */
export function onJob(handler: (job: Job) => void): void {
  parentPort!.on("message", handler);
}
