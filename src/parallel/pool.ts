// A pool of worker threads for bulk quantize/dequantize and batched dot products (Node worker_threads, or Web Workers
// in a cross-origin isolated page: host.ts / host-browser.ts). The pool owns one shared Wasm memory (heap.ts);
// every worker instantiates the threads build of the kernels on it, so arrays allocated there (pool.allocFloat32,
// pool.allocCodes) are converted in place: each worker runs the kernel on a disjoint range, with its own encode
// parameter block. Other cases (other arrays, float64 input, flags, formats or modes without a kernel, the kernels
// switched off) run the library in each worker on its part of SharedArrayBuffer views. quantize plans through
// api/plan.ts like the single-thread call; dot products are in pool-dot.ts, the thread plumbing in workers.ts.
// Calls below `minElements` run on the calling thread, where a dispatch (≈0.1 ms) would cost more than it saves.
import { workerSource } from "../../build/parallel/worker.js";
import {
  type ConvertOptions,
  DEQUANTIZE_KEYS,
  type DequantizeOptions,
  type Float16ArrayLike,
  convert,
  dequantize,
  planConvert,
  planDequantize16,
  runQuantize,
  table16,
} from "../api/bulk.js";
import { decodeTable32 } from "../exact/tables.js";
import { type QuantizeOptions, type QuantizePlan, planQuantize } from "../api/plan.js";
import { type FormatLike, resolveFormat } from "../api/scalar.js";
import { type CodeArray, requireCodes, requireOutput } from "../api/validate.js";
import { checkOptions } from "../options.js";
import { ArgumentTypeError, CodeRangeError, describe, requireInteger } from "../errors.js";
import type { ConversionFlags } from "../exact/cast.js";
import type { Format } from "../format/model.js";
import { type DotOptions, MATVEC_NAMES, type MatOptions } from "../dot/index.js";
import type { KernelCall } from "../wasm/abi.js";
import { type WasmTable, type WasmTable16, decodeCall, gatherCall16, uploadTable, uploadTable16 } from "../wasm/decode.js";
import { BLOCK_WORDS } from "../wasm/encode.js";
import { type KernelTier, kernelStatus } from "../wasm/instance.js";
import { WasmArray, keep } from "../wasm/memory.js";
import { type HeapView, type PoolArray, SharedHeap } from "./heap.js";
import { hardwareThreads, startWorker } from "./host.js";
import { PoolDot } from "./pool-dot.js";
import type { Job, WorkerInit } from "./protocol.js";
import { type ArrayType, Thread, Workers, copyBack, isShared, share, sharedArray } from "./workers.js";
import { requireSeparate } from "../api/validate.js";

/** Smallest call sent to the workers by default: below about 4M elements one thread is as fast or faster (bench/parallel.mjs, README "Multi-core"). */
export const DEFAULT_MIN_ELEMENTS = 1 << 22;
const MAX_THREADS = 256;

export interface PoolOptions {
  /** Worker threads (default: os.availableParallelism()). */
  threads?: number;
  /** Calls with fewer elements (dot products: multiply-adds) run on the calling thread (default DEFAULT_MIN_ELEMENTS). */
  minElements?: number;
  /**
   * The calling thread runs kernel chunks too while the workers wake up (default false): one thread fewer to wake per
   * call, but the caller (its event loop, a page's main thread) is busy until its last chunk is done.
   */
  callerRuns?: boolean;
}

/** Worker threads running bulk conversions in parallel; results are bit-identical to quantize/dequantize. */
export class Pool {
  readonly #w: Workers;
  readonly #dot: PoolDot;
  /** Decode tables in the shared memory, by format parameters (uploaded once, kept until the pool is dropped). */
  readonly #tables = new Map<Format, WasmTable>();
  /** 16-bit conversion tables in the shared memory, by the table (conversionTable returns one array per conversion). */
  readonly #tables16 = new WeakMap<Uint16Array, WasmTable16>();
  readonly minElements: number;

