// MiniFloatArray: a typed-array-like view of codes of one format, stored in Wasm memory so bulk conversions run in
// place. Codes are stored one per element (Uint8Array up to 8 bits, also for float6/float4; Uint16Array up to 16),
// the layout quantize/dequantize and ml_dtypes use; packed bytes are an export format, not the storage.
import { type QuantizeOptions, dequantize, quantize } from "../api/bulk.js";
import { requireAttached } from "../api/validate.js";
import { type PackedBits, packCodes, unpackCodes } from "../api/packed.js";
import { type FormatLike, encode, resolveFormat } from "../api/scalar.js";
import { ArgumentTypeError, CodeRangeError, FormatError, describe, requireInteger } from "../errors.js";
import { valueTable } from "../exact/tables.js";
import type { Format } from "../format/model.js";
import { kernels } from "../wasm/instance.js";
import { WasmArray, inWasm, memoryBuffer, requireLive } from "../wasm/memory.js";
import { ArrayIterator } from "./iterator.js";
import { type Codes, type CodesType, CodeStorage, freedError } from "./storage.js";

/** What a MiniFloatArray is built from: numbers, or float32/float64 values (also as Wasm arrays), or another view. */
export type MiniFloatSource =
  | ArrayLike<number>
  | Iterable<number>
  | Float32Array
  | Float64Array
  | WasmArray<Float32Array>
  | WasmArray<Float64Array>
  | MiniFloatArray;

/** Projection of a bulk conversion (as for quantize, without `out`). */
export type FromOptions = Omit<QuantizeOptions, "out">;

function codesType(f: Format): CodesType {
  if (f.K > 16)
    throw new FormatError("fmt", `${f.name} has ${f.K}-bit codes; allowed: a format of at most 16 bits (use a Float32Array or Float64Array for ${f.name})`);
  return f.K <= 8 ? Uint8Array : Uint16Array;
}

