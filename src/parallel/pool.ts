// A pool of worker threads for bulk quantize/dequantize and batched dot products (Node worker_threads, or Web Workers
// in a cross-origin isolated page: host.ts / host-browser.ts). The pool owns one shared Wasm memory (heap.ts);
// every worker instantiates the threads build of the kernels on it, so arrays allocated there (pool.allocFloat32,
// pool.allocCodes) are converted in place: each worker runs the kernel on a disjoint range, with its own encode
// parameter block. Other cases (other arrays, float64 input, flags, formats or modes without a kernel) run the
// library in each worker on its part of SharedArrayBuffer views (copied through the worker's own Wasm memory).
// Calls below `minElements` run on the calling thread, where a dispatch (≈0.1 ms) would cost more than it saves.
import { workerSource } from "../../build/parallel/worker.js";
import { type CodeArray, type QuantizeOptions, codeArrayType, decodeTable32, dequantize, quantize, requireCodes, requireInput, requireOutput, resolveQuantize } from "../api/bulk.js";
import { type FormatLike, resolveFormat } from "../api/scalar.js";
import { format } from "../format/registry.js";
import { ArgumentTypeError, CodeRangeError, describe, requireInteger } from "../errors.js";
import type { ConversionFlags } from "../exact/project.js";
import type { Format, FormatSpec } from "../format/model.js";
import { type DotOptions, type MatOptions, type MatScales, type ResolvedDot, dotRows, dotRowsArgs, matmul, matmulArgs } from "../dot/index.js";
import type { DotContext } from "../dot/reference.js";
import { dotPlan, productKey, productValues, stride, writeDotParams } from "../dot/wasm.js";
import { type WasmTable, decodeCall, uploadTable } from "../wasm/decode.js";
import { BLOCK_WORDS, type WasmRandom, encodeBlock } from "../wasm/encode.js";
import type { KernelCall } from "../wasm/abi.js";
import { WasmArray, keep } from "../wasm/memory.js";
import { type HeapView, type PoolArray, SharedHeap } from "./heap.js";
import { type WorkerHandle, hardwareThreads, startWorker } from "./host.js";
import { type DotJob, type Job, type Reply, type SharedView, type WorkerInit, reviveError, splitRanges } from "./protocol.js";

/** Smallest call sent to the workers by default: below about 4M elements one thread is as fast or faster (bench/parallel.mjs, README "Multi-core"). */
export const DEFAULT_MIN_ELEMENTS = 1 << 22;
/** Part boundaries are multiples of 64 elements (whole cache lines of codes, whole SIMD blocks). */
const ALIGN = 64;
/** Chunks per thread of a kernel call in the pool's memory, and the smallest chunk (elements) of a conversion. */
const CHUNKS_PER_THREAD = 8;
const MIN_CHUNK = 1 << 16;
const MAX_THREADS = 256;

export interface PoolOptions {
  /** Worker threads (default: os.availableParallelism()). */
  threads?: number;
  /** Calls with fewer elements (dot products: multiply-adds) run on the calling thread (default DEFAULT_MIN_ELEMENTS). */
  minElements?: number;
}

type ArrayType<T extends SharedView> = { new (buffer: SharedArrayBuffer): T; readonly BYTES_PER_ELEMENT: number };

function isShared(a: ArrayBufferView): boolean {
  return a.buffer instanceof SharedArrayBuffer;
}

/** A SharedArrayBuffer-backed array of n elements; CodeRangeError when the host refuses the memory. */
function sharedArray<T extends SharedView>(type: ArrayType<T>, n: number): T {
  const bytes = n * type.BYTES_PER_ELEMENT;
  let buffer: SharedArrayBuffer;
  try {
    buffer = new SharedArrayBuffer(bytes);
  } catch (error) {
    throw new CodeRangeError("n", `needs ${bytes} bytes of shared memory for ${n} elements, which the host refused (${String(error)}); allowed: what the host grants, so process the data in parts`);
  }
  return new type(buffer);
}

/** Rejects an output overlapping an input, as the single-thread calls do (parts would race on shared memory). */
function requireSeparate(out: ArrayBufferView | undefined, inputs: ReadonlyArray<ArrayBufferView | undefined>): void {
  for (const input of inputs) {
    if (!out || !input || out.buffer !== input.buffer || out.byteLength === 0 || input.byteLength === 0) continue;
    if (out.byteOffset < input.byteOffset + input.byteLength && input.byteOffset < out.byteOffset + out.byteLength) {
      throw new ArgumentTypeError("options.out", "overlaps an input; allowed: a separate array");
    }
  }
}

