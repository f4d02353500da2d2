// ω-operations of the exponential and logarithm family (P3109 §4.10). Special-case rules are
// numbered in the report's order; the first match wins. Every inexact result is a round-to-odd value with
// `precision` bits (see ../sticky.ts); exact results are returned exactly.
import { type Exact, type Finite, NAN, NEG_INF, POS_INF, ZERO, finite, floorLog2 } from "../../exact/value.js";
import { type Omega, ONE_EXACT, MINUS_ONE_EXACT, compareAbsPow2, fin, isInteger, isOne, isMinusOne, iv, refine, tinyOdd } from "./common.js";
import { ln2Interval } from "./constants.js";
import { type Interval, add, div, farOutside, fromFinite, mul, neg, roundOdd } from "./interval.js";
import { expI, expm1I, log1pI, logI } from "./kernels.js";

/** |X| ≥ 2^15: e^X is beyond every format (e^(2^15) > 2^47000; formats reach about 2^±32768). */
const EXP_LIMIT = 15;

export const Exp: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!.sign > 0 ? POS_INF : ZERO; // 2. +∞ → +∞; 3. −∞ → 0
  const x = fin(a!);
  if (x.significand === 0n) return ONE_EXACT; // 4. e^0 = 1 (exact)
  if (floorLog2(x) >= EXP_LIMIT) return farOutside(1, x.sign > 0, p); // 5. beyond every format
  return refine(p, (w) => expI(iv(x), w)); // 6. e^X (irrational for X ≠ 0)
};

export const Exp2: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!.sign > 0 ? POS_INF : ZERO; // 2. +∞ → +∞; 3. −∞ → 0
  const x = fin(a!);
  if (x.significand === 0n) return ONE_EXACT; // 4. 2^0 = 1
  if (floorLog2(x) >= EXP_LIMIT + 1) return farOutside(1, x.sign > 0, p); // 5. beyond every format
  if (isInteger(x)) return finite(1, 1n, x.sign * Number(x.significand << BigInt(x.exponent))); // 6. 2^k exact
  // 7. 2^X = e^(X·ln 2), irrational for non-integer rational X (Gelfond–Schneider).
  return refine(p, (w) => expI(mul(iv(x), ln2Interval(w + 40), w + 30), w));
};

export const ExpMinusOne: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!.sign > 0 ? POS_INF : MINUS_ONE_EXACT; // 2. +∞ → +∞; 3. −∞ → −1
  const x = fin(a!);
  if (x.significand === 0n) return ZERO; // 4. e^0 − 1 = 0
  if (floorLog2(x) >= EXP_LIMIT) {
    if (x.sign > 0) return farOutside(1, true, p); // 5. beyond every format
    // 6. −1 < e^X − 1 < −1 + 2^−47000: decided by the enclosure (−1, −1 + 2^−(p+10)).
    const k = BigInt(p + 10);
    return roundOdd({ lo: -(1n << k), hi: -(1n << k) + 1n, e: -(p + 10) }, p)!;
  }
  // 7. e^X − 1 (X + X²/2 + …: above |X| for X > 0, below for X < 0 when X is tiny).
  return tinyOdd(x, x.sign > 0, p) ?? refine(p, (w) => expm1I(iv(x), w));
};

/** Steps 1–5 of Log and Log2 (NaN, ±∞, X < 0, 0); `positive` computes finite X > 0 (steps 6–7). */
const logarithm =
  (positive: (x: Finite, p: number) => Exact): Omega =>
  ([a], p) => {
    if (a!.kind === "nan") return NAN; // 1. NaN → NaN
    if (a!.kind === "infinity") return a!.sign < 0 ? NAN : POS_INF; // 2. −∞ → NaN; 3. +∞ → +∞
    const x = fin(a!);
    if (x.significand !== 0n && x.sign < 0) return NAN; // 4. X < 0 → NaN
    if (x.significand === 0n) return NEG_INF; // 5. 0 → −∞
    return positive(x, p);
  };

export const Log: Omega = logarithm((x, p) => {
  if (isOne(x)) return ZERO; // 6. ln 1 = 0
  return refine(p, (w) => logI(iv(x), w)); // 7. ln X
});

export const Log2: Omega = logarithm((x, p) => {
  if (x.significand === 1n) return x.exponent === 0 ? ZERO : finite(x.exponent < 0 ? -1 : 1, BigInt(Math.abs(x.exponent)), 0); // 6. log2 2^k = k
  return refine(p, (w) => div(logI(iv(x), w + 8), ln2Interval(w + 8), w + 4)); // 7. log2 X (irrational)
});

export const LogOnePlus: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!.sign < 0 ? NAN : POS_INF; // 2. −∞ → NaN; 3. +∞ → +∞
  const x = fin(a!);
  if (isMinusOne(x)) return NEG_INF; // 4. X = −1 → −∞
  if (x.sign < 0 && compareAbsPow2(x, 0) > 0) return NAN; // 5. X < −1 → NaN
  if (x.significand === 0n) return ZERO; // 6. ln 1 = 0
  // 7. ln(1 + X) (X − X²/2 + …: below |X| for X > 0, above for X < 0 when X is tiny).
  return tinyOdd(x, x.sign < 0, p) ?? refine(p, (w) => log1pI(iv(x), w));
};

export const Softplus: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!.sign > 0 ? POS_INF : ZERO; // 2. +∞ → +∞; 3. −∞ → 0
  const x = fin(a!);
  // 4. ln(1 + e^X), never exact (X = 0 gives ln 2).
  if (x.significand !== 0n && floorLog2(x) >= EXP_LIMIT) {
    // X < ln(1 + e^X) < X + e^−X with e^−X < 2^−47000, or 0 < ln(1 + e^X) < e^X < 2^−47000.
    if (x.sign < 0) return farOutside(1, false, p);
    // The widening stays below X's last bit, so it cannot reach the next p-bit grid point.
    return roundOdd(widenUp(fromFinite(x), Math.min(floorLog2(x) - p - 10, x.exponent - 2)), p)!;
  }
  const X = iv(x);
  if (x.sign > 0) return refine(p, (w) => add(X, log1pI(expI(neg(X), w + 4), w + 4), w));
  return refine(p, (w) => log1pI(expI(X, w + 4), w));
};

/** [x, x + 2^t] for a point x. */
function widenUp(x: Interval, t: number): Interval {
  const e = Math.min(x.e, t);
  const lo = x.lo << BigInt(x.e - e);
  return { lo, hi: lo + (1n << BigInt(t - e)), e };
}
