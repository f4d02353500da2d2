// ω-operations SinPi, CosPi, TanPi, ArcSinPi, ArcCosPi, ArcTanPi and ArcTan2Pi (P3109 §4.10).
// Dyadic arguments are reduced exactly (X mod 2 is a dyadic number), so integers and half-integers give their
// exact results, and the remaining argument t ∈ (0, ½) is multiplied by an enclosure of π only at the end.
// Exact points: SinPi/CosPi ∈ {0, ±1} at multiples of ½, TanPi ∈ {0, ±1} at multiples of ¼ (NaN at the poles,
// report v4.0); ArcSinPi(±1) = ±½, ArcCosPi(0) = ½, ArcCosPi(−1) = 1, ArcTanPi(±1) = ±¼, ArcTan2Pi(±a, ±a) ∈
// {±¼, ±¾}. Elsewhere the results are irrational or non-dyadic rationals (ArcSinPi(½) = ⅙), never on a grid.
import { type Finite, NAN, ZERO, compareMagnitude, finite } from "../../exact/value.js";
import { type Omega, HALF, MINUS_ONE_EXACT, ONE_EXACT, QUARTER, compareAbsPow2, fin, isMinusOne, isOne, iv, overPi, refine } from "./common.js";
import { piInterval } from "./constants.js";
import { type Interval, ONE, add, div, mul, neg, point, sub } from "./interval.js";
import { cosI, sinI, atanI } from "./kernels.js";
import { acosI, asinI, atan2Case, divOrUndecided } from "./trig.js";

/** sin(π·n/2^k) for 0 < n/2^k ≤ ¼, as an enclosure. */
function sinPiSmall(n: bigint, k: number, w: number): Interval {
  return sinI(mul(piInterval(w + 8), point(n, -k), w + 8), w);
}

function cosPiSmall(n: bigint, k: number, w: number): Interval {
  return cosI(mul(piInterval(w + 8), point(n, -k), w + 8), w);
}

type Signed = { sign: 1 | -1; exact?: Finite; n: bigint; k: number };

/**
 * sin(π·t) for t = n/2^k ∈ [0, 2) (k ≥ 1): an exact value, or a sign and an argument n/2^k ∈ (0, ½) whose
 * sine (if ≤ ¼) or cosine of (½ − t) (if > ¼) is wanted.
 */
function sinPiReduce(n: bigint, k: number): Signed {
  const D = 1n << BigInt(k);
  let sign: 1 | -1 = 1;
  if (n >= D) {
    sign = -1; // sin(π(t − 1 + 1)) = −sin(π(t − 1))
    n -= D;
  }
  if (2n * n > D) n = D - n; // sin(π(1 − t)) = sin(πt)
  if (n === 0n) return { sign: 1, exact: ZERO, n, k };
  if (2n * n === D) return { sign, exact: sign > 0 ? ONE_EXACT : MINUS_ONE_EXACT, n, k };
  return { sign, n, k };
}

function sinPiValue(r: Signed, p: number): Finite {
  if (r.exact) return r.exact;
  const D = 1n << BigInt(r.k);
  const f = 4n * r.n <= D ? (w: number) => sinPiSmall(r.n, r.k, w) : (w: number) => cosPiSmall(D / 2n - r.n, r.k, w);
  return refine(p, (w) => (r.sign > 0 ? f(w) : neg(f(w))));
}

/** X mod 2 as n/2^k (k ≥ 1) for a normalised non-integer X = m·2^e (e < 0). */
function mod2(x: Finite): { n: bigint; k: number } {
  const k = -x.exponent;
  const M = 1n << BigInt(k + 1);
  const m = x.sign < 0 ? -x.significand : x.significand;
  return { n: ((m % M) + M) % M, k };
}

export const SinPi: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand === 0n || x.exponent >= 0) return ZERO; // 3. sin(πn) = 0 for integers n (exact)
  const { n, k } = mod2(x);
  return sinPiValue(sinPiReduce(n, k), p); // 4. sin(πX): ±1 at half-integers, irrational elsewhere
};

export const CosPi: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand === 0n) return ONE_EXACT; // 3. cos 0 = 1
  if (x.exponent >= 0) return x.exponent === 0 ? MINUS_ONE_EXACT : ONE_EXACT; // 4. cos(πn) = (−1)^n
  // 5. cos(πX) = sin(π(X + ½)): 0 at half-integers, irrational elsewhere.
  const { n, k } = mod2(x);
  const M = 1n << BigInt(k + 1);
  return sinPiValue(sinPiReduce((n + (1n << BigInt(k - 1))) % M, k), p);
};

export const TanPi: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand === 0n || x.exponent >= 0) return ZERO; // 3. tan(πn) = 0
  const k = -x.exponent;
  const D = 1n << BigInt(k);
  const m = x.sign < 0 ? -x.significand : x.significand;
  let n = ((m % D) + D) % D; // X mod 1 (tan has period 1)
  if (2n * n === D) return NAN; // 4. cos(πX) = 0 → NaN (report v4.0)
  let sign: 1 | -1 = 1;
  if (2n * n > D) {
    sign = -1; // tan(π(1 − t)) = −tan(πt)
    n = D - n;
  }
  if (4n * n === D) return sign > 0 ? ONE_EXACT : MINUS_ONE_EXACT; // 5. tan(±π/4) = ±1
  // 6. tan(πX), irrational: sin/cos for t < ¼, cos/sin of (½ − t) for t > ¼.
  const small = 4n * n < D;
  const u = small ? n : D / 2n - n;
  return refine(p, (w) => {
    const s = sinPiSmall(u, k, w + 4);
    const c = cosPiSmall(u, k, w + 4);
    const r = small ? divOrUndecided(s, c, w) : divOrUndecided(c, s, w);
    return sign > 0 ? r : neg(r);
  });
};

