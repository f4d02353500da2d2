// Reference bulk conversion: quantize Float32Array/Float64Array into codes and dequantize codes into float32.
// The Wasm kernels replace the inner loops; validation and semantics live here.
import { ArgumentTypeError, CodeRangeError, ProjectionError, describe } from "../errors.js";
import { type ConversionFlags, project } from "../exact/cast.js";
import { type Projection, type ResolvedProjection, isStochastic, resolveProjection } from "../exact/projection.js";
import { decodeTable32 } from "../exact/tables.js";
import { fromFloat32Bits, fromNumber } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { randomR, seedKeys } from "../random.js";
import { type FormatLike, resolveFormat } from "./scalar.js";
import { dequantizeWasm } from "../wasm/decode.js";
import { quantizeWasm } from "../wasm/encode.js";

export type CodeArray = Uint8Array | Uint16Array | Uint32Array;
export type RandomArray = Uint8Array | Uint16Array | Uint32Array;

export interface QuantizeOptions extends Omit<Projection, "random"> {
  /** Seed of the counter-based generator: R_i depends on (seed, i) alone (src/random.ts randomR). Integer in [0, 2^32). */
  seed?: number;
  /**
   * With `seed`: the stream index of src[0] (default 0), so a tensor converted in parts gives the same result as
   * in one call (part k passes the index of its first element). seedIndex + src.length ≤ 2^32.
   */
  seedIndex?: number;
  /** Caller-supplied R_i, one per element, each < 2^N. */
  random?: RandomArray;
  /** Output codes (length = input length; Uint8Array for ≤ 8-bit formats, Uint16Array for 9…16 bits). */
  out?: CodeArray;
  /** Exception flags (counts) added to by this call. */
  flags?: ConversionFlags;
}