function packedBits(f: Format): PackedBits {
  if (f.K !== 4 && f.K !== 6)
    throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; allowed: a 4- or 6-bit format (packed layouts exist for FP4 and FP6)`);
  return f.K;
}

/** A start/end argument of subarray/slice/fill: relative to the end when negative, clamped to [0, length]. */
function relative(argument: string, value: number | undefined, length: number, fallback: number): number {
  if (value === undefined) return fallback;
  requireInteger(argument, value, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  return value < 0 ? Math.max(length + value, 0) : Math.min(value, length);
}

/** A source prepared before any allocation: its length, and a function returning its values as a live view. */
interface Prepared {
  readonly length: number;
  /** Float values to quantize, read after the target was allocated (a growth of Wasm memory detaches views). */
  readonly values: () => Float32Array | Float64Array;
  /** Set when the source is a MiniFloatArray: same-format sources are copied code by code. */
  readonly array?: MiniFloatArray;
}

/** A typed array as a function returning a live view: a Wasm view is re-created from its address after a growth. */
function keep<T extends ArrayBufferView & { readonly length: number }>(a: T, argument: string): () => T {
  if (!kernels()) return () => a;
  requireLive(a, argument);
  if (!inWasm(a)) return () => a;
  const type = a.constructor as { new (buffer: ArrayBuffer, byteOffset: number, length: number): T };
  const { byteOffset, length } = a;
  return () => (a.buffer === memoryBuffer() ? a : new type(memoryBuffer(), byteOffset, length));
}

const SOURCES = "an array-like or iterable of numbers, a Float32Array/Float64Array (or a WasmArray of one) or a MiniFloatArray";

function prepare(source: unknown, argument: string): Prepared {
  if (source instanceof MiniFloatArray) return { length: source.length, values: () => source.toFloat64Array(), array: source };
  if (source instanceof WasmArray) {
    const probe = source.array;
    if (probe instanceof Float32Array || probe instanceof Float64Array)
      return { length: source.length, values: () => source.array as Float32Array | Float64Array };
  } else if (source instanceof Float32Array || source instanceof Float64Array) {
    const values = keep(source, argument);
    return { length: requireAttached(source, argument).length, values };
  } else if (source !== null && typeof source === "object") {
    if (ArrayBuffer.isView(source)) requireAttached(source, argument);
    const list: ArrayLike<unknown> = Symbol.iterator in source ? Array.from(source as Iterable<unknown>) : (source as ArrayLike<unknown>);
    const n = requireInteger(`${argument}.length`, list.length, 0, 2 ** 32);
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = list[i];
      if (typeof v !== "number") throw new ArgumentTypeError(`${argument}[${i}]`, `got ${describe(v)}; allowed: a number`);
      values[i] = v;
    }
    return { length: n, values: () => values };
  }
  throw new ArgumentTypeError(argument, `got ${describe(source)}; allowed: ${SOURCES}`);
}

/** Codes checked against the format, as a function returning a live view (see keep). */
function checkedCodes(codes: unknown, f: Format): () => ArrayLike<number> {
  if (codes === null || typeof codes !== "object" || typeof (codes as ArrayLike<unknown>).length !== "number") {
    throw new ArgumentTypeError("codes", `got ${describe(codes)}; allowed: an array-like of ${f.name} codes (e.g. a Uint8Array)`);
  }
  if (ArrayBuffer.isView(codes)) requireAttached(codes, "codes");
  const list = codes as ArrayLike<unknown>;
  const limit = f.codeCount;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (typeof c !== "number" || !Number.isInteger(c) || c < 0 || c >= limit)
      throw new CodeRangeError(`codes[${i}]`, `is ${describe(c)}; allowed: a ${f.name} code in [0, ${limit - 1}]`);
  }
  return ArrayBuffer.isView(codes) ? keep(codes as Codes | Uint32Array, "codes") : () => codes as ArrayLike<number>;
}

/** Runs `fill` on a new array, freeing it when `fill` throws (a rejected source must not leak Wasm memory). */
function filled<T extends MiniFloatArray>(target: T, fill: (target: T) => void): T {
  try {
    fill(target);
  } catch (error) {
    target.free();
    throw error;
  }
  return target;
}

export class MiniFloatArray implements Iterable<number> {
  /** The format of every element. */
  readonly format: Format;
  /** Number of elements. */
  readonly length: number;
  /** Bytes per stored code: 1 for formats of up to 8 bits (float4 and float6 too), 2 up to 16. */
  readonly BYTES_PER_ELEMENT: number;
  readonly #storage: CodeStorage;
  /** First element within the storage (non-zero for subarrays). */
  readonly #offset: number;
  /** Whether free() releases the storage (false for subarrays, which only end their own use of it). */
  readonly #owner: boolean;
  #released = false;
  #view: Codes | undefined;
  #values: Float64Array | undefined;

  /**
   * `length` zero codes (the value +0 in every format that has a zero). `shared` is internal: subarray() passes the
   * storage and first element it views.
   */
  constructor(fmt: FormatLike, length: number, shared?: { storage: CodeStorage; offset: number }) {
    this.format = resolveFormat(fmt);
    const type = codesType(this.format);
    this.BYTES_PER_ELEMENT = type.BYTES_PER_ELEMENT;
    if (shared !== undefined) {
      if (!(shared.storage instanceof CodeStorage))
        throw new ArgumentTypeError("shared", `got ${describe(shared)}; allowed: omitted (subarray() creates shared views)`);
      this.length = length;
      this.#storage = shared.storage;
      this.#offset = shared.offset;
      this.#owner = false;
    } else {
      this.length = requireInteger("length", length, 0, 2 ** 32);
      this.#storage = new CodeStorage(type, length);
      this.#offset = 0;
      this.#owner = true;
    }
  }

  /**
   * Quantizes values into a new array: float32/float64 (also in Wasm memory, then without copies) through quantize
   * with `options`; numbers as float64; a MiniFloatArray of the same format without options by code copy.
   */
  static from(source: MiniFloatSource, fmt: FormatLike, options?: FromOptions): MiniFloatArray {
    const f = resolveFormat(fmt);
    const prepared = prepare(source, "source");
    return filled(new MiniFloatArray(f, prepared.length), (target) => target.#store(prepared, options));
  }

  /** A new array of `length` codes of a 4- or 6-bit format unpacked from bytes in the layout of packCodes. */
  static fromPacked(bytes: Uint8Array, fmt: FormatLike, length: number): MiniFloatArray {
    const f = resolveFormat(fmt);
    const bits = packedBits(f);
    const live = ArrayBuffer.isView(bytes) ? keep(bytes, "bytes") : () => bytes;
    requireInteger("length", length, 0, 2 ** 32);
    return filled(new MiniFloatArray(f, length), (target) => unpackCodes(live(), bits, length, { out: target.codes as Uint8Array }));
  }

  /** A new array holding a copy of `codes` (each checked against the format first). */
  static fromCodes(codes: ArrayLike<number>, fmt: FormatLike): MiniFloatArray {
    const f = resolveFormat(fmt);
    const live = checkedCodes(codes, f);
    return filled(new MiniFloatArray(f, live().length), (target) => target.codes.set(live()));
  }

  /** Throws ArgumentTypeError after free(). */
  #requireLive(): void {
    if (this.#released || !this.#storage.live) throw freedError();
  }

  /** The codes this array views, in Wasm memory: read it again after anything that may allocate (growth detaches it). */
  get codes(): Codes {
    this.#requireLive();
    const all = this.#storage.codes;
    return (this.#view = this.#offset === 0 && this.length === all.length ? all : all.subarray(this.#offset, this.#offset + this.length));
  }

  /** Bytes of code storage this array views. */
  get byteLength(): number {
    return this.length * this.BYTES_PER_ELEMENT;
  }

  /** Whether free() was called on this array (or on the array it is a subarray of). */
  get freed(): boolean {
    return this.#released || !this.#storage.live;
  }

  /** The cached code view while it is current (not detached by a growth, not freed); the hot path of get/set. */
  #current(): Codes {
    const v = this.#view;
    return v !== undefined && v.length === this.length && this.length > 0 && this.#storage.live ? v : this.codes;
  }

  #index(index: unknown): number {
    if (typeof index === "number" && index >= 0 && index < this.length && Number.isInteger(index)) return index;
    if (this.length === 0) throw new CodeRangeError("index", `got ${describe(index)}; allowed: none (the array is empty)`);
    return requireInteger("index", index, 0, this.length - 1);
  }

  /** The exact value of element `index` (every code of a format of up to 16 bits is a float64). */
  get(index: number): number {
    const v = this.#view;
    const values = this.#values;
    // A detached view has length 0, so the bounds test also catches growth; free() clears #view or `live`.
    if (v !== undefined && values !== undefined && index >= 0 && index < v.length && this.#storage.live && Number.isInteger(index)) return values[v[index]!]!;
    const codes = this.#current();
    return (this.#values ??= valueTable(this.format))[codes[this.#index(index)]!]!;
  }

  /**
   * `set(index, value)` stores encode(value) under the format's default projection; `set(source, offset = 0)`
   * stores a whole source from `offset` on, as TypedArray#set does (see from() for the conversion).
   */
  set(index: number, value: number): void;
  set(source: MiniFloatSource, offset?: number): void;
  set(first: number | MiniFloatSource, second?: number): void {
    if (typeof first === "number") {
      const codes = this.#current();
      const index = this.#index(first);
      if (typeof second !== "number") throw new ArgumentTypeError("value", `got ${describe(second)}; allowed: a number`);
      codes[index] = encode(second, this.format);
      return;
    }
    const offset = second === undefined ? 0 : requireInteger("offset", second, 0, this.length);
    const prepared = prepare(first, "source");
    this.#fits("source", prepared.length, offset);
    this.subarray(offset, offset + prepared.length).#store(prepared, undefined);
  }

  /** Stores codes as they are (each checked against the format first) from `offset` on; returns this array. */
  setCodes(codes: ArrayLike<number>, offset = 0): this {
    requireInteger("offset", offset, 0, this.length);
    const live = checkedCodes(codes, this.format);
    this.#fits("codes", live().length, offset);
    this.codes.set(live(), offset);
    return this;
  }

  #fits(argument: string, n: number, offset: number): void {
    if (n > this.length - offset)
      throw new CodeRangeError(argument, `has ${n} elements; allowed: at most ${this.length - offset} (length ${this.length} − offset ${offset})`);
  }

  #store(prepared: Prepared, options: FromOptions | undefined): void {
    if (options !== undefined && (options === null || typeof options !== "object" || "out" in options)) {
      throw new ArgumentTypeError("options", `got ${describe(options)}; allowed: quantize options without out (the array is the output)`);
    }
    if (prepared.array?.format === this.format && options === undefined) this.codes.set(prepared.array.codes);
    else quantize(prepared.values(), this.format, { ...options, out: this.codes });
  }

  /** Stores encode(value) in elements start…end−1 (negative positions count from the end); returns this array. */
  fill(value: number, start?: number, end?: number): this {
    if (typeof value !== "number") throw new ArgumentTypeError("value", `got ${describe(value)}; allowed: a number`);
    const code = encode(value, this.format);
    const from = relative("start", start, this.length, 0);
    this.codes.fill(code, from, Math.max(from, relative("end", end, this.length, this.length)));
    return this;
  }

  /** Quantizes float32/float64 values (of this array's length) into this array in place; returns this array. */
  quantizeFrom(source: Float32Array | Float64Array | WasmArray<Float32Array> | WasmArray<Float64Array>, options?: FromOptions): this {
    const prepared = prepare(source, "source");
    if (prepared.array !== undefined || !(source instanceof WasmArray || ArrayBuffer.isView(source))) {
      throw new ArgumentTypeError("source", `got ${describe(source)}; allowed: a Float32Array or Float64Array (or a WasmArray of one)`);
    }
    if (prepared.length !== this.length) throw new CodeRangeError("source", `has length ${prepared.length}; allowed: ${this.length} (the array's length)`);
    this.#store(prepared, options);
    return this;
  }

  /** A view of elements begin…end−1 (negative positions count from the end): no copy, same storage and lifetime. */
  subarray(begin?: number, end?: number): MiniFloatArray {
    this.#requireLive();
    const from = relative("begin", begin, this.length, 0);
    const to = Math.max(from, relative("end", end, this.length, this.length));
    return new MiniFloatArray(this.format, to - from, { storage: this.#storage, offset: this.#offset + from });
  }

  /** A copy of elements begin…end−1 in new storage. */
  slice(begin?: number, end?: number): MiniFloatArray {
    this.#requireLive();
    const from = relative("begin", begin, this.length, 0);
    const to = Math.max(from, relative("end", end, this.length, this.length));
    return filled(new MiniFloatArray(this.format, to - from), (copy) => copy.codes.set(this.codes.subarray(from, to)));
  }

  /** Dequantizes into float32 (into `out` when given, e.g. a WasmArray's view, else a new Float32Array). */
  toFloat32Array(out?: Float32Array): Float32Array {
    return out === undefined ? dequantize(this.codes, this.format) : dequantize(this.codes, this.format, { out });
  }

  /** The exact values as float64 (the vendor formats' NaN signs and payloads are not kept). */
  toFloat64Array(): Float64Array {
    const codes = this.codes;
    const values = (this.#values ??= valueTable(this.format));
    const out = new Float64Array(this.length);
    for (let i = 0; i < out.length; i++) out[i] = values[codes[i]!]!;
    return out;
  }

  /** The codes of a 4- or 6-bit format packed (FP4: two per byte, low nibble first; FP6: four in three bytes). */
  toPacked(): Uint8Array {
    return packCodes(this.codes as Uint8Array, packedBits(this.format));
  }

  /** A copy of the codes in an ordinary ArrayBuffer (for files, postMessage transfer, WebGPU uploads). */
  toArrayBuffer(): ArrayBuffer {
    return this.codes.slice().buffer;
  }

  values(): IterableIterator<number> {
    return new ArrayIterator(this.length, (i) => this.get(i));
  }

  keys(): IterableIterator<number> {
    return new ArrayIterator(this.length, (i) => i);
  }

  entries(): IterableIterator<[number, number]> {
    return new ArrayIterator(this.length, (i): [number, number] => [i, this.get(i)]);
  }

  [Symbol.iterator](): IterableIterator<number> {
    return this.values();
  }

  /**
   * Releases the storage (of this array and all its subarrays; on a subarray, ends only its own use). Later use
   * throws ArgumentTypeError; a second free() does nothing. This is the contract: the FinalizationRegistry that
   * frees unreachable storage is a safety net with no timing guarantee.
   */
  free(): void {
    if (this.#owner) this.#storage.free();
    this.#released = true;
    this.#view = undefined;
  }

  [Symbol.dispose](): void {
    this.free();
  }
}
