// The pool's worker threads and how jobs reach them: posting, settling (the first part's typed error wins), the
// chunked kernel runs on the shared memory, and the shared-array helpers the conversion and dot jobs share.
import { ArgumentTypeError, CodeRangeError } from "../errors.js";
import type { SharedHeap } from "./heap.js";
import type { WorkerHandle } from "./host.js";
import { type Job, type Reply, type SharedView, reviveError, splitRanges } from "./protocol.js";
import { type KernelCall, callKernel } from "../wasm/abi.js";

/** Part boundaries are multiples of 64 elements (whole cache lines of codes, whole SIMD blocks). */
export const ALIGN = 64;
/** Chunks per thread of a kernel call in the pool's memory, and the smallest chunk (elements) of a conversion. */
const CHUNKS_PER_THREAD = 8;
const MIN_CHUNK = 1 << 16;

export type ArrayType<T extends SharedView> = { new (buffer: SharedArrayBuffer): T; readonly BYTES_PER_ELEMENT: number };

export function isShared(a: ArrayBufferView): boolean {
  return a.buffer instanceof SharedArrayBuffer;
}

/** A SharedArrayBuffer-backed array of n elements; CodeRangeError when the host refuses the memory. */
export function sharedArray<T extends SharedView>(type: ArrayType<T>, n: number): T {
  const bytes = n * type.BYTES_PER_ELEMENT;
  let buffer: SharedArrayBuffer;
  try {
    buffer = new SharedArrayBuffer(bytes);
  } catch (error) {
    throw new CodeRangeError(
      "n",
      `needs ${bytes} bytes of shared memory for ${n} elements, which the host refused (${String(error)}); allowed: what the host grants, so process the data in parts`,
    );
  }
  return new type(buffer);
}

/** `a` itself when it is shared, else a shared copy. */
export function share<T extends SharedView>(a: T): T {
  if (isShared(a)) return a;
  const copy = sharedArray(a.constructor as ArrayType<T>, a.length);
  copy.set(a as never);
  return copy;
}

/** The caller's output (its current view: a Wasm view is re-created if memory grew meanwhile), holding `out`. */
export function copyBack<T extends SharedView>(target: () => T, out: T): T {
  const now = target();
  if (now !== out) now.set(out as never);
  return now;
}

/** Every field of FormatSpec (the compiler checks the list is complete). */

interface Pending {
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

/** One worker and its jobs in flight. */
export class Thread {
  readonly pending = new Map<number, Pending>();
  failure: Error | undefined;
  /** Settles with the worker's first reply (id −1: the kernels are instantiated on the shared memory). */
  readonly ready: Promise<unknown>;

  constructor(readonly worker: WorkerHandle) {
    this.ready = new Promise((resolve, reject) => this.pending.set(-1, { resolve, reject }));
    worker.keepAlive(true);
    worker.onReply((reply: Reply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.keepAlive(false);
      p?.resolve(reply);
    });
    worker.onFailure((error) => this.fail(error));
  }

  fail(error: Error): void {
    this.failure ??= error;
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }

  post(job: Job): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { resolve, reject });
      this.worker.keepAlive(true);
      this.worker.post(job);
    });
  }
}

/** The threads of a pool with its shared memory: runs jobs on them and reports the first part's error. */
export class Workers {
  #nextId = 0;
  closed = false;

  constructor(
    readonly threads: readonly Thread[],
    readonly heap: SharedHeap,
    /** The calling thread takes kernel chunks too (PoolOptions.callerRuns). */
    readonly callerRuns = false,
  ) {}

  /** Threads that run kernel chunks: the workers, and the caller when it runs chunks too (its index is the last). */
  get runners(): number {
    return this.threads.length + (this.callerRuns ? 1 : 0);
  }

  open(): void {
    if (this.closed) throw new ArgumentTypeError("pool", "was closed; allowed: a pool before close()");
  }

  /** Runs one job per range on the workers; waits for all of them, then throws the first part's error, if any. */
  run(n: number, job: (start: number, end: number, id: number, thread: number) => Job, align = ALIGN): Promise<Reply[]> {
    return this.settle(splitRanges(n, this.threads.length, align).map(([a, b], i) => job(a, b, this.#nextId++, i)));
  }

  /** Posts job i to thread i; waits for all of them, then throws the first job's error, if any. */
  async settle(jobs: Job[]): Promise<Reply[]> {
    const settled = await Promise.allSettled(jobs.map((j, i) => this.threads[i]!.post(j)));
    const replies: Reply[] = [];
    settled.forEach((s, i) => {
      if (s.status === "rejected")
        throw this.closed ? new ArgumentTypeError("pool", "was closed while the call ran; allowed: close() after the calls settle") : s.reason;
      if ("error" in s.value) throw reviveError(s.value.error, jobs[i]!.first);
      replies.push(s.value);
    });
    return replies;
  }

  /**
   * Runs `fn` of the threads build over [0, n) in chunks that the workers take in turn from a counter in the shared
   * memory, so a thread the host slows down takes fewer (a static split waits for its slowest part). About 8 chunks per
   * thread, each a multiple of `align` and at least `minChunk` long; `args` gives a chunk's arguments on a thread (its
   * own parameter block or scratch). Returns the largest value any call returned (the code scans), or 0.
   */
  async runKernel(
    n: number,
    fn: KernelCall,
    args: (start: number, end: number, thread: number) => number[],
    align = ALIGN,
    minChunk = MIN_CHUNK,
  ): Promise<number> {
    if (n === 0) return 0;
    const threads = this.threads.length;
    const chunk = Math.max(minChunk, Math.ceil(n / (threads * CHUNKS_PER_THREAD) / align) * align);
    const ranges: Array<[number, number]> = [];
    for (let start = 0; start < n; start += chunk) ranges.push([start, Math.min(n, start + chunk)]);
    const counter = this.heap.view(Uint32Array, 1);
    try {
      const jobs = this.threads.map(
        (_, t): Job => ({ op: "wasm", id: this.#nextId++, first: 0, fn, counter: counter.byteOffset, calls: ranges.map(([a, b]) => args(a, b, t)) }),
      );
      const pending = this.settle(jobs);
      let own = 0;
      if (this.callerRuns) {
        // The caller takes chunks from the same counter while the workers wake up; a trap here still waits for them,
        // so nothing they use is freed under them.
        try {
          const at = new Int32Array(this.heap.buffer, counter.byteOffset, 1);
          const t = this.threads.length;
          for (let c = Atomics.add(at, 0, 1); c < ranges.length; c = Atomics.add(at, 0, 1)) {
            const v = callKernel(this.heap.kernels, fn, args(ranges[c]![0], ranges[c]![1], t));
            if (typeof v === "number") own = Math.max(own, v);
          }
        } catch (error) {
          await pending.catch(() => undefined);
          throw error;
        }
      }
      const replies = await pending;
      return Math.max(own, ...replies.map((r) => ("value" in r && r.value !== undefined ? r.value : 0)));
    } finally {
      this.heap.free(counter.byteOffset, counter.byteLength);
    }
  }

  /** Stops the workers; calls still running reject with ArgumentTypeError, later calls throw it. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
    for (const t of this.threads) t.fail(new ArgumentTypeError("pool", "was closed; allowed: a pool before close()"));
  }
}