/** The code array type of a format: one byte per code up to 8 bits, uint16 up to 16, uint32 up to 32. */
export function codeArrayType(f: Format): typeof Uint8Array | typeof Uint16Array | typeof Uint32Array {
  if (f.K <= 8) return Uint8Array;
  if (f.K <= 16) return Uint16Array;
  if (f.K <= 32) return Uint32Array;
  throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; code arrays hold formats of up to 32 bits (use Float64Array for binary64)`);
}

/** Random bits of element i of a quantize call: from the caller's array or from the seeded generator. */
export type RandomSource = (i: number) => number;

/** Validates quantize options and returns the projection and the random source (undefined when deterministic). */
export function resolveQuantize(f: Format, n: number, options: QuantizeOptions | undefined): { rho: ResolvedProjection; random?: RandomSource; randomArray?: RandomArray; seed?: number; seedIndex?: number } {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ArgumentTypeError("options", `got ${describe(options)}; allowed: an object { rounding?, saturation?, stochasticBits?, seed?, random?, out?, flags? }`);
  }
  const { seed, seedIndex, random, out: _out, flags, ...projection } = options ?? {};
  if (flags !== undefined && (typeof flags !== "object" || flags === null)) {
    throw new ArgumentTypeError("options.flags", `got ${describe(flags)}; allowed: a ConversionFlags object, e.g. newFlags()`);
  }
  const rho = resolveProjection(f, projection as Projection);
  const stochastic = isStochastic(rho.rounding);
  if (seedIndex !== undefined && seed === undefined) throw new ProjectionError("options.seedIndex", "only allowed together with options.seed");
  if (!stochastic) {
    if (seed !== undefined || random !== undefined) {
      throw new ProjectionError(seed !== undefined ? "options.seed" : "options.random", `only allowed with a stochastic rounding (rounding is ${rho.rounding})`);
    }
    return { rho };
  }
  if ((seed === undefined) === (random === undefined)) {
    throw new ProjectionError("options", `${rho.rounding} needs exactly one of options.seed (an integer in [0, 2^32)) or options.random (one R per element)`);
  }
  if (seed !== undefined) {
    if (typeof seed !== "number" || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new ProjectionError("options.seed", `got ${describe(seed)}; allowed: an integer in [0, 2^32)`);
    }
    const first = seedIndex ?? 0;
    if (typeof first !== "number" || !Number.isInteger(first) || first < 0 || first + n > 2 ** 32) {
      throw new ProjectionError("options.seedIndex", `got ${describe(seedIndex)}; allowed: an integer ≥ 0 with seedIndex + length (${n}) ≤ 2^32`);
    }
    const [k0, k1] = seedKeys(seed);
    const N = rho.stochasticBits;
    return { rho, seed, seedIndex: first, random: (i) => randomR(k0, k1, first + i, N) };
  }
  if (!(random instanceof Uint8Array || random instanceof Uint16Array || random instanceof Uint32Array)) {
    throw new ArgumentTypeError("options.random", `got ${describe(random)}; allowed: a Uint8Array, Uint16Array or Uint32Array with one R per element`);
  }
  if (random.length !== n) throw new CodeRangeError("options.random", `has length ${random.length}; allowed: the input length ${n}`);
  const limit = 2 ** rho.stochasticBits;
  for (let i = 0; i < n; i++) {
    if (random[i]! >= limit) throw new ProjectionError("options.random", `element ${i} is ${random[i]}; allowed: 0 ≤ R < 2^N = ${limit}`);
  }
  return { rho, randomArray: random, random: (i) => random[i]! };
}

export function requireInput(src: unknown): Float32Array | Float64Array {
  if (!(src instanceof Float32Array || src instanceof Float64Array)) {
    throw new ArgumentTypeError("src", `got ${describe(src)}; allowed: a Float32Array or Float64Array`);
  }
  return requireAttached(src, "src");
}

/** A detached array reads as empty; rejecting it keeps a transferred buffer from giving a silently empty result. */
export function requireAttached<T extends ArrayBufferView>(a: T, argument: string): T {
  if (a.byteLength > 0 || a.buffer instanceof SharedArrayBuffer || a.buffer.byteLength > 0) return a;
  try {
    new Uint8Array(a.buffer);
  } catch {
    throw new ArgumentTypeError(argument, `is a ${a.constructor.name} whose ArrayBuffer was detached (transferred); allowed: an array with a live buffer`);
  }
  return a;
}

export function requireOutput<T extends CodeArray | Float32Array>(out: unknown, type: { new (n: number): T; readonly name: string }, n: number, argument = "options.out"): T {
  if (out === undefined) return new type(n);
  if (!(out instanceof type)) throw new ArgumentTypeError(argument, `got ${describe(out)}; allowed: a ${type.name} of length ${n}`);
  requireAttached(out, argument);
  if (out.length !== n) throw new CodeRangeError(argument, `has length ${out.length}; allowed: ${n} (the input length)`);
  return out;
}

/** Projects every element of src into the format (reference implementation, exact BigInt arithmetic). */
export function quantizeReference(src: Float32Array | Float64Array, f: Format, rho: ResolvedProjection, out: CodeArray, random?: RandomSource, flags?: ConversionFlags): void {
  const f32 = src instanceof Float32Array ? new Uint32Array(src.buffer, src.byteOffset, src.length) : undefined;
  for (let i = 0; i < src.length; i++) {
    const x = f32 ? fromFloat32Bits(f32[i]!) : fromNumber(src[i]!);
    out[i] = project(x, f, rho, random ? random(i) : 0, flags);
  }
}

/** Quantizes float32/float64 values into codes of the format (P3109 §4.7.3 projection per element). */
export function quantize(src: Float32Array | Float64Array, fmt: FormatLike, options?: QuantizeOptions): CodeArray {
  const f = resolveFormat(fmt);
  requireInput(src);
  const type = codeArrayType(f);
  const { rho, random, randomArray, seed, seedIndex } = resolveQuantize(f, src.length, options);
  const out = requireOutput<CodeArray>(options?.out, type as { new (n: number): CodeArray; name: string }, src.length);
  if (src instanceof Float32Array && options?.flags === undefined && !(out instanceof Uint32Array)) {
    const fast = quantizeWasm(src, f, rho, out, seed !== undefined ? { seed } : randomArray ? { array: randomArray } : undefined, seedIndex);
    if (fast) return fast;
  }
  quantizeReference(src, f, rho, out, random, options?.flags);
  return out;
}

// The table service owns decodeTable32; re-exported while importers move there.
export { decodeTable32 };

export function requireCodes(codes: unknown, f: Format, argument = "codes"): CodeArray {
  const type = codeArrayType(f);
  if (!(codes instanceof type)) throw new ArgumentTypeError(argument, `got ${describe(codes)}; allowed: a ${type.name} of ${f.name} codes`);
  return requireAttached(codes, argument);
}

/** Dequantizes codes into float32 (exact where the value fits binary32; see decodeTable32). */
export function dequantize(codes: CodeArray, fmt: FormatLike, options?: { out?: Float32Array }): Float32Array {
  const f = resolveFormat(fmt);
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new ArgumentTypeError("options", `got ${describe(options)}; allowed: { out?: Float32Array }`);
  }
  requireCodes(codes, f);
  const out = requireOutput(options?.out, Float32Array, codes.length);
  const fast = dequantizeWasm(codes, f, out, decodeTable32);
  if (fast) return fast;
  const table = decodeTable32(f);
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  const limit = f.codeCount;
  for (let i = 0; i < codes.length; i++) {
    if (codes[i]! >= limit) throw new CodeRangeError(`codes[${i}]`, `is ${codes[i]}; allowed: a ${f.name} code in [0, ${limit - 1}]`);
  }
  for (let i = 0; i < codes.length; i++) bits[i] = table[codes[i]!]!;
  return out;
}