/** `a` itself when it is shared, else a shared copy. */
function share<T extends SharedView>(a: T): T {
  if (isShared(a)) return a;
  const copy = sharedArray(a.constructor as ArrayType<T>, a.length);
  copy.set(a as never);
  return copy;
}

interface Pending {
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

class Thread {
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

/** Worker threads running bulk conversions in parallel; results are bit-identical to quantize/dequantize. */
export class Pool {
  readonly #threads: Thread[];
  readonly #heap: SharedHeap;
  /** Decode tables in the shared memory, by format parameters (uploaded once, kept until the pool is dropped). */
  readonly #tables = new Map<string, WasmTable>();
  /** Dot product tables in the shared memory, by configuration (undefined: not float32 values, no kernel). */
  readonly #products = new Map<string, number | undefined>();
  readonly minElements: number;
  #nextId = 0;
  #closed = false;

  /** Use createPool(), which waits until every worker is running. */
  constructor(threads: Thread[], minElements: number, heap: SharedHeap) {
    this.#threads = threads;
    this.minElements = minElements;
    this.#heap = heap;
  }

  /** A zeroed Float32Array of n elements in the pool's shared memory: quantize reads it without copies. */
  allocFloat32(n: number): PoolArray<Float32Array> {
    this.#open();
    return new WasmArray(Float32Array, n, "n", this.#heap);
  }

  /** A zeroed code array of n elements for fmt (Uint8Array for K ≤ 8, else Uint16Array) in the pool's shared memory. */
  allocCodes(fmt: FormatLike, n: number): PoolArray<Uint8Array | Uint16Array> {
    this.#open();
    const f = resolveFormat(fmt);
    if (f.K > 16) throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; allowed: formats of up to 16 bits in the pool's memory`);
    return new WasmArray<Uint8Array | Uint16Array>(f.K <= 8 ? Uint8Array : Uint16Array, n, "n", this.#heap);
  }

  /**
   * Runs `fn` of the threads build over [0, n) in chunks that the workers take in turn from a counter in the shared
   * memory, so a thread the host slows down takes fewer (a static split waits for its slowest part). About 8 chunks per
   * thread, each a multiple of `align` and at least `minChunk` long; `args` gives a chunk's arguments on a thread (its
   * own parameter block or scratch). Returns the largest value any call returned (the code scans), or 0.
   */
  async #runKernel(n: number, fn: KernelCall, args: (start: number, end: number, thread: number) => number[], align = ALIGN, minChunk = MIN_CHUNK): Promise<number> {
    if (n === 0) return 0;
    const threads = this.#threads.length;
    const chunk = Math.max(minChunk, Math.ceil(n / (threads * CHUNKS_PER_THREAD) / align) * align);
    const ranges: Array<[number, number]> = [];
    for (let start = 0; start < n; start += chunk) ranges.push([start, Math.min(n, start + chunk)]);
    const counter = this.#heap.view(Uint32Array, 1);
    try {
      const jobs = this.#threads.map((_, t): Job => ({ op: "wasm", id: this.#nextId++, first: 0, fn, counter: counter.byteOffset, calls: ranges.map(([a, b]) => args(a, b, t)) }));
      const replies = await this.#settle(jobs);
      return Math.max(0, ...replies.map((r) => ("value" in r && r.value !== undefined ? r.value : 0)));
    } finally {
      this.#heap.free(counter.byteOffset, counter.byteLength);
    }
  }

  /**
   * The zero-copy path: src in the pool's memory, a Float32Array, no flags, and a case the encode kernel covers. The
   * output is written in place when it lives in the pool's memory, else through a temporary block and one copy
   * (caller random bits too). `block` is the kernel's constants (encodeBlock) for the call.
   */
  async #quantizeShared(src: Float32Array, block: Int32Array, random: WasmRandom, given: CodeArray | undefined, target: (() => CodeArray) | undefined, type: ArrayType<CodeArray>, seedIndex: number): Promise<CodeArray> {
    const heap = this.#heap;
    const n = src.length;
    const temporary: HeapView[] = [];
    const scratch = <T extends HeapView>(t: T): T => (temporary.push(t), t);
    try {
      const dst = given && heap.owns(given) ? given : scratch(heap.view(type as never, n) as Uint8Array | Uint16Array);
      let rnd: HeapView | undefined;
      if (random && "array" in random) {
        rnd = heap.owns(random.array) ? random.array : scratch(heap.view(random.array.constructor as never, n));
        if (rnd !== random.array) rnd.set(random.array);
      }
      // One parameter block per part and call (the kernel writes its tail scratch there; calls may overlap).
      const params = this.#threads.map(() => scratch(heap.view(Uint8Array, heap.kernels.encodeParamsBytes())).byteOffset);
      for (const p of params) new Int32Array(heap.buffer, p, BLOCK_WORDS).set(block);
      const codeBytes = dst.BYTES_PER_ELEMENT;
      const randomBytes = rnd?.BYTES_PER_ELEMENT ?? 0;
      await this.#runKernel(n, "encodeF32", (a, b, t) => [params[t]!, src.byteOffset + 4 * a, dst.byteOffset + codeBytes * a, b - a, seedIndex + a, rnd ? rnd.byteOffset + randomBytes * a : 0]);
      if (target) return copyBack(target, dst as CodeArray);
      const result = sharedArray(type, n);
      result.set(dst as never);
      return result;
    } finally {
      for (const t of temporary) heap.free(t.byteOffset, t.byteLength);
    }
  }

