// ω-operations Sinh, Cosh, Tanh, ArcSinh, ArcCosh, ArcTanh (P3109 §4.10), rules in order.
// Formulas are chosen without cancellation so that exact dyadic arguments give enclosures of small relative
// width: sinh via expm1, tanh via expm1(2X), arsinh/arcosh/artanh via log1p.
import { type Finite, NAN, NEG_INF, POS_INF, ZERO, floorLog2 } from "../../exact/value.js";
import { type Omega, ONE_EXACT, compareAbsInt, compareAbsPow2, fin, isMinusOne, isOne, iv, refine, tinyAboveOne, tinyOdd } from "./common.js";
import { type Interval, ONE, add, div, farOutside, fromInt, mul, neg, roundOdd, scale, sqr, sqrt, sub } from "./interval.js";
import { expI, expm1I, log1pI } from "./kernels.js";

/** |X| ≥ 2^15: sinh and cosh are beyond every format. */
const HYP_LIMIT = 15;

export const Sinh: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!; // 2. ±∞ → ±∞
  const x = fin(a!);
  if (x.significand === 0n) return ZERO; // 3. sinh 0 = 0
  if (floorLog2(x) >= HYP_LIMIT) return farOutside(x.sign, true, p); // 4. beyond every format
  // 5. sinh X = (E + E/(E + 1))/2 with E = e^X − 1 for |X| < 1 (both terms have the sign of X), else
  //    sign(X)·(e^|X| − e^−|X|)/2 (no cancellation: e^−|X| < e^|X|/7).
  const tiny = tinyOdd(x, true, p); // X + X³/6 + … for tiny X
  if (tiny) return tiny;
  const small = compareAbsPow2(x, 0) < 0;
  const ax = iv(x.sign < 0 ? { ...x, sign: 1 } : x);
  return refine(p, (w) => {
    const g = w + 6;
    if (small) {
      const E = expm1I(iv(x), g);
      return scale(add(E, div(E, add(E, ONE, g), g), g), -1);
    }
    const E = expI(ax, g);
    const r = scale(sub(E, div(ONE, E, g), g), -1);
    return x.sign < 0 ? neg(r) : r;
  });
};

export const Cosh: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return POS_INF; // 2. ±∞ → +∞
  const x = fin(a!);
  if (x.significand === 0n) return ONE_EXACT; // 3. cosh 0 = 1
  if (floorLog2(x) >= HYP_LIMIT) return farOutside(1, true, p); // 4. beyond every format
  // 5. cosh X = 1 + E²/(2(E + 1)) with E = e^|X| − 1 for |X| < 1 (1 < cosh X < 1 + X² for tiny X), else
  //    (F + 1/F)/2 with F = e^|X|.
  const tiny = tinyAboveOne(x, p);
  if (tiny) return tiny;
  const ax = iv(x.sign < 0 ? { ...x, sign: 1 } : x);
  const small = compareAbsPow2(x, 0) < 0;
  return refine(p, (w) => {
    const g = w + 6;
    if (small) {
      const E = expm1I(ax, g);
      return add(ONE, div(sqr(E, g), scale(add(E, ONE, g), 1), g), w);
    }
    const E = expI(ax, g);
    return scale(add(E, div(ONE, E, g), g), -1);
  });
};

export const Tanh: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!.sign > 0 ? ONE_EXACT : { kind: "finite", sign: -1, significand: 1n, exponent: 0 }; // 2. ±∞ → ±1
  const x = fin(a!);
  if (x.significand === 0n) return ZERO; // 3. tanh 0 = 0
  if (compareAbsInt(x, p + 10) >= 0) {
    // 4. |X| ≥ p + 10: 0 < 1 − |tanh X| < 2e^(−2|X|) < 2^−(p+10), decided without evaluating.
    const k = BigInt(p + 10);
    const lo = (1n << k) - 1n;
    const hi = 1n << k;
    return roundOdd(x.sign > 0 ? { lo, hi, e: -(p + 10) } : { lo: -hi, hi: -lo, e: -(p + 10) }, p)!;
  }
  const tiny = tinyOdd(x, false, p); // X − X³/3 + … for tiny X
  if (tiny) return tiny;
  // 5. tanh X = E/(E + 2) with E = e^(2X) − 1.
  return refine(p, (w) => {
    const g = w + 6;
    const E = expm1I(scale(iv(x), 1), g);
    return div(E, add(E, fromInt(2), g), w);
  });
};

export const ArcSinh: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!; // 2. ±∞ → ±∞
  const x = fin(a!);
  if (x.significand === 0n) return ZERO; // 3. arsinh 0 = 0
  // 4. arsinh X = sign(X)·log1p(|X| + X²/(1 + √(1 + X²))); X − X³/6 + … for tiny X.
  return oddFromAbs(x, false, p, (ax, w) => {
    const g = w + 8;
    const x2 = sqr(ax, g);
    return log1pI(add(ax, div(x2, add(ONE, sqrt(add(ONE, x2, g), g), g), g), g), w + 4);
  });
};

export const ArcCosh: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return a!.sign > 0 ? POS_INF : NAN; // 2. +∞ → +∞; 3. −∞ → NaN
  const x = fin(a!);
  if (x.significand === 0n || x.sign < 0 || compareAbsPow2(x, 0) < 0) return NAN; // 4. X < 1 → NaN
  if (isOne(x)) return ZERO; // 5. arcosh 1 = 0
  // 6. arcosh X = log1p(t + √(t(t + 2))) with t = X − 1 (exact before trimming).
  return refine(p, (w) => {
    const g = w + 8;
    const t = sub(iv(x), ONE, g);
    return log1pI(add(t, sqrt(mul(t, add(t, fromInt(2), g), g), g), g), w + 4);
  });
};

export const ArcTanh: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return NAN; // 2. ±∞ → NaN
  const x = fin(a!);
  if (isOne(x)) return POS_INF; // 3. 1 → +∞
  if (isMinusOne(x)) return NEG_INF; // 4. −1 → −∞
  if (x.significand !== 0n && compareAbsPow2(x, 0) > 0) return NAN; // 5. |X| > 1 → NaN
  if (x.significand === 0n) return ZERO; // 6. artanh 0 = 0
  // 7. artanh X = sign(X)·½·log1p(2|X|/(1 − |X|)); X + X³/3 + … for tiny X.
  return oddFromAbs(x, true, p, (ax, w) => scale(log1pI(div(scale(ax, 1), sub(ONE, ax, w + 8), w + 8), w + 4), -1));
};

/**
 * An odd function at finite X ≠ 0: its tiny-X series value (|f(X)| above |X| when `up`) if that decides it, else
 * sign(X)·f(|X|) with `f` enclosing the function at |X| to working precision w.
 */
function oddFromAbs(x: Finite, up: boolean, p: number, f: (ax: Interval, w: number) => Interval): Finite {
  const tiny = tinyOdd(x, up, p);
  if (tiny) return tiny;
  const ax = iv(x.sign < 0 ? { ...x, sign: 1 } : x);
  return refine(p, (w) => (x.sign < 0 ? neg(f(ax, w)) : f(ax, w)));
}