  /** Use createPool(), which waits until every worker is running. */
  constructor(workers: Workers, minElements: number) {
    this.#w = workers;
    this.#dot = new PoolDot(workers, minElements);
    this.minElements = minElements;
  }

  /** A zeroed Float32Array of n elements in the pool's shared memory: quantize reads it without copies. */
  allocFloat32(n: number): PoolArray<Float32Array> {
    this.#w.open();
    return new WasmArray(Float32Array, n, "n", this.#w.heap);
  }

  /** A zeroed code array of n elements for fmt (Uint8Array for K ≤ 8, else Uint16Array) in the pool's shared memory. */
  allocCodes(fmt: FormatLike, n: number): PoolArray<Uint8Array | Uint16Array> {
    this.#w.open();
    const f = resolveFormat(fmt);
    if (f.K > 16) throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; allowed: formats of up to 16 bits in the pool's memory`);
    return new WasmArray<Uint8Array | Uint16Array>(f.K <= 8 ? Uint8Array : Uint16Array, n, "n", this.#w.heap);
  }

  get threads(): number {
    return this.#w.threads.length;
  }

  /** The build of the kernels the workers run: "relaxed" (relaxed SIMD) where the library's own kernels are, else "baseline". */
  get tier(): KernelTier {
    return this.#w.heap.tier;
  }

  /** Whether the calling thread runs kernel chunks too (PoolOptions.callerRuns). */
  get callerRuns(): boolean {
    return this.#w.callerRuns;
  }

  /** quantize(src, fmt, options) on the workers; same validation, errors, path and codes as the single-thread call. */
  async quantize(src: Float32Array | Float64Array | Uint16Array | Float16ArrayLike, fmt: FormatLike, options?: QuantizeOptions): Promise<CodeArray> {
    this.#w.open();
    const plan = planQuantize(src, fmt, options);
    const n = plan.src.length;
    if (n < this.minElements) return runQuantize(plan);
    const { f, random, flags } = plan;
    const given = plan.out;
    requireSeparate(given, [
      [src, "src"],
      [random?.kind === "array" ? random.array : undefined, "options.random"],
    ]);
    // Taken before the first await: a Wasm view given as out is re-created if the memory grows meanwhile.
    const target = given && keep(given);
    if (plan.run.kernel === "encodeF32" && this.#w.heap.owns(plan.src)) return this.#quantizeShared(plan, plan.run.block, target);
    const shared = share(plan.src);
    const out = given && isShared(given) ? given : sharedArray(plan.type as unknown as ArrayType<CodeArray>, n);
    const array = random?.kind === "array" ? share(random.array) : undefined;
    const seedIndex = random?.kind === "seed" ? random.seedIndex : 0;
    const projection = { rounding: options?.rounding, saturation: options?.saturation, stochasticBits: options?.stochasticBits };
    const kernels = kernelStatus().enabled;
    const replies = await this.#w.run(n, (a, b, id) => ({
      op: "quantize",
      id,
      first: seedIndex + a,
      format: f.toJSON(),
      kernels,
      src: shared.subarray(a, b),
      out: out.subarray(a, b),
      projection,
      ...(random?.kind === "seed" && { seed: random.seed }),
      ...(array && { random: array.subarray(a, b) }),
      flags: flags !== undefined,
    }));
    if (flags) for (const r of replies) if ("flags" in r && r.flags) addFlags(flags, r.flags);
    return target ? copyBack(target, out) : out;
  }