  /** The decode table of f in the pool's memory (uploaded on first use). */
  #table(f: Format): WasmTable {
    const key = JSON.stringify(spec(f));
    let t = this.#tables.get(key);
    if (!t) {
      const heap = this.#heap;
      t = uploadTable(heap.kernels, f, decodeTable32(f), (bytes) => heap.alloc(bytes), () => heap.buffer);
      this.#tables.set(key, t);
    }
    return t;
  }

  /**
   * The zero-copy dequantize: codes in the pool's memory (≤ 16-bit formats). Codes are checked first (a max-scan per
   * worker); out is written in place when it lives in the pool's memory, else through a temporary block and one copy.
   */
  async #dequantizeShared(codes: Uint8Array | Uint16Array, f: Format, given: Float32Array | undefined): Promise<Float32Array> {
    const heap = this.#heap;
    // Taken before the first await: a Wasm view given as out is re-created if the memory grows meanwhile.
    const target = given && keep(given);
    const n = codes.length;
    const bytes = codes.BYTES_PER_ELEMENT;
    if (f.codeCount < 2 ** (8 * bytes)) {
      const maximum = await this.#runKernel(n, bytes === 1 ? "maxU8" : "maxU16", (a, b) => [codes.byteOffset + bytes * a, b - a]);
      if (maximum >= f.codeCount) {
        const i = codes.findIndex((c) => c >= f.codeCount);
        throw new CodeRangeError(`codes[${i}]`, `is ${codes[i]}; allowed: a ${f.name} code in [0, ${f.codeCount - 1}]`);
      }
    }
    const { name, args } = decodeCall(this.#table(f), bytes);
    const direct = given !== undefined && heap.owns(given);
    const dst = direct ? given : heap.view(Float32Array, n);
    try {
      await this.#runKernel(n, name, (a, b) => [codes.byteOffset + bytes * a, dst.byteOffset + 4 * a, b - a, ...args]);
      if (target) return copyBack(target, dst);
      const result = sharedArray(Float32Array, n);
      result.set(dst);
      return result;
    } finally {
      if (!direct) heap.free(dst.byteOffset, dst.byteLength);
    }
  }

  get threads(): number {
    return this.#threads.length;
  }

  #open(): void {
    if (this.#closed) throw new ArgumentTypeError("pool", "was closed; allowed: a pool before close()");
  }

  /** Runs one job per range on the workers; waits for all of them, then throws the first part's error, if any. */
  async #run(n: number, job: (start: number, end: number, id: number, thread: number) => Job, align = ALIGN): Promise<Reply[]> {
    return this.#settle(splitRanges(n, this.#threads.length, align).map(([a, b], i) => job(a, b, this.#nextId++, i)));
  }

