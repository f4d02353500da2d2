// A pool of worker threads for bulk quantize/dequantize (Node only). Each worker owns a Wasm instance and memory;
// inputs and outputs travel as SharedArrayBuffer views, so workers read and write them in place. Calls below
// `minElements` run on the calling thread, where a dispatch (≈0.1 ms) would cost more than it saves.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { workerSource } from "../../build/parallel/worker.js";
import { type CodeArray, type QuantizeOptions, codeArrayType, dequantize, quantize, requireCodes, requireInput, requireOutput, resolveQuantize } from "../api/bulk.js";
import { type FormatLike, resolveFormat } from "../api/scalar.js";
import { ArgumentTypeError, CodeRangeError, describe, requireInteger } from "../errors.js";
import type { ConversionFlags } from "../exact/project.js";
import type { Format, FormatSpec } from "../format/model.js";
import { keep } from "../wasm/memory.js";
import { type Job, type Reply, type SharedView, reviveError, splitRanges } from "./protocol.js";

/** Smallest call sent to the workers by default: below about 4M elements the dispatch and copies cost about what the second core saves (bench/parallel.mjs). */
export const DEFAULT_MIN_ELEMENTS = 1 << 22;
/** Part boundaries are multiples of 64 elements (whole cache lines of codes, whole SIMD blocks). */
const ALIGN = 64;
const MAX_THREADS = 256;

export interface PoolOptions {
  /** Worker threads (default: os.availableParallelism()). */
  threads?: number;
  /** Calls with fewer elements run on the calling thread (default DEFAULT_MIN_ELEMENTS). */
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

  constructor(readonly worker: Worker) {
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      p?.resolve(reply);
    });
    worker.on("error", (error) => this.fail(new Error(`minifloat worker failed: ${error.message}`)));
    worker.on("exit", (code) => this.fail(new Error(`minifloat worker exited (code ${code})`)));
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
      this.worker.ref();
      this.worker.postMessage(job);
    });
  }
}

/** Worker threads running bulk conversions in parallel; results are bit-identical to quantize/dequantize. */
export class Pool {
  readonly #threads: Thread[];
  readonly minElements: number;
  #nextId = 0;
  #closed = false;

  /** Use createPool(), which waits until every worker is running. */
  constructor(workers: Worker[], minElements: number) {
    this.#threads = workers.map((w) => new Thread(w));
    this.minElements = minElements;
  }

  get threads(): number {
    return this.#threads.length;
  }

  #open(): void {
    if (this.#closed) throw new ArgumentTypeError("pool", "was closed; allowed: a pool before close()");
  }

  /** Runs one job per range on the workers; waits for all of them, then throws the first part's error, if any. */
  async #run(n: number, job: (start: number, end: number, id: number) => Job): Promise<Reply[]> {
    const jobs = splitRanges(n, this.#threads.length, ALIGN).map(([a, b]) => job(a, b, this.#nextId++));
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
    const { seed, randomArray } = resolveQuantize(f, n, options);
    const given = options?.out;
    if (given !== undefined) requireOutput<CodeArray>(given, type as { new (n: number): CodeArray; name: string }, n);
    if (n < this.minElements) return quantize(src, f, options);
    requireSeparate(given, [src, randomArray]);
    const shared = share(src);
    const out = given && isShared(given) ? given : sharedArray(type as ArrayType<CodeArray>, n);
    const random = randomArray && share(randomArray);
    const target = given && keep(given);
    const projection = { rounding: options?.rounding, saturation: options?.saturation, stochasticBits: options?.stochasticBits };
    const flags = options?.flags;
    const replies = await this.#run(n, (a, b, id) => ({
      op: "quantize",
      id,
      first: a,
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
    const shared = share(codes);
    const out = given && isShared(given) ? given : sharedArray(Float32Array, n);
    const target = given && keep(given);
    const job = (op: "check" | "dequantize") => (a: number, b: number, id: number): Job => ({ op, id, first: a, format: spec(f), codes: shared.subarray(a, b), out: out.subarray(a, b) });
    if (f.codeCount < 2 ** (8 * codes.BYTES_PER_ELEMENT)) await this.#run(n, job("check"));
    await this.#run(n, job("dequantize"));
    return target ? copyBack(target, out) : out;
  }

  /** Stops the workers; calls still running reject with ArgumentTypeError, later calls throw it. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.map((t) => t.worker.terminate()));
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

function addFlags(into: ConversionFlags, from: ConversionFlags): void {
  for (const key of Object.keys(from) as Array<keyof ConversionFlags>) into[key] += from[key];
}

/** Starts a pool of worker threads (Node only) and resolves once every worker runs. */
export async function createPool(options?: PoolOptions): Promise<Pool> {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ArgumentTypeError("options", `got ${describe(options)}; allowed: { threads?, minElements? }`);
  }
  const threads = requireInteger("options.threads", options?.threads ?? availableParallelism(), 1, MAX_THREADS);
  const minElements = requireInteger("options.minElements", options?.minElements ?? DEFAULT_MIN_ELEMENTS, 0, Number.MAX_SAFE_INTEGER);
  const url = new URL(`data:text/javascript,${encodeURIComponent(workerSource)}`);
  const workers = Array.from({ length: threads }, () => new Worker(url));
  try {
    await Promise.all(workers.map((w) => new Promise((resolve, reject) => w.once("online", resolve).once("error", reject))));
  } catch (error) {
    await Promise.all(workers.map((w) => w.terminate()));
    throw error;
  }
  return new Pool(workers, minElements);
}