  /**
   * The zero-copy path: src in the pool's memory, a Float32Array, no flags, and a case the encode kernel covers. The
   * output is written in place when it lives in the pool's memory, else through a temporary block and one copy
   * (caller random bits too). `block` is the plan's kernel constants.
   */
  async #quantizeShared(plan: QuantizePlan, block: Int32Array, target: (() => CodeArray) | undefined): Promise<CodeArray> {
    const heap = this.#w.heap;
    const { src, out: given, type, random } = plan;
    const n = src.length;
    const seedIndex = random?.kind === "seed" ? random.seedIndex : 0;
    const temporary: HeapView[] = [];
    const scratch = <T extends HeapView>(t: T): T => {
      temporary.push(t);
      return t;
    };
    try {
      const dst = given && heap.owns(given) ? given : scratch(heap.view(type as never, n) as Uint8Array | Uint16Array);
      let rnd: HeapView | undefined;
      if (random?.kind === "array") {
        rnd = heap.owns(random.array) ? random.array : scratch(heap.view(random.array.constructor as never, n));
        if (rnd !== random.array) rnd.set(random.array);
      }
      // One parameter block per part and call (the kernel writes its tail scratch there; calls may overlap).
      const params = Array.from({ length: this.#w.runners }, () => scratch(heap.view(Uint8Array, heap.kernels.encodeParamsBytes())).byteOffset);
      for (const p of params) new Int32Array(heap.buffer, p, BLOCK_WORDS).set(block);
      const codeBytes = dst.BYTES_PER_ELEMENT;
      const randomBytes = rnd?.BYTES_PER_ELEMENT ?? 0;
      await this.#w.runKernel(n, "encodeF32", (a, b, t) => [
        params[t]!,
        src.byteOffset + 4 * a,
        dst.byteOffset + codeBytes * a,
        b - a,
        seedIndex + a,
        rnd ? rnd.byteOffset + randomBytes * a : 0,
      ]);
      if (target) return copyBack(target, dst as CodeArray);
      const result = sharedArray(type as unknown as ArrayType<CodeArray>, n);
      result.set(dst as never);
      return result;
    } finally {
      for (const t of temporary) heap.free(t.byteOffset, t.byteLength);
    }
  }

  /** The decode table of f in the pool's memory (uploaded on first use). */
  #table(f: Format): WasmTable {
    let t = this.#tables.get(f);
    if (!t) {
      const heap = this.#w.heap;
      t = uploadTable(
        heap.kernels,
        f,
        decodeTable32,
        (bytes) => heap.alloc(bytes),
        () => heap.buffer,
      );
      this.#tables.set(f, t);
    }
    return t;
  }

  /** A 16-bit conversion table of f's codes in the pool's memory, with its affine form (uploaded on first use). */
  #table16(f: Format, table: Uint16Array): WasmTable16 {
    let t = this.#tables16.get(table);
    if (!t) {
      const heap = this.#w.heap;
      t = uploadTable16(
        f,
        table,
        (bytes) => heap.alloc(bytes),
        () => heap.buffer,
      );
      this.#tables16.set(table, t);
    }
    return t;
  }

  /**
   * dequantize(codes, fmt, options) on the workers: every code is checked before any worker writes. Float16/bfloat16
   * output (`to`) runs on the workers when the codes live in the pool's memory, else on the calling thread.
   */
  async dequantize(codes: CodeArray, fmt: FormatLike, options?: { out?: Float32Array; to?: "float32" }): Promise<Float32Array>;
  async dequantize(codes: CodeArray, fmt: FormatLike, options: DequantizeOptions & { to: "float16" | "bfloat16" }): Promise<Uint16Array | Float16ArrayLike>;
  async dequantize(codes: CodeArray, fmt: FormatLike, options?: DequantizeOptions): Promise<Float32Array | Uint16Array | Float16ArrayLike> {
    this.#w.open();
    const f = resolveFormat(fmt);
    const { out: given, to = "float32", bits = false } = checkOptions(options, DEQUANTIZE_KEYS);
    // Refused here as on one thread, whatever the route (the float32 one takes no bits).
    if (typeof bits !== "boolean") return dequantize(codes, f, options as never);
    if (to !== "float32") {
      if (!this.#inPlace(codes, f) || (to !== "float16" && to !== "bfloat16")) return dequantize(codes, f, options as never);
      requireCodes(codes, f);
      const plan = planDequantize16(codes, to, given, bits);
      requireSeparate(plan.dst(), [[codes, "codes"]]);
      const table = table16(f, plan.target, plan.rho);
      await this.#tableKernel(codes as Uint8Array | Uint16Array, f, Uint16Array, plan.dst, () =>
        gatherCall16(this.#table16(f, table), codes.BYTES_PER_ELEMENT),
      );
      return plan.result();
    }
    const n = requireCodes(codes, f).length;
    if (given !== undefined) requireOutput(given as Float32Array, Float32Array, n);
    if (n < this.minElements || f.K > 16) return dequantize(codes, f, options as { out?: Float32Array });
    requireSeparate(given, [[codes, "codes"]]);
    const kernels = kernelStatus().enabled;
    if (kernels && this.#w.heap.owns(codes) && !(codes instanceof Uint32Array)) return this.#dequantizeShared(codes, f, given as Float32Array | undefined);
    const shared = share(codes);
    const out = given && isShared(given) ? (given as Float32Array) : sharedArray(Float32Array, n);
    const target = given && keep(given as Float32Array);
    const job =
      (op: "check" | "dequantize") =>
      (a: number, b: number, id: number): Job => ({ op, id, first: a, format: f.toJSON(), kernels, codes: shared.subarray(a, b), out: out.subarray(a, b) });
    if (f.codeCount < 2 ** (8 * codes.BYTES_PER_ELEMENT)) await this.#w.run(n, job("check"));
    await this.#w.run(n, job("dequantize"));
    return target ? copyBack(target, out) : out;
  }

  /**
   * convert(codes, from, to, options) on the workers when the codes live in the pool's memory and the target has
   * 9…16 bits (one table kernel); else on the calling thread. Same validation, errors and codes.
   */
  async convert(codes: CodeArray, from: FormatLike, to: FormatLike, options?: ConvertOptions): Promise<Uint8Array | Uint16Array> {
    this.#w.open();
    const f = resolveFormat(from, "from");
    if (!this.#inPlace(codes, f)) return convert(codes, f, to, options);
    const { table, out } = planConvert(codes, f, to, options);
    if (!(table instanceof Uint16Array)) return convert(codes, f, to, options);
    requireSeparate(out(), [[codes, "codes"]]);
    await this.#tableKernel(codes as Uint8Array | Uint16Array, f, Uint16Array, out as () => Uint16Array, () =>
      gatherCall16(this.#table16(f, table), codes.BYTES_PER_ELEMENT),
    );
    return out();
  }

  /** Whether a call on these codes runs on the workers' kernels in place: large enough, in the pool's memory, ≤ 16 bits. */
  #inPlace(codes: CodeArray, f: Format): boolean {
    return (
      kernelStatus().enabled &&
      f.K <= 16 &&
      !(codes instanceof Uint32Array) &&
      ArrayBuffer.isView(codes) &&
      this.#w.heap.owns(codes) &&
      codes.length >= Math.max(this.minElements, f.codeCount)
    );
  }

  /**
   * A table kernel over codes in the pool's memory on the workers, codes checked first: into `target` in place when it
   * lives in the pool's memory, else through a temporary block and one copy into it (`target` re-creates the caller's
   * view if its memory grew), or without `target` into a new SharedArrayBuffer-backed array.
   */
  async #tableKernel<T extends Float32Array | Uint16Array>(
    codes: Uint8Array | Uint16Array,
    f: Format,
    type: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number },
    target: (() => T) | undefined,
    call: () => { name: KernelCall; args: number[] },
  ): Promise<T> {
    const heap = this.#w.heap;
    const n = codes.length;
    const bytes = codes.BYTES_PER_ELEMENT;
    const size = type.BYTES_PER_ELEMENT;
    await this.#checkCodes(codes, f);
    const { name, args } = call();
    const direct = target !== undefined && heap.owns(target());
    const dst = direct ? target() : (heap.view(type as never, n) as T);
    try {
      await this.#w.runKernel(n, name, (a, b) => [codes.byteOffset + bytes * a, dst.byteOffset + size * a, b - a, ...args]);
      if (target) return copyBack(target, dst);
      const result = sharedArray(type as unknown as ArrayType<T>, n);
      result.set(dst as never);
      return result;
    } finally {
      if (!direct) heap.free(dst.byteOffset, dst.byteLength);
    }
  }

  /** Throws CodeRangeError for the first code ≥ 2^K (a max-scan per worker), before anything is written. */
  async #checkCodes(codes: Uint8Array | Uint16Array, f: Format): Promise<void> {
    const bytes = codes.BYTES_PER_ELEMENT;
    if (f.codeCount >= 2 ** (8 * bytes)) return;
    const maximum = await this.#w.runKernel(codes.length, bytes === 1 ? "maxU8" : "maxU16", (a, b) => [codes.byteOffset + bytes * a, b - a]);
    if (maximum >= f.codeCount) {
      const i = codes.findIndex((c) => c >= f.codeCount);
      throw new CodeRangeError(`codes[${i}]`, `is ${codes[i]}; allowed: a ${f.name} code in [0, ${f.codeCount - 1}]`);
    }
  }

  /** The zero-copy dequantize: codes in the pool's memory (≤ 16-bit formats) through f's decode table. */
  #dequantizeShared(codes: Uint8Array | Uint16Array, f: Format, given: Float32Array | undefined): Promise<Float32Array> {
    // Taken before the first await: a Wasm view given as out is re-created if the memory grows meanwhile.
    return this.#tableKernel(codes, f, Float32Array, given && keep(given), () => decodeCall(this.#table(f), codes.BYTES_PER_ELEMENT));
  }

  /** dotRows(a, b, rows, cols, options) on the workers: the same validation, typed errors and results. */
  dotRows(
    a: Uint8Array,
    b: Uint8Array,
    rows: number,
    cols: number,
    options: Omit<DotOptions, "length" | "packed"> & { out?: Float32Array },
  ): Promise<Float32Array> {
    return this.#dot.dotRows(a, b, rows, cols, options);
  }

  /** matvec(a, x, rows, cols, options) on the workers: matmul with n = 1. */
  matvec<T extends Float32Array | Uint16Array = Float32Array>(
    a: Uint8Array,
    x: Uint8Array,
    rows: number,
    cols: number,
    options: MatOptions & { out?: T },
  ): Promise<T> {
    return this.#dot.matmul(a, x, rows, 1, cols, options, MATVEC_NAMES);
  }

  /** matmul(a, b, m, n, k, options) on the workers: the same validation, typed errors and results. */
  matmul<T extends Float32Array | Uint16Array = Float32Array>(
    a: Uint8Array,
    b: Uint8Array,
    m: number,
    n: number,
    k: number,
    options: MatOptions & { out?: T },
  ): Promise<T> {
    return this.#dot.matmul(a, b, m, n, k, options);
  }

  /** Stops the workers; calls still running reject with ArgumentTypeError, later calls throw it. */
  close(): Promise<void> {
    return this.#w.close();
  }
}