  /** Posts job i to thread i; waits for all of them, then throws the first job's error, if any. */
  async #settle(jobs: Job[]): Promise<Reply[]> {
    const settled = await Promise.allSettled(jobs.map((j, i) => this.#threads[i]!.post(j)));
    const replies: Reply[] = [];
    settled.forEach((s, i) => {
      if (s.status === "rejected") throw this.#closed ? new ArgumentTypeError("pool", "was closed while the call ran; allowed: close() after the calls settle") : s.reason;
      if ("error" in s.value) throw reviveError(s.value.error, jobs[i]!.first);
      replies.push(s.value);
    });
    return replies;
  }

  /** quantize(src, fmt, options) on the workers; same validation, errors and codes as the single-thread call. */
  async quantize(src: Float32Array | Float64Array, fmt: FormatLike, options?: QuantizeOptions): Promise<CodeArray> {
    this.#open();
    const f = resolveFormat(fmt);
    const n = requireInput(src).length;
    const type = codeArrayType(f);
    const { rho, seed, randomArray, seedIndex = 0 } = resolveQuantize(f, n, options);
    const given = options?.out;
    if (given !== undefined) requireOutput<CodeArray>(given, type as { new (n: number): CodeArray; name: string }, n);
    if (n < this.minElements) return quantize(src, f, options);
    requireSeparate(given, [src, randomArray]);
    // Taken before the first await: a Wasm view given as out is re-created if the memory grows meanwhile.
    const target = given && keep(given);
    if (src instanceof Float32Array && options?.flags === undefined && this.#heap.owns(src) && !(given instanceof Uint32Array)) {
      const random: WasmRandom = seed !== undefined ? { seed } : randomArray ? { array: randomArray } : undefined;
      const block = encodeBlock(f, rho, random);
      if (block) return this.#quantizeShared(src, block, random, given, target, type as ArrayType<CodeArray>, seedIndex);
    }
    const shared = share(src);
    const out = given && isShared(given) ? given : sharedArray(type as ArrayType<CodeArray>, n);
    const random = randomArray && share(randomArray);
    const projection = { rounding: options?.rounding, saturation: options?.saturation, stochasticBits: options?.stochasticBits };
    const flags = options?.flags;
    const replies = await this.#run(n, (a, b, id) => ({
      op: "quantize",
      id,
      first: seedIndex + a,
      format: spec(f),
      src: shared.subarray(a, b),
      out: out.subarray(a, b),
      projection,
      ...(seed !== undefined && { seed }),
      ...(random && { random: random.subarray(a, b) }),
      flags: flags !== undefined,
    }));
    if (flags) for (const r of replies) if ("flags" in r && r.flags) addFlags(flags, r.flags);
    return target ? copyBack(target, out) : out;
  }

  /** dequantize(codes, fmt, options) on the workers: every code is checked before any worker writes. */
  async dequantize(codes: CodeArray, fmt: FormatLike, options?: { out?: Float32Array }): Promise<Float32Array> {
    this.#open();
    const f = resolveFormat(fmt);
    const n = requireCodes(codes, f).length;
    const given = options?.out;
    if (given !== undefined) requireOutput(given, Float32Array, n);
    if (n < this.minElements || f.K > 16) return dequantize(codes, f, options);
    requireSeparate(given, [codes]);
    if (this.#heap.owns(codes) && !(codes instanceof Uint32Array)) return this.#dequantizeShared(codes, f, given);
    const shared = share(codes);
    const out = given && isShared(given) ? given : sharedArray(Float32Array, n);
    const target = given && keep(given);
    const job = (op: "check" | "dequantize") => (a: number, b: number, id: number): Job => ({ op, id, first: a, format: spec(f), codes: shared.subarray(a, b), out: out.subarray(a, b) });
    if (f.codeCount < 2 ** (8 * codes.BYTES_PER_ELEMENT)) await this.#run(n, job("check"));
    await this.#run(n, job("dequantize"));
    return target ? copyBack(target, out) : out;
  }

  /** The product table of ctx in the shared memory (built and uploaded on first use), or undefined. */
  #productTable(ctx: DotContext): number | undefined {
    const key = productKey(ctx);
    if (!this.#products.has(key)) {
      const values = productValues(ctx);
      const ptr = values && this.#heap.alloc(values.byteLength);
      if (values && ptr !== undefined) new Float32Array(this.#heap.buffer, ptr, values.length).set(values);
      this.#products.set(key, ptr);
    }
    return this.#products.get(key);
  }

  /**
   * The zero-copy dot path: operands in the pool's memory and a case dotBatch covers (else undefined). Each worker runs
   * dotBatch on its instance of the threads build over whole rows, with an index scratch of its own: rows of a (or,
   * when a has fewer rows than there are threads, rows of b into parts interleaved after), or row pairs (`pairs`).
   * Returns the float32 results.
   */
  async #dotShared(r: ResolvedDot, a: Uint8Array, b: Uint8Array, k: number, m: number, n: number, pairs: boolean, scales: MatScales | undefined): Promise<Float32Array | undefined> {
    const heap = this.#heap;
    if (!r.wasm || !heap.owns(a) || !heap.owns(b)) return undefined;
    const plan = dotPlan(r.ctx, k, scales?.a !== undefined || scales?.b !== undefined);
    const table = plan && this.#productTable(r.ctx);
    if (!plan || table === undefined) return undefined;
    const results = pairs ? m : m * n;
    const blocks = Math.max(1, Math.ceil(k / r.ctx.block));
    const [strideA, strideB] = [stride(scales?.a, m), stride(scales?.b, n)];
    const temporary: HeapView[] = [];
    const scratch = <T extends HeapView>(t: T): T => (temporary.push(t), t);
    const copy = (s: Uint8Array | undefined) => {
      if (!s) return undefined;
      const view = scratch(heap.view(Uint8Array, s.length, "options.scales"));
      view.set(s);
      return view;
    };
    try {
      const [sa, sb] = [copy(scales?.a), copy(scales?.b)];
      const [saPtr, sbPtr] = [sa?.byteOffset ?? 0, sb?.byteOffset ?? 0];
      const out = scratch(heap.view(Float32Array, results, "out"));
      // One parameter block per thread (the kernel's index scratch is in it).
      const params = this.#threads.map(() => scratch(heap.view(Uint8Array, heap.kernels.dotParamsBytes())).byteOffset);
      for (const p of params) writeDotParams(heap.buffer, p, { ...plan, k, table, strideA, strideB, blocks, pairs, carry: false });
      // Scales of rows [i, …) of a call's operand: one code per row or `blocks` per row.
      const rowScale = (ptr: number, s: number, i: number) => (s === 0 ? 0 : ptr + (s === 1 ? i : i * blocks));
      const call = (pa: number, pb: number, rows: number, cols: number, sA: number, sB: number, po: number, t: number) => [params[t]!, pa, pb, rows, cols, sA, sB, po];
      if (pairs) {
        await this.#runKernel(m, "dotBatch", (i, j, t) => call(a.byteOffset + i * k, b.byteOffset + i * k, j - i, j - i, 0, 0, out.byteOffset + 4 * i, t), 1, 1);
      } else if (m >= this.#threads.length || m >= n) {
        await this.#runKernel(m, "dotBatch", (i, j, t) => call(a.byteOffset + i * k, b.byteOffset, j - i, n, rowScale(saPtr, strideA, i), sbPtr, out.byteOffset + 4 * i * n, t), 1, 1);
      } else {
        // Columns [i, j) of the result go to m × (j − i) results at parts + 4·m·i, interleaved into out after.
        const parts = scratch(heap.view(Float32Array, m * n, "out"));
        const ranges: Array<[number, number]> = [];
        await this.#runKernel(n, "dotBatch", (i, j, t) => {
          if (t === 0) ranges.push([i, j]);
          return call(a.byteOffset, b.byteOffset + i * k, m, j - i, saPtr, rowScale(sbPtr, strideB, i), parts.byteOffset + 4 * m * i, t);
        }, 1, 1);
        for (const [i, j] of ranges) for (let row = 0; row < m; row++) out.set(parts.subarray(m * i + row * (j - i), m * i + (row + 1) * (j - i)), row * n + i);
      }
      return new Float32Array(out);
    } finally {
      for (const t of temporary) heap.free(t.byteOffset, t.byteLength);
    }
  }

  /**
   * Checks the codes of the operands in parallel before any part computes (formats of fewer than 8 bits only; an
   * error names the first bad code of the first bad part, as the single-thread call names the first bad code).
   */
  async #checkDotCodes(r: ResolvedDot, operands: ReadonlyArray<readonly [Uint8Array, "a" | "b"]>): Promise<void> {
    const formats = [spec(r.fa), spec(r.fb)] as const;
    for (const [codes, argument] of operands) {
      if ((argument === "a" ? r.fa : r.fb).codeCount >= 256) continue;
      await this.#run(codes.length, (s, e, id): DotJob => ({ op: "dot", id, first: s, kind: "check", formats, options: {}, a: codes.subarray(s, e), rows: 0, n: 0, k: 0, argument }));
    }
  }

  /**
   * dotRows(a, b, rows, cols, options) on the workers, the row pairs split between them: the same validation, typed
   * errors and results as the single-thread call (each row's dot product is computed whole, in one worker).
   */
  async dotRows(a: Uint8Array, b: Uint8Array, rows: number, cols: number, options: Omit<DotOptions, "length" | "packed"> & { out?: Float32Array }): Promise<Float32Array> {
    this.#open();
    const r = dotRowsArgs(a, b, rows, cols, options, false);
    if (rows * cols < this.minElements) return dotRows(a, b, rows, cols, options);
    const given = options.out;
    requireSeparate(given, [a, b]);
    const target = given && keep(given);
    const sa = share(a);
    const sb = share(b);
    await this.#checkDotCodes(r, [[sa, "a"], [sb, "b"]]);
    const fast = await this.#dotShared(r, sa, sb, cols, rows, rows, true, undefined);
    if (fast) return target ? copyBack(target, fast) : fast;
    const out = given && isShared(given) ? given : sharedArray(Float32Array, rows);
    const formats = [spec(r.fa), spec(r.fb)] as const;
    const opts = dotJobOptions(options);
    await this.#run(rows, (i, j, id): DotJob => ({ op: "dot", id, first: i * cols, kind: "rows", formats, options: opts, a: sa.subarray(i * cols, j * cols), b: sb.subarray(i * cols, j * cols), rows: j - i, n: j - i, k: cols, out: out.subarray(i, j) }), 1);
    return target ? copyBack(target, out) : out;
  }

  /** matvec(a, x, rows, cols, options) on the workers: matmul with n = 1. */
  matvec<T extends Float32Array | Uint16Array = Float32Array>(a: Uint8Array, x: Uint8Array, rows: number, cols: number, options: MatOptions & { out?: T }): Promise<T> {
    return this.matmul(a, x, rows, 1, cols, options);
  }

  /**
   * matmul(a, b, m, n, k, options) on the workers: the rows of a split between them (or, when a has fewer rows than
   * there are threads, the rows of b), each result a whole dot product: the same validation, errors and results.
   */
  async matmul<T extends Float32Array | Uint16Array = Float32Array>(a: Uint8Array, b: Uint8Array, m: number, n: number, k: number, options: MatOptions & { out?: T }): Promise<T> {
    this.#open();
    const r = matmulArgs(a, b, m, n, k, options, false);
    if (m * n * k < this.minElements) return matmul(a, b, m, n, k, options);
    const given = options.out;
    requireSeparate(given, [a, b, options.scales?.a, options.scales?.b]);
    const target = given && keep<Float32Array | Uint16Array>(given);
    const sa = share(a);
    const sb = share(b);
    const scalesA = options.scales?.a && share(options.scales.a);
    const scalesB = options.scales?.b && share(options.scales.b);
    await this.#checkDotCodes(r, [[sa, "a"], [sb, "b"]]);
    const fast = await this.#dotShared(r, sa, sb, k, m, n, false, options.scales && { a: scalesA, b: scalesB });
    if (fast) {
      if (!(given instanceof Uint16Array)) return (target ? copyBack(target as () => Float32Array, fast) : fast) as T;
      return quantize(fast, BINARY16, { out: target!() as Uint16Array }) as T;
    }
    const type = (given instanceof Uint16Array ? Uint16Array : Float32Array) as ArrayType<Float32Array | Uint16Array>;
    const out = given && isShared(given) ? given : sharedArray(type, m * n);
    const formats = [spec(r.fa), spec(r.fb)] as const;
    const opts = dotJobOptions(options);
    const blocks = Math.max(1, Math.ceil(k / r.ctx.block));
    const job = (id: number, first: number, pa: Uint8Array, pb: Uint8Array, rows: number, cols: number, sA: Uint8Array | undefined, sB: Uint8Array | undefined, part: Float32Array | Uint16Array): DotJob => ({
      op: "dot", id, first, kind: "matmul", formats, options: opts, a: pa, b: pb, rows, n: cols, k, scales: { a: sA, b: sB }, out: part,
    });
    if (m >= this.#threads.length || m >= n) {
      await this.#run(m, (i, j, id) => job(id, i * k, sa.subarray(i * k, j * k), sb, j - i, n, rowScales(scalesA, m, i, j, blocks), scalesB, out.subarray(i * n, j * n)), 1);
    } else {
      // Few rows of a: each worker takes a range of b's rows into a part of its own, interleaved into out after.
      const parts: Array<[number, number, Float32Array | Uint16Array]> = [];
      await this.#run(n, (i, j, id) => {
        const part = sharedArray(type, m * (j - i));
        parts.push([i, j, part]);
        return job(id, 0, sa, sb.subarray(i * k, j * k), m, j - i, scalesA, rowScales(scalesB, n, i, j, blocks), part);
      }, 1);
      for (const [i, j, part] of parts) for (let row = 0; row < m; row++) out.set(part.subarray(row * (j - i), (row + 1) * (j - i)), row * n + i);
    }
    return (target ? copyBack(target, out) : out) as T;
  }

  /** Stops the workers; calls still running reject with ArgumentTypeError, later calls throw it. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.map((t) => t.worker.terminate()));
    for (const t of this.#threads) t.fail(new ArgumentTypeError("pool", "was closed; allowed: a pool before close()"));
  }
}

/** Every field of FormatSpec (the compiler checks the list is complete). */
const SPEC_FIELDS: Record<keyof FormatSpec, true> = {
  name: true,
  family: true,
  K: true,
  P: true,
  bias: true,
  signed: true,
  infinity: true,
  highNaNs: true,
  negativeZero: true,
  zero: true,
  subnormals: true,
  finiteOverflow: true,
  nanSubstitute: true,
  nanPayload: true,
  signedZeroAndNaN: true,
  defaultProjection: true,
};

