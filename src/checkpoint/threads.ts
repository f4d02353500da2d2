// Conversion jobs (jobs.ts) on worker threads: each worker opens the input itself and runs the same function as the
// calling thread (run-job.ts), several jobs in flight; the caller consumes the results in job order (inOrder), so
// the files written and the numbers reported do not depend on the thread count.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { requireInteger } from "../errors.js";
import { type ErrorData, reviveError } from "../parallel/protocol.js";
import type { ConversionJob, JobResult, JobRunner } from "./jobs.js";

/** Most worker threads a conversion starts by default: each holds its own kernels, buffers and inputs (≈ 50 MB). */
const DEFAULT_MAX_THREADS = 8;
/**
 * Fewest logical processors for workers by default: on two, the calling thread, the workers and the kernel's page-cache
 * copies share them, and conversions measured faster or within 4 % on one thread, with less CPU (docs/performance.md).
 */
const DEFAULT_MIN_PROCESSORS = 3;

/**
 * A conversion's `threads` and `minElements` options, checked (threads: 1 … 256; default: the logical processors,
 * at most DEFAULT_MAX_THREADS, where there are at least DEFAULT_MIN_PROCESSORS, else 1, and 1 when `auto` is false;
 * minElements: default 2^22, below which a worker's start — ≈ 60 ms of compiling — costs more than it saves).
 */
export function threadOptions(options: { readonly threads?: number; readonly minElements?: number }, auto = true): { threads: number; minElements: number } {
  const processors = availableParallelism();
  const fallback = auto && processors >= DEFAULT_MIN_PROCESSORS ? Math.min(processors, DEFAULT_MAX_THREADS) : 1;
  return {
    threads: requireInteger("threads", options.threads ?? fallback, 1, 256),
    minElements: requireInteger("minElements", options.minElements ?? 1 << 22, 0, Number.MAX_SAFE_INTEGER),
  };
}

type Reply = { readonly id: number; readonly result: unknown } | { readonly id: number; readonly error: ErrorData | string };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Worker threads running conversion jobs (src/checkpoint/worker.ts), each job on the worker with the fewest queued. */
export class WorkerRunner implements JobRunner {
  readonly depth: number;
  readonly remote = true;
  private readonly workers: { worker: Worker; pending: Map<number, Pending>; failed?: Error }[] = [];
  private next = 0;

  /**
   * Starts `threads` workers. Their source is imported only now: held by the module that imports it, a string this
   * large made V8 run a full garbage collection every few chunks of a single-thread conversion.
   */
  static async create(threads: number): Promise<WorkerRunner> {
    const { conversionWorkerSource } = await import("../../build/parallel/conversion-worker.js");
    return new WorkerRunner(threads, conversionWorkerSource);
  }

  private constructor(threads: number, source: string) {
    // Two jobs per worker keep each busy while the calling thread writes the previous results.
    this.depth = 2 * threads;
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`));
      const entry: (typeof this.workers)[number] = { worker, pending: new Map() };
      const fail = (error: Error) => {
        entry.failed ??= error;
        for (const p of entry.pending.values()) p.reject(error);
        entry.pending.clear();
      };
      worker.on("message", (reply: Reply) => {
        const p = entry.pending.get(reply.id);
        if (!p) return;
        entry.pending.delete(reply.id);
        if ("error" in reply) p.reject(reviveError(reply.error, 0));
        else p.resolve(reply.result);
      });
      worker.on("error", (e) => fail(new Error(`minifloat conversion worker failed: ${e.message}`)));
      worker.on("exit", (code) => fail(new Error(`minifloat conversion worker exited (code ${code})`)));
      this.workers.push(entry);
    }
  }

  get threads(): number {
    return this.workers.length;
  }

  run<J extends ConversionJob>(job: J): Promise<JobResult<J>> {
    const entry = this.workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    if (entry.failed) return Promise.reject(entry.failed);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      entry.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      entry.worker.postMessage({ id, job });
    });
  }

  /**
   * Closes the workers' handles of the output they wrote, before the writer moves it into place (a file open in
   * another thread cannot be renamed on every system).
   */
  async releaseOutput(): Promise<void> {
    await Promise.all(this.workers.map((entry) => this.tell(entry, "release")));
  }

  /** Closes the workers' files and stops them. */
  async close(): Promise<void> {
    await Promise.allSettled(
      this.workers.map(async (entry) => {
        await this.tell(entry, "close").catch(() => undefined);
        await entry.worker.terminate();
      }),
    );
  }

  /** Sends a control message to a worker (after the jobs it has queued) and waits for its answer. */
  private tell(entry: (typeof this.workers)[number], control: "release" | "close"): Promise<unknown> {
    if (entry.failed) return Promise.reject(entry.failed);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      entry.pending.set(id, { resolve, reject });
      entry.worker.postMessage({ id, control });
    });
  }
}
