// Interval kernels of the elementary functions: each takes an enclosure of the argument and a working precision
// w and returns an enclosure of the function value (relative width about 2^−w for a narrow argument).
// Series are summed term by term in interval arithmetic (see `series`): once the next term t is below the
// target, the tail is enclosed by [0, t] for alternating series with decreasing terms (the partial sums bracket
// the limit) and by [0, 2t] for same-sign series whose term ratios are ≤ ½. Keeping the tail one-sided keeps
// results such as cos(2^−30000) = 1 − tiny decidable.
import { ln2Interval, piInterval } from "./constants.js";
import {
  type Interval,
  ONE,
  TranscendentalPrecisionError,
  add,
  approx,
  bits,
  div,
  fromInt,
  mul,
  neg,
  scale,
  sqr,
  sqrt,
  sub,
  symmetric,
  top,
} from "./interval.js";

const MAX_TERMS = 100000;

/** How the signs of consecutive terms relate: alternating, the same, or unknown (argument straddles 0). */
type Signs = "alternating" | "same" | "unknown";

/** [min(t, 0), max(t, 0)]. */
function withZero(t: Interval): Interval {
  return { lo: t.lo < 0n ? t.lo : 0n, hi: t.hi > 0n ? t.hi : 0n, e: t.e };
}

/**
 * Σ_{n≥0} t_n with t_0 = first and t_{n+1} = next(t_n, n+1), until a term falls below 2^target.
 * Requirements (checked by the callers' ranges): |t_{n+1}/t_n| ≤ ½ from the first term on.
 */
function series(first: Interval, next: (t: Interval, n: number) => Interval, target: number, signs: Signs, g: number): Interval {
  let sum = first;
  let term = first;
  for (let n = 1; n <= MAX_TERMS; n++) {
    term = next(term, n);
    if (top(term) < target) {
      if (signs === "alternating") return add(sum, withZero(term), g);
      const twice = scale(term, 1);
      return add(sum, signs === "same" ? withZero(twice) : symmetric(twice), g);
    }
    sum = add(sum, term, g);
  }
  throw new TranscendentalPrecisionError("series did not converge");
}

const signsOf = (x: Interval, ifPositive: Signs, ifNegative: Signs): Signs => (x.lo >= 0n ? ifPositive : x.hi <= 0n ? ifNegative : "unknown");

// ---------------------------------------------------------------------------------------------- exp family

/** e^x for |x| < 2^17 (the callers saturate beyond). */
export function expI(x: Interval, w: number): Interval {
  const g = w + 12;
  const xa = approx(x);
  if (!(Math.abs(xa) < 2 ** 17)) throw new TranscendentalPrecisionError("exp argument outside the kernel's range");
  const k = Math.round(xa / Math.LN2);
  let r = x;
  if (k !== 0) {
    const kb = BigInt(k);
    r = sub(x, mul(fromInt(kb), ln2Interval(g + bits(kb) + 4), g + bits(kb) + 4), g);
  }
  // Halve r until |r| ≤ 2^−8; squaring s times afterwards costs s bits, paid for by the guard bits.
  const s = Math.max(0, top(r) + 8);
  const gs = g + s;
  r = scale(r, -s);
  // Σ r^n/n!: ratios r/n with |r| ≤ 2^−8.
  let sum = series(ONE, (t, n) => div(mul(t, r, gs), fromInt(n), gs), -(gs + 8), signsOf(r, "same", "alternating"), gs);
  for (let i = 0; i < s; i++) sum = sqr(sum, gs);
  return scale(sum, k);
}

/** e^x − 1 with relative accuracy near 0 (|x| < 2^17). */
export function expm1I(x: Interval, w: number): Interval {
  if (top(x) > -1) return sub(expI(x, w + 4), ONE, w + 4);
  // |x| < ½: x + x²/2! + …; every ratio |x|/(n+1) ≤ ¼.
  const g = w + 12;
  return series(x, (t, n) => div(mul(t, x, g), fromInt(n + 1), g), top(x) - g - 8, signsOf(x, "same", "alternating"), g);
}

// ---------------------------------------------------------------------------------------------- log family

/** 2·artanh(z) for |z| ≤ ⅓ (z² ≤ ⅑, so the tail after a term is bounded by that term). */
function atanh2(z: Interval, w: number): Interval {
  const g = w + 10;
  const tz = top(z);
  if (tz === -Infinity) return z;
  const z2 = sqr(z, g);
  // Terms z^(2k+1)/(2k+1), computed as t·z²·(2k−1)/(2k+1): same signs, ratios ≤ z² ≤ ⅑.
  const next = (t: Interval, k: number): Interval => div(mul(mul(t, z2, g), fromInt(2 * k - 1), g), fromInt(2 * k + 1), g);
  return scale(series(z, next, tz - g - 8, "same", g), 1);
}