/** The parameters of a format as plain data (a worker rebuilds the Format from them). */
function spec(f: Format): FormatSpec {
  return Object.fromEntries(Object.keys(SPEC_FIELDS).map((k) => [k, f[k as keyof FormatSpec]])) as unknown as FormatSpec;
}

/** The caller's output (its current view: a Wasm view is re-created if memory grew meanwhile), holding `out`. */
function copyBack<T extends SharedView>(target: () => T, out: T): T {
  const now = target();
  if (now !== out) now.set(out as never);
  return now;
}

const BINARY16 = format("binary16");

/** The plain-data options of a dot job (formats travel as specs). */
function dotJobOptions(o: { partials?: string; overflow?: string; block?: number; wasm?: boolean }): DotJob["options"] {
  return { partials: o.partials, overflow: o.overflow, block: o.block, wasm: o.wasm };
}

/** The scales of rows [i, j) of `count` rows: one code per row or `blocks` per row (validated by matmulArgs). */
function rowScales(s: Uint8Array | undefined, count: number, i: number, j: number, blocks: number): Uint8Array | undefined {
  if (!s) return undefined;
  return s.length === count ? s.subarray(i, j) : s.subarray(i * blocks, j * blocks);
}

function addFlags(into: ConversionFlags, from: ConversionFlags): void {
  for (const key of Object.keys(from) as Array<keyof ConversionFlags>) into[key] += from[key];
}

