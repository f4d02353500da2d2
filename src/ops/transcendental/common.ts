// Shared pieces of the transcendental ω-operations: the refinement loop, exact dyadic helpers and constants
// as results.
import { type Exact, type Finite, bitLength, finite, floorLog2, normalize } from "../../exact/value.js";
import { piInterval } from "./constants.js";
import { type Interval, TranscendentalPrecisionError, div, fromFinite, roundOdd, scale } from "./interval.js";

export type Omega = (args: Exact[], precision: number) => Exact;

/** Largest working precision a refinement may reach before it is reported as an internal failure. */
export const MAX_WORKING_BITS = 1 << 16;

/**
 * The round-to-odd value with p bits of a real that is neither 0 nor a p-bit dyadic number, from an enclosure
 * function evaluated at growing working precision. Throws (never loops forever, never guesses) at the limit.
 */
export function refine(p: number, enclose: (w: number) => Interval): Finite {
  for (let w = p + 24; w <= MAX_WORKING_BITS; w *= 2) {
    const r = roundOdd(enclose(w), p);
    if (r !== undefined) return r;
  }
  throw new TranscendentalPrecisionError(`no decision within ${MAX_WORKING_BITS} bits at precision ${p}`);
}

/** The normalised finite argument (odd significand) — callers have already handled NaN and ±∞. */
export function fin(x: Exact): Finite {
  return normalize(x) as Finite;
}

/** Compares |x| with 2^k (x ≠ 0, normalised): −1, 0, 1. */
export function compareAbsPow2(x: Finite, k: number): number {
  const L = floorLog2(x);
  if (L !== k) return L < k ? -1 : 1;
  return x.significand === 1n ? 0 : 1;
}

/** Compares |x| with a positive integer n (x normalised, nonzero). */
export function compareAbsInt(x: Finite, n: number): number {
  const L = floorLog2(x);
  if (L < 0) return -1;
  if (L > 60) return 1;
  // |x| = m·2^e with e ≥ −bitLength: compare m with n·2^−e exactly.
  const m = x.significand;
  if (x.exponent >= 0) {
    const v = m << BigInt(x.exponent);
    const N = BigInt(n);
    return v === N ? 0 : v < N ? -1 : 1;
  }
  const N = BigInt(n) << BigInt(-x.exponent);
  return m === N ? 0 : m < N ? -1 : 1;
}

export function isOne(x: Finite): boolean {
  return x.sign === 1 && x.significand === 1n && x.exponent === 0;
}

export function isMinusOne(x: Finite): boolean {
  return x.sign === -1 && x.significand === 1n && x.exponent === 0;
}

/** An integer-valued dyadic (normalised x). */
export function isInteger(x: Finite): boolean {
  return x.significand === 0n || x.exponent >= 0;
}

export const ONE_EXACT: Finite = finite(1, 1n, 0);
export const MINUS_ONE_EXACT: Finite = finite(-1, 1n, 0);
export const HALF: Finite = finite(1, 1n, -1);
export const QUARTER: Finite = finite(1, 1n, -2);

/** π·2^k (k = −1: π/2) as a round-to-odd value. */
export function piTimesPow2(sign: 1 | -1, k: number, p: number): Finite {
  const r = refine(p, (w) => scale(piInterval(w), k));
  return sign === 1 ? r : finite(-1, r.significand, r.exponent);
}

/** x / π for an enclosure function of x (results of the π-scaled inverse functions). */
export function overPi(f: (w: number) => Interval): (w: number) => Interval {
  return (w) => div(f(w + 4), piInterval(w + 8), w + 4);
}

export const iv = fromFinite;

/**
 * Tiny-argument shortcut for f(X) = X + c where 0 < |c| < X² and the sign of c is known: `up` when |f(X)| > |X|.
 * For |X| < 2^−(B+10) (B = max(p, bits of X)) the enclosure [|X|, |X| + 2^(2L+2)] (or [|X| − 2^(2L+2), |X|]),
 * L = ⌊log2|X|⌋, lies below the next p-bit grid point and below X's own last bit, so it decides the result
 * without evaluating anything (an interval evaluation would need about 2|L| bits to separate f(X) from X).
 * Undefined when X is not that small.
 */
export function tinyOdd(x: Finite, up: boolean, p: number): Finite | undefined {
  const L = floorLog2(x);
  const B = Math.max(p, bitLength(x.significand));
  if (L > -(B + 10)) return undefined;
  const t = 2 * L + 2;
  const m = x.significand << BigInt(x.exponent - t);
  const lo = up ? m : m - 1n;
  const hi = up ? m + 1n : m;
  return roundOdd(x.sign > 0 ? { lo, hi, e: t } : { lo: -hi, hi: -lo, e: t }, p);
}

/** As tinyOdd for f(X) = 1 + c with 0 < c < X² (Cosh): undefined unless |X| is that small. */
export function tinyAboveOne(x: Finite, p: number): Finite | undefined {
  const L = floorLog2(x);
  if (L > -(p + 10)) return undefined;
  const t = 2 * L + 2;
  return roundOdd({ lo: 1n << BigInt(-t), hi: (1n << BigInt(-t)) + 1n, e: t }, p);
}
