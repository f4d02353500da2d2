// Narrow partial sums (docs/blocks-and-dot.md, "Exploring saturation in low-precision dot products"): a float64 value rounded
// to the partials format's precision with an unbounded exponent, then the overflow mode applied when the rounded
// magnitude exceeds MaxFinite. Every step is exact float64 arithmetic (proofs inline).
import { CodeRangeError, describe } from "../errors.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";

/** What a projection into the partials format does when |v| > MaxFinite (v rounded with unbounded exponent). */
export const OVERFLOW_MODES = ["OvSAT", "OvINF", "OvNAN"] as const;
export type OverflowMode = (typeof OVERFLOW_MODES)[number];

export const PARTIALS_FORMATS = ["binary16", "bfloat16", "binary32"] as const;
export type PartialsName = (typeof PARTIALS_FORMATS)[number];

/** The constants of one partials format (an IEEE format whose values are all float32 values). */
export interface Partials {
  readonly name: PartialsName;
  readonly format: Format;
  /** Precision P (significand bits with the hidden bit). */
  readonly P: number;
  /** Exponent of the smallest subnormal quantum (binary16: −24). */
  readonly minQ: number;
  /** MaxFinite as a float64. */
  readonly max: number;
}

const cache = new Map<string, Partials>();

export function partialsFormat(name: unknown, argument = "options.partials"): Partials {
  if (typeof name !== "string" || !(PARTIALS_FORMATS as readonly string[]).includes(name)) {
    throw new CodeRangeError(argument, `got ${describe(name)}; allowed: ${PARTIALS_FORMATS.join(", ")}`);
  }
  let p = cache.get(name);
  if (!p) {
    const f = format(name);
    const max = (2 - 2 ** (1 - f.P)) * 2 ** (2 ** f.exponentBits - 2 - f.bias);
    p = Object.freeze({ name: name as PartialsName, format: f, P: f.P, minQ: f.minQuantumExponent, max });
    cache.set(name, p);
  }
  return p;
}

export function overflowMode(mode: unknown, allowed: readonly string[] = OVERFLOW_MODES, argument = "options.overflow"): string {
  if (typeof mode !== "string" || !allowed.includes(mode)) {
    throw new CodeRangeError(argument, `got ${describe(mode)}; allowed: ${allowed.join(", ")}`);
  }
  return mode;
}

const f64 = new Float64Array(1);
const hi = new Uint32Array(f64.buffer, 4, 1);

/** ⌊log2 a⌋ for a positive normal float64; −1023 for subnormals (callers clamp the quantum above that). */
export function exponentOf(a: number): number {
  f64[0] = a;
  return ((hi[0]! >>> 20) & 0x7ff) - 1023;
}

/** 2^e for −1074 ≤ e ≤ 1023 (exact powers of two; a table avoids Math.pow in the hot loops). */
const POW2 = new Float64Array(2098);
for (let e = -1074; e <= 1023; e++) POW2[e + 1074] = 2 ** e;
export function pow2(e: number): number {
  return POW2[e + 1074]!;
}

/**
 * x rounded to nearest, ties to even, at precision P with quantum ≥ 2^minQ and no upper exponent bound.
 * Exact: y = |x|·2^−q is a power-of-two scaling that stays normal (y ≥ 2^−1074·2^149 or y ≥ 2^(P−1)), ⌊y⌋ and
 * y − ⌊y⌋ are exact for y < 2^53, and r·2^q is exact because r has at most P + 1 ≤ 25 bits.
 */
export function roundNearestEven(x: number, P: number, minQ: number): number {
  if (x === 0 || x !== x || x === Infinity || x === -Infinity) return x;
  const a = Math.abs(x);
  const q = Math.max(exponentOf(a) - P + 1, minQ);
  const y = a * pow2(-q);
  let r = Math.floor(y);
  const frac = y - r;
  if (frac > 0.5 || (frac === 0.5 && r % 2 === 1)) r += 1;
  const v = r * pow2(q);
  return x < 0 ? -v : v;
}

/**
 * The projection of one partial result: round to the partials' precision (RNE, unbounded exponent); if the
 * magnitude then exceeds MaxFinite (±∞ included) OvSAT gives ±MaxFinite, OvINF ±∞, OvNAN NaN. NaN stays NaN.
 * (OvSAT ≡ P3109 (NearestTiesToEven, SatFinite), OvINF ≡ (NearestTiesToEven, SatNone); OvNAN = OvINF with ∞ → NaN.)
 */
export function projectPartial(x: number, p: Partials, mode: OverflowMode): number {
  const v = roundNearestEven(x, p.P, p.minQ);
  if (v > p.max || v < -p.max) {
    if (mode === "OvSAT") return v > 0 ? p.max : -p.max;
    if (mode === "OvINF") return v > 0 ? Infinity : -Infinity;
    return NaN;
  }
  return v;
}

/** Mode numbers shared with the Wasm kernels (assembly/dot.ts). */
export function modeIndex(mode: OverflowMode): number {
  return mode === "OvSAT" ? 0 : mode === "OvINF" ? 1 : 2;
}