/** ln x for an interval x > 0. */
export function logI(x: Interval, w: number): Interval {
  if (x.lo <= 0n) throw new TranscendentalPrecisionError("log of an interval not > 0");
  const g = w + 10;
  // x = 2^k·y with y ∈ [0.7, 1.4).
  let k = x.e + bits(x.lo) - 1;
  let y = scale(x, -k);
  if (approx(y) > 1.4) {
    k += 1;
    y = scale(y, -1);
  }
  const z = div(sub(y, ONE, g + 4), add(y, ONE, g + 4), g + 4);
  const ly = atanh2(z, g);
  if (k === 0) return ly;
  const kb = BigInt(k);
  return add(mul(fromInt(kb), ln2Interval(g + bits(kb) + 4), g + 4), ly, g);
}

/** ln(1 + x) for an interval x > −1, accurate near 0. */
export function log1pI(x: Interval, w: number): Interval {
  const xa = approx(x);
  if (xa > -0.3 && xa < 0.4) {
    const g = w + 10;
    return atanh2(div(x, add(fromInt(2), x, g + 4), g + 4), g);
  }
  return logI(add(ONE, x, w + 10), w);
}

// ---------------------------------------------------------------------------------------------- trigonometry

/** arctan x for any interval x. */
export function atanI(x: Interval, w: number): Interval {
  const g = w + 12;
  const xa = approx(x);
  if (Math.abs(xa) > 1) {
    // ±π/2 − arctan(1/x) (x does not contain 0 here).
    const halfPi = scale(piInterval(g), -1);
    const r = atanI(div(ONE, x, g), g);
    return xa > 0 ? sub(halfPi, r, g) : sub(neg(halfPi), r, g);
  }
  // arctan x = 2·arctan(x / (1 + √(1 + x²))) until |x| ≤ ⅛.
  let y = x;
  let doublings = 0;
  while (top(y) > -3 && doublings < 4) {
    y = div(y, add(ONE, sqrt(add(ONE, sqr(y, g), g), g), g), g);
    doublings++;
  }
  const ty = top(y);
  if (ty === -Infinity) return y;
  const y2 = sqr(y, g);
  // Terms (−1)^k y^(2k+1)/(2k+1): alternating, decreasing (|y| ≤ ⅛).
  const next = (t: Interval, k: number): Interval => neg(div(mul(mul(t, y2, g), fromInt(2 * k - 1), g), fromInt(2 * k + 1), g));
  return scale(series(y, next, ty - g - 8, "alternating", g), doublings);
}

/** sin r and cos r for |r| ≤ 1 (every ratio r²/((2k)(2k+1)) ≤ ½). */
export function sinI(r: Interval, w: number): Interval {
  const g = w + 10;
  const tr = top(r);
  if (tr === -Infinity) return r;
  const r2 = sqr(r, g);
  // Terms (−1)^k r^(2k+1)/(2k+1)!: alternating, decreasing for |r| ≤ 2.
  return series(r, (t, k) => neg(div(mul(t, r2, g), fromInt(2 * k * (2 * k + 1)), g)), tr - g - 8, "alternating", g);
}

export function cosI(r: Interval, w: number): Interval {
  const g = w + 10;
  if (top(r) === -Infinity) return ONE;
  const r2 = sqr(r, g);
  // Terms (−1)^k r^(2k)/(2k)!: alternating, decreasing for |r| ≤ 2.
  return series(ONE, (t, k) => neg(div(mul(t, r2, g), fromInt((2 * k - 1) * (2 * k)), g)), -g - 8, "alternating", g);
}

/**
 * Reduction of a finite dyadic x modulo π/2: x = q·π/2 + r with |r| ≲ π/4 and q mod 4. π is taken with as
 * many bits as x has integer bits plus w, so r keeps about w significant bits of absolute accuracy below 1.
 */
export function reduceHalfPi(x: Interval, w: number): { q: number; r: Interval } {
  if (top(x) <= -1) return { q: 0, r: x };
  const extra = Math.max(0, top(x)) + 8;
  const pp = w + extra + 8;
  const halfPi = scale(piInterval(pp), -1);
  const quotient = div(x, halfPi, pp);
  // k = round(quotient midpoint); any integer k keeps the reduction exact, a near one keeps |r| small.
  const mid = (quotient.lo + quotient.hi) >> 1n;
  const k = quotient.e >= 0 ? mid << BigInt(quotient.e) : (mid + (1n << BigInt(-quotient.e - 1))) >> BigInt(-quotient.e);
  const r = sub(x, mul(fromInt(k), halfPi, pp), w + 8);
  const q = Number(((k % 4n) + 4n) % 4n);
  return { q, r };
}
