// ω-operations Sin, Cos, Tan, ArcSin, ArcCos, ArcTan and ArcTan2 (P3109 §4.10), rules in order.
// Sin/Cos/Tan reduce X modulo π/2 with π taken to as many bits as X has integer bits (Payne–Hanek in effect:
// the bits of π are scaled to the argument's exponent), so arguments up to 2^32765 are reduced exactly enough.
import { type Exact, type Finite, NAN, ZERO } from "../../exact/value.js";
import { type Omega, ONE_EXACT, compareAbsPow2, fin, isMinusOne, isOne, iv, piTimesPow2, refine, tinyOdd } from "./common.js";
import { piInterval } from "./constants.js";
import { type Interval, ONE, add, div, mul, neg, scale, sqrt, sub } from "./interval.js";
import { atanI, cosI, reduceHalfPi, sinI } from "./kernels.js";

/** a / b, or an interval straddling 0 (undecided, refine further) when b contains 0. */
export function divOrUndecided(a: Interval, b: Interval, w: number): Interval {
  if (b.lo <= 0n && b.hi >= 0n) return { lo: -1n, hi: 1n, e: 0 };
  return div(a, b, w);
}

/** sin and cos of a reduced argument, by quadrant. */
function sinCos(x: Finite, w: number, which: "sin" | "cos" | "tan"): Interval {
  const { q, r } = reduceHalfPi(iv(x), w + 8);
  const quadrant = which === "cos" ? (q + 1) % 4 : q;
  if (which === "tan") {
    const s = sinI(r, w + 4);
    const c = cosI(r, w + 4);
    // tan(r + qπ/2) = tan r (q even) or −cot r (q odd).
    return q % 2 === 0 ? divOrUndecided(s, c, w) : neg(divOrUndecided(c, s, w));
  }
  // sin(r + qπ/2) for q = 0..3: sin r, cos r, −sin r, −cos r; cos X = sin(X + π/2).
  switch (quadrant) {
    case 0:
      return sinI(r, w);
    case 1:
      return cosI(r, w);
    case 2:
      return neg(sinI(r, w));
    default:
      return neg(cosI(r, w));
  }
}

export const Sin: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand === 0n) return ZERO; // 3. sin 0 = 0
  // 4. sin X (irrational for X ≠ 0, Lindemann); sin X = X − X³/6 + … just below |X| for tiny X.
  return tinyOdd(x, false, p) ?? refine(p, (w) => sinCos(x, w, "sin"));
};

export const Cos: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand === 0n) return ONE_EXACT; // 3. cos 0 = 1
  return refine(p, (w) => sinCos(x, w, "cos")); // 4. cos X
};

export const Tan: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  // 3. cos X = 0 → NaN: unreachable for a rational X (documentation only).
  const x = fin(a!);
  if (x.significand === 0n) return ZERO; // 4. tan 0 = 0
  return tinyOdd(x, true, p) ?? refine(p, (w) => sinCos(x, w, "tan")); // 5. tan X (X + X³/3 + … for tiny X)
};

/** arcsin X for |X| < 1: arctan(X / √((1 − X)(1 + X))). */
export function asinI(x: Finite, w: number): Interval {
  const g = w + 8;
  const X = iv(x);
  const rad = mul(sub(ONE, X, g), add(ONE, X, g), g);
  return atanI(div(X, sqrt(rad, g), g), w + 4);
}

/** arccos X for −1 < X ≤ 1: 2·arctan(√((1 − X)/(1 + X))). */
export function acosI(x: Finite, w: number): Interval {
  const g = w + 8;
  const X = iv(x);
  return scale(atanI(sqrt(div(sub(ONE, X, g), add(ONE, X, g), g), g), w + 4), 1);
}

export const ArcSin: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand !== 0n && compareAbsPow2(x, 0) > 0) return NAN; // 3. |X| > 1 → NaN
  if (x.significand === 0n) return ZERO; // 4. arcsin 0 = 0
  if (isOne(x) || isMinusOne(x)) return piTimesPow2(x.sign, -1, p); // 5. arcsin ±1 = ±π/2
  return tinyOdd(x, true, p) ?? refine(p, (w) => asinI(x, w)); // 6. arcsin X (X + X³/6 + … for tiny X)
};