/**
 * Starts a pool of worker threads (Node worker_threads, or Web Workers in a cross-origin isolated page) and resolves
 * once every worker runs.
 */
export async function createPool(options?: PoolOptions): Promise<Pool> {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ArgumentTypeError("options", `got ${describe(options)}; allowed: { threads?, minElements? }`);
  }
  const threads = requireInteger("options.threads", options?.threads ?? hardwareThreads(), 1, MAX_THREADS);
  const minElements = requireInteger("options.minElements", options?.minElements ?? DEFAULT_MIN_ELEMENTS, 0, Number.MAX_SAFE_INTEGER);
  if (typeof SharedArrayBuffer === "undefined" || (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false) {
    throw new ArgumentTypeError("createPool", "needs shared memory, which this page does not have; allowed: Node, or a cross-origin isolated page (served with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp)");
  }
  const heap = new SharedHeap();
  const init: WorkerInit = { module: heap.module, memory: heap.memory };
  const pool = Array.from({ length: threads }, () => new Thread(startWorker(workerSource, init)));
  try {
    // A worker reports once it has instantiated the kernels on the shared memory (reply id −1).
    await Promise.all(pool.map((t) => t.ready));
  } catch (error) {
    await Promise.all(pool.map((t) => t.worker.terminate()));
    throw error;
  }
  return new Pool(pool, minElements, heap);
}
