// Every derived per-code table of a format, built once per Format object. Formats are interned (makeFormat), so
// object identity is the only cache key needed and the tables go when the format does.
import { ArgumentTypeError, CodeRangeError } from "../errors.js";
import type { Format } from "../format/model.js";
import { project } from "./cast.js";
import { decodeExact, operandValue } from "./decode.js";
import type { ResolvedProjection } from "./projection.js";
import { type Exact, float32Bits, scaleByPowerOfTwo } from "./value.js";

/** Tables enumerate every code, so they exist for formats of up to 16 bits (65 536 entries). */
function requireTableFormat(f: Format): void {
  if (f.K > 16) throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; allowed: a format of at most 16 bits (per-code tables)`);
}

function cached<T>(cache: WeakMap<Format, T>, f: Format, build: () => T): T {
  let t = cache.get(f);
  if (t === undefined) {
    requireTableFormat(f);
    t = build();
    cache.set(f, t);
  }
  return t;
}

const exactCache = new WeakMap<Format, readonly Exact[]>();

/** ωDecode of every code as the ω-functions see it (P3109 §4.8: −0 is 0, every NaN the one NaN). */
export function exactValues(f: Format): readonly Exact[] {
  return cached(exactCache, f, () => Object.freeze(Array.from({ length: f.codeCount }, (_, c) => operandValue(c, f))));
}

/**
 * Calls visit(mag, m, e) for every finite magnitude code: its value is m·2^e (ωDecode §4.7.2) with m < 2^16 an
 * integer, so the tables are built in exact number arithmetic instead of BigInt.
 */
function forEachFinite(f: Format, visit: (mag: number, m: number, e: number, scale: number) => void): void {
  const t = f.trailingBits;
  const hidden = 2 ** t;
  const flushed = f.subnormals === "flush";
  // Binade by binade: 2^e is computed once per exponent field, not per code (65 536 codes take a millisecond).
  for (let E = 0, mag = 0; mag <= f.maxFiniteMagnitude; E++) {
    const subnormal = E === 0 && f.zero;
    const e = (subnormal ? 1 : E) - f.bias - t;
    const scale = 2 ** e;
    const end = Math.min(mag + hidden, f.maxFiniteMagnitude + 1);
    for (let T = 0; mag < end; T++, mag++) visit(mag, subnormal ? (flushed ? 0 : T) : T + hidden, e, scale);
  }
}

/** A magnitude whose value is zero: code 0, or a flushed subnormal. */
function isZeroMagnitude(f: Format, mag: number): boolean {
  return f.zero && (mag === 0 || (f.subnormals === "flush" && mag < 2 ** f.trailingBits));
}

/** The sign bit of a negative code's entry: always for nonzero numbers and ∞; for zeros and NaNs per the policy. */
function negativeSign(f: Format, mag: number, signBit: number): number {
  return f.policy.signedZeroAndNaN || !(mag >= f.highNaNStart || isZeroMagnitude(f, mag)) ? signBit : 0;
}

/** float64 values of every code and the first code whose value a float64 cannot hold (−1 when none). */
interface Float64Values {
  readonly values: Float64Array;
  readonly firstInexact: number;
}
const float64Cache = new WeakMap<Format, Float64Values>();

function float64Values(f: Format): Float64Values {
  return cached(float64Cache, f, () => {
    const values = new Float64Array(f.codeCount).fill(NaN);
    let firstInexact = -1;
    forEachFinite(f, (mag, m, e, scale) => {
      if (m === 0) return void (values[mag] = 0);
      // Exactly representable: no bit below 2^−1074 (the least subnormal), none at or above 2^1024.
      const low = e + 31 - Math.clz32(m & -m);
      const high = e + 31 - Math.clz32(m);
      if (low >= -1074 && high <= 1023) values[mag] = e >= -1074 ? m * scale : scaleByPowerOfTwo(m, e);
      else if (firstInexact < 0) firstInexact = mag;
    });
    if (f.infinity) values[f.infMagnitude] = Infinity;
    for (let mag = 0; mag < f.signBit; mag++) {
      const v = values[mag]!;
      // NaN entries stay the one canonical NaN: negating would set its sign bit, which arithmetic propagates.
      values[f.signBit + mag] = v !== v ? NaN : negativeSign(f, mag, 1) ? -v : Math.abs(v);
    }
    if (f.signed && f.isNaNCode(f.signBit)) values[f.signBit] = NaN;
    return { values, firstInexact };
  });
}

/**
 * The exact value of every code as a float64: NaN for NaN codes, −0 for a negative-zero code. Throws
 * CodeRangeError for a format with a value a float64 cannot hold (only custom formats with extreme biases), as
 * the scalar `decode` does for that code.
 */
export function valueTable(f: Format): Float64Array {
  const { values, firstInexact } = float64Values(f);
  if (firstInexact >= 0) {
    throw new CodeRangeError(
      "fmt",
      `code ${firstInexact} of ${f.name} has a value a float64 cannot hold exactly; allowed: formats whose values fit float64 (use decodeExact)`,
    );
  }
  return values;
}

/**
 * As `valueTable`, but a value a float64 cannot hold is NaN instead of an error: the dot-product and block
 * references read their (≤ 8-bit) operand values from here and treat such codes as NaN.
 */
export function valueTableOrNaN(f: Format): Float64Array {
  return float64Values(f).values;
}

/** MaxFinite of a format as a float64 (NaN when it does not fit one). */
export function maxFiniteValue(f: Format): number {
  return valueTableOrNaN(f)[f.maxFiniteMagnitude]!;
}

const float32Cache = new WeakMap<Format, Uint32Array>();

/**
 * float32 bit patterns of every code: Convert<f, binary32, (NearestTiesToEven, SatNone)> (P3109 §4.9.1), exact
 * for every format whose values fit binary32; vendor formats keep NaN signs and payloads as ml_dtypes does.
 */
export function decodeTable32(f: Format): Uint32Array {
  return cached(float32Cache, f, () => {
    const t = new Uint32Array(f.codeCount);
    const tb = f.trailingBits;
    const hidden = 2 ** tb;
    // Binade by binade, in integer arithmetic where the binade lies in binary32's normal range: (hidden + T)·2^(x − tb)
    // has the bits (x + 127)·2^23 + T·2^(23 − tb), one addition per code (65 536 codes in well under a millisecond
    // on a cold start, where a float64 product and a float32 rounding per code take tens).
    for (let E = 0, mag = 0; mag <= f.maxFiniteMagnitude; E++) {
      const end = Math.min(mag + hidden, f.maxFiniteMagnitude + 1);
      const x = E - f.bias;
      if (!(E === 0 && f.zero) && tb <= 23 && x >= -126 && x <= 127) {
        const step = 2 ** (23 - tb);
        for (let bits = (x + 127) * 2 ** 23; mag < end; mag++, bits += step) t[mag] = bits;
      } else mag = roundedBinade(f, t, E, mag, end);
    }
    if (f.infinity) t[f.infMagnitude] = 0x7f800000;
    for (let mag = f.highNaNStart; mag < 2 ** f.magnitudeBits; mag++) t[mag] = nanBits32(f, mag);
    for (let mag = 0; mag < f.signBit; mag++) t[f.signBit + mag] = (t[mag]! | 0x80000000) >>> 0;
    // Where the policy drops the signs of zeros and NaNs (negativeSign), their negative codes take the positive entry.
    if (f.signed && !f.policy.signedZeroAndNaN) {
      const zeros = f.zero ? (f.subnormals === "flush" ? 2 ** f.trailingBits : 1) : 0;
      for (let mag = 0; mag < zeros; mag++) t[f.signBit + mag] = t[mag]!;
      for (let mag = f.highNaNStart; mag < f.signBit; mag++) t[f.signBit + mag] = t[mag]!;
    }
    if (f.signed && f.isNaNCode(f.signBit)) t[f.signBit] = nanEntry32(f, f.signBit);
    return t;
  });
}

/**
 * Writes the float32 bits of magnitudes [mag, end) of binade E into t, rounded: a subnormal binade, or one outside
 * binary32's normal range. Returns end.
 */
function roundedBinade(f: Format, t: Uint32Array, E: number, mag: number, end: number): number {
  const subnormal = E === 0 && f.zero;
  const e = (subnormal ? 1 : E) - f.bias - f.trailingBits;
  const scale = 2 ** e;
  const hidden = 2 ** f.trailingBits;
  for (let T = 0; mag < end; T++, mag++) {
    const m = subnormal ? (f.subnormals === "flush" ? 0 : T) : T + hidden;
    if (m === 0) continue;
    // Below 2^−150 (half the least binary32 subnormal) RNE gives 0, from 2^129 on ∞; between these bounds m·2^e
    // is exact in float64 and Math.fround rounds it once, to nearest even, overflowing to ∞ as binary32 does.
    const high = e + 31 - Math.clz32(m);
    t[mag] = float32Bits(high < -151 ? 0 : high > 128 ? Infinity : m * scale);
  }
  return end;
}

/** decodeTable32's entry for a NaN code, without the table: its binary32 NaN, signed for negative codes by the policy. */
export function nanEntry32(f: Format, code: number): number {
  return ((f.isNegativeCode(code) && f.policy.signedZeroAndNaN ? 0x80000000 : 0) | nanBits32(f, code)) >>> 0;
}

/**
 * The binary32 NaN of a NaN code: the quiet NaN, or for formats whose policy keeps payloads the trailing bits T
 * top-aligned (a zero payload becomes 1, so the result stays a NaN).
 */
function nanBits32(f: Format, code: number): number {
  if (!(f.policy.signedZeroAndNaN && f.policy.nanPayload !== "drop" && f.infinity)) return 0x7fc00000;
  const T = f.magnitudeOf(code) % 2 ** f.trailingBits;
  return 0x7f800000 + (T === 0 ? 1 : T * 2 ** (23 - f.trailingBits));
}

/** A deterministic projection's cache key (stochastic roundings need per-element random bits: no table). */
function projectionKey(rho: ResolvedProjection): string {
  if (rho.stochasticBits > 0) throw new ArgumentTypeError("options.rounding", `is ${rho.rounding}; allowed: a deterministic rounding (a per-code table)`);
  return `${rho.rounding}|${rho.saturation}|${rho.vendor}|${rho.datums}`;
}

/** True when every value of f is a float32 (so decodeTable32 holds each exactly, NaNs aside). */
export function valuesFitFloat32(f: Format): boolean {
  // MaxFinite < 2^128, and every value a multiple of 2^minQuantumExponent ≥ 2^−149 with P ≤ 24 bits.
  return f.P <= 24 && f.minQuantumExponent >= -149 && maxFiniteBinade(f) < 128;
}

/**
 * Whether f's codes below its top binade are binary32's top K bits (bfloat16): signed, 8 exponent bits with bias 127,
 * gradual subnormals, a zero and a −0 of its own, so each such code's float32 bits are the code shifted up.
 */
export function binary32Prefix(f: Format): boolean {
  const layout = f.signed && f.K > 8 && f.K - f.P === 8 && f.bias === 127 && f.subnormals === "gradual";
  return layout && f.zero && f.negativeZero === "zero" && f.policy.signedZeroAndNaN;
}

/** e with 2^e ≤ MaxFinite < 2^(e+1), from the parameters (no table). */
export function maxFiniteBinade(f: Format): number {
  const hidden = 2 ** f.trailingBits;
  const T = f.maxFiniteMagnitude % hidden;
  const E = (f.maxFiniteMagnitude - T) / hidden;
  return E === 0 && f.zero ? 1 - f.bias - f.trailingBits + 31 - Math.clz32(T) : E - f.bias;
}

/** Projects float32 values in bulk into a format (the Wasm encode kernel), or undefined when it cannot. */
export type BulkProjection = (values: Float32Array, target: Format, rho: ResolvedProjection) => Uint8Array | Uint16Array | undefined;

const conversionCaches = new WeakMap<Format, WeakMap<Format, Map<string, Uint8Array | Uint16Array>>>();

/**
 * The codes in `target` (≤ 16 bits) of every code of f: Convert<f, target, ρ> (P3109 §4.9.1), one rounding of each
 * exact value; signs of zero and NaN and NaN payloads as the formats' policies keep them. When every value of f is a
 * float32, `bulk` may project decodeTable32's exact float32 values (65 536 codes in well under a millisecond instead
 * of a BigInt projection each); test/api-convert.test.ts checks both routes agree on every code.
 */
export function conversionTable(f: Format, target: Format, rho: ResolvedProjection, bulk?: BulkProjection): Uint8Array | Uint16Array {
  requireTableFormat(target);
  const key = projectionKey(rho);
  let byTarget = conversionCaches.get(f);
  if (!byTarget) conversionCaches.set(f, (byTarget = new WeakMap()));
  let byRho = byTarget.get(target);
  if (!byRho) byTarget.set(target, (byRho = new Map()));
  let table = byRho.get(key);
  if (!table) {
    requireTableFormat(f);
    const values = valuesFitFloat32(f) ? decodeTable32(f) : undefined;
    table = values && bulk?.(new Float32Array(values.buffer, values.byteOffset, values.length), target, rho);
    if (!table) {
      table = target.K <= 8 ? new Uint8Array(f.codeCount) : new Uint16Array(f.codeCount);
      for (let c = 0; c < f.codeCount; c++) table[c] = project(decodeExact(c, f), target, rho);
    }
    byRho.set(key, table);
  }
  return table;
}