function addFlags(into: ConversionFlags, from: ConversionFlags): void {
  for (const key of Object.keys(from) as Array<keyof ConversionFlags>) into[key] += from[key];
}

/**
 * Starts a pool of worker threads (Node worker_threads, or Web Workers in a cross-origin isolated page) and resolves
 * once every worker runs.
 */
const POOL_KEYS = ["threads", "minElements", "callerRuns"] as const satisfies readonly (keyof PoolOptions)[];

export async function createPool(options?: PoolOptions): Promise<Pool> {
  checkOptions(options, POOL_KEYS);
  const threads = requireInteger("options.threads", options?.threads ?? hardwareThreads(), 1, MAX_THREADS);
  const minElements = requireInteger("options.minElements", options?.minElements ?? DEFAULT_MIN_ELEMENTS, 0, Number.MAX_SAFE_INTEGER);
  const callerRuns = options?.callerRuns ?? false;
  if (typeof callerRuns !== "boolean") throw new ArgumentTypeError("options.callerRuns", `got ${describe(callerRuns)}; allowed: true or false`);
  if (typeof SharedArrayBuffer === "undefined" || (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false) {
    throw new ArgumentTypeError(
      "createPool",
      "needs shared memory, which this page does not have; allowed: Node, or a cross-origin isolated page (served with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp)",
    );
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
  return new Pool(new Workers(pool, heap, callerRuns), minElements);
}