export const ArcCos: Omega = ([a], p) => {
  if (a!.kind !== "finite") return NAN; // 1. NaN → NaN; 2. ±∞ → NaN
  const x = fin(a!);
  if (x.significand !== 0n && compareAbsPow2(x, 0) > 0) return NAN; // 3. |X| > 1 → NaN
  if (isOne(x)) return ZERO; // 4. arccos 1 = 0
  if (isMinusOne(x)) return piTimesPow2(1, 0, p); // 5. arccos −1 = π
  return refine(p, (w) => acosI(x, w)); // 6. arccos X (arccos 0 = π/2 included)
};

export const ArcTan: Omega = ([a], p) => {
  if (a!.kind === "nan") return NAN; // 1. NaN → NaN
  if (a!.kind === "infinity") return piTimesPow2(a!.sign, -1, p); // 2. +∞ → π/2; 3. −∞ → −π/2
  const x = fin(a!);
  if (x.significand === 0n) return ZERO; // 4. arctan 0 = 0
  return tinyOdd(x, false, p) ?? refine(p, (w) => atanI(iv(x), w)); // 5. arctan X (X − X³/3 + … for tiny X)
};

/**
 * Classification shared by ArcTan2 and ArcTan2Pi (§4.10 rules, report v4.0 order): NaN, a result that is a
 * multiple of π (0, ±½, 1), or both operands finite and nonzero.
 */
export type Atan2Case = { kind: "nan" } | { kind: "piMultiple"; k: 0 | 0.5 | 1 | -0.5 } | { kind: "finite"; y: Finite; x: Finite };

export function atan2Case(ya: Exact, xa: Exact): Atan2Case {
  if (ya.kind === "nan" || xa.kind === "nan") return { kind: "nan" }; // 1. NaN if any NaN
  const yZero = ya.kind === "finite" && ya.significand === 0n;
  const xZero = xa.kind === "finite" && xa.significand === 0n;
  if (yZero && xZero) return { kind: "nan" }; // 2. (0, 0) → NaN
  if (ya.kind === "infinity" && xa.kind === "infinity") return { kind: "nan" }; // 3. (±∞, ±∞) → NaN
  if (xa.kind === "infinity" && xa.sign > 0) return { kind: "piMultiple", k: 0 }; // 4. (∗, +∞) → 0
  if (yZero && xa.sign > 0) return { kind: "piMultiple", k: 0 }; // 5. (0, X > 0) → 0
  if (ya.kind === "infinity" && ya.sign > 0) return { kind: "piMultiple", k: 0.5 }; // 6. (+∞, ∗) → π/2
  if (xZero && ya.sign > 0) return { kind: "piMultiple", k: 0.5 }; // 7. (Y > 0, 0) → π/2
  if (xa.kind === "infinity") return { kind: "piMultiple", k: 1 }; // 8. (∗, −∞) → π (v4.0: also for Y < 0)
  if (yZero) return { kind: "piMultiple", k: 1 }; // 9. (0, X < 0) → π
  if (ya.kind === "infinity") return { kind: "piMultiple", k: -0.5 }; // 10. (−∞, ∗) → −π/2
  if (xZero) return { kind: "piMultiple", k: -0.5 }; // 11. (Y < 0, 0) → −π/2
  return { kind: "finite", y: fin(ya), x: fin(xa) }; // 12. arctan(Y/X) [+π if X < 0 < Y, −π if X, Y < 0]
}

/** arctan2(Y, X) for finite nonzero Y, X. */
export function atan2I(y: Finite, x: Finite, w: number): Interval {
  const g = w + 6;
  const t = atanI(div(iv(y), iv(x), g), g);
  if (x.sign > 0) return t;
  const pi = piInterval(g);
  return y.sign > 0 ? add(t, pi, w) : sub(t, pi, w);
}

export const ArcTan2: Omega = ([ya, xa], p) => {
  const c = atan2Case(ya!, xa!);
  if (c.kind === "nan") return NAN;
  if (c.kind === "piMultiple") {
    if (c.k === 0) return ZERO;
    return c.k === 1 ? piTimesPow2(1, 0, p) : piTimesPow2(c.k > 0 ? 1 : -1, -1, p);
  }
  return refine(p, (w) => atan2I(c.y, c.x, w));
};