export const ArcSinPi: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand !== 0n && compareAbsPow2(x, 0) > 0) return NAN; // 3. |X| > 1 → NaN
  if (x.significand === 0n) return ZERO; // 4. arcsin(0)/π = 0
  if (isOne(x) || isMinusOne(x)) return finite(x.sign, 1n, -1); // 5. arcsin(±1)/π = ±½
  // 6. arcsin(X)/π (±⅙ at ±½: rational, not dyadic). Near ±1 it is ±(½ − arccos|X|/π): the small part is
  //    computed with relative accuracy and subtracted from the exact ½, so results next to ½ stay decidable.
  if (compareAbsPow2(x, -1) <= 0)
    return refine(
      p,
      overPi((w) => asinI(x, w)),
    );
  const ax = absF(x);
  return refine(p, (w) => signed(x.sign, sub(point(1n, -1), overPi((v) => acosI(ax, v))(w + 4), w)));
};

export const ArcCosPi: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand !== 0n && compareAbsPow2(x, 0) > 0) return NAN; // 3. |X| > 1 → NaN
  if (isOne(x)) return ZERO; // 4. arccos(1)/π = 0
  if (isMinusOne(x)) return ONE_EXACT; // 5. arccos(−1)/π = 1
  if (x.significand === 0n) return HALF; // 6. arccos(0)/π = ½
  // 7. arccos(X)/π (⅓, ⅔ at ±½: not dyadic): ½ − arcsin(X)/π for |X| ≤ ½, arccos(X)/π for X > ½ and
  //    1 − arccos|X|/π for X < −½ — exact constants minus parts computed with relative accuracy.
  if (compareAbsPow2(x, -1) <= 0) return refine(p, (w) => sub(point(1n, -1), overPi((v) => asinI(x, v))(w + 4), w));
  if (x.sign > 0)
    return refine(
      p,
      overPi((w) => acosI(x, w)),
    );
  const ax = absF(x);
  return refine(p, (w) => sub(point(1n, 0), overPi((v) => acosI(ax, v))(w + 4), w));
};

export const ArcTanPi: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return finite(a!.sign, 1n, -1); // 2. +∞ → ½; 3. −∞ → −½
  const x = fin(a!);
  if (x.significand === 0n) return ZERO; // 4. 0 → 0
  if (isOne(x) || isMinusOne(x)) return finite(x.sign, 1n, -2); // 5. arctan(±1)/π = ±¼
  // 6. arctan(X)/π; for |X| > 1 as sign(X)·(½ − arctan(1/|X|)/π), so results next to ±½ stay decidable.
  const ax = absF(x);
  if (compareAbsPow2(x, 0) < 0) return refine(p, (w) => signed(x.sign, overPi((v) => atanI(iv(ax), v))(w)));
  return refine(p, (w) => signed(x.sign, sub(point(1n, -1), overPi((v) => atanI(div(ONE, iv(ax), v + 8), v))(w + 4), w)));
};

export const ArcTan2Pi: Omega = ([ya, xa], p) => {
  const c = atan2Case(ya!, xa!);
  if (c.kind === "nan") return NAN; // rules 1–3
  if (c.kind === "piMultiple") return c.k === 0 ? ZERO : c.k === 1 ? ONE_EXACT : finite(c.k > 0 ? 1 : -1, 1n, -1); // rules 4–11
  // 12. |Y| = |X|: ±¼ (X > 0) or ±¾ (X < 0) exactly; otherwise (arctan(Y/X) [±π])/π, irrational.
  const { y, x } = c;
  if (y.significand === x.significand && y.exponent === x.exponent) {
    const q = x.sign > 0 ? QUARTER : finite(1, 3n, -2);
    return y.sign > 0 ? q : finite(-1, q.significand, q.exponent);
  }
  // With a = arctan(min/max of |Y|, |X|)/π ∈ (0, ¼): |Y| < |X| gives sign(Y)·a (X > 0) or sign(Y)·(1 − a)
  // (X < 0); |Y| > |X| gives sign(Y)·(½ − a) (X > 0) or sign(Y)·(½ + a) (X < 0).
  const ay = iv(absF(y));
  const ax = iv(absF(x));
  const steep = compareMagnitude(y, x) > 0;
  return refine(p, (w) => {
    const a = overPi((v) => atanI(steep ? div(ax, ay, v + 8) : div(ay, ax, v + 8), v))(w + 4);
    if (!steep) return signed(y.sign, x.sign > 0 ? a : sub(point(1n, 0), a, w));
    return signed(y.sign, x.sign > 0 ? sub(point(1n, -1), a, w) : add(point(1n, -1), a, w));
  });
};

const absF = (x: Finite): Finite => (x.sign < 0 ? finite(1, x.significand, x.exponent) : x);
const signed = (sign: 1 | -1, v: Interval): Interval => (sign < 0 ? neg(v) : v);
