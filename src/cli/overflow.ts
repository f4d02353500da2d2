// Which inputs saturate: P3109 judges overflow after rounding (§4.7.5), so an input a little above MaxFinite that
// rounds down to MaxFinite is not saturated. For a deterministic rounding the test is one exact comparison of |x|
// with a threshold scaled by the block's scale (products of few-bit values: exact in float64).
import type { Rounding } from "../exact/projection.js";
import type { Format } from "../format/model.js";
import { decode } from "../api/scalar.js";

export interface OverflowLimit {
  /** |v| beyond this (or equal to it when `inclusive`) rounds past MaxFinite. */
  readonly limit: number;
  readonly inclusive: boolean;
}

/**
 * The overflow threshold of a deterministic rounding for values of one sign (with unbounded exponent, the values
 * around MaxFinite = M·2^q are MaxFinite itself and next = MaxFinite + 2^q; mid is halfway).
 */
export function overflowLimit(f: Format, rounding: Rounding, negative: boolean): OverflowLimit {
  const max = Math.abs(decode(f.maxFiniteCode, f));
  const q = Math.max(Math.floor(Math.log2(max)) - (f.P - 1), f.minQuantumExponent);
  const ulp = 2 ** q;
  // "Even" is the last bit of the code (for P = 1 formats that is the exponent's, not the significand's).
  const odd = f.maxFiniteMagnitude % 2 === 1;
  const above = { limit: max, inclusive: false };
  const next = { limit: max + ulp, inclusive: true };
  switch (rounding) {
    case "NearestTiesToEven":
      return { limit: max + ulp / 2, inclusive: odd };
    case "NearestTiesToAway":
      return { limit: max + ulp / 2, inclusive: true };
    case "TowardZero":
      return next;
    case "TowardPositive":
      return negative ? next : above;
    case "TowardNegative":
      return negative ? above : next;
    case "ToOdd":
      return odd ? next : above;
    default:
      // TowardMaxMagnitude rounds every inexact value up; stochastic roundings may (callers count those exactly).
      return above;
  }
}

/**
 * Counts elements of x whose magnitude over their scale overflows: |x| compared with limit·scale, exact. `scale` is
 * one number for every element, or the scale of element i.
 */
export function countOverflows(x: ArrayLike<number>, positive: OverflowLimit, negative: OverflowLimit, scale: number | ((i: number) => number) = 1): number {
  let n = 0;
  if (typeof scale === "number") {
    // One scale: four numbers hoisted out of a loop that runs at memory speed (v − v is NaN for ±∞ and NaN).
    const [pos, neg] = [positive.limit * scale, negative.limit * scale];
    const [posInclusive, negInclusive] = [positive.inclusive, negative.inclusive];
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!;
      if (v - v === 0 && (v > pos || (posInclusive && v === pos) || -v > neg || (negInclusive && -v === neg))) n++;
    }
    return n;
  }
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (!Number.isFinite(v)) continue;
    const { limit, inclusive } = v < 0 ? negative : positive;
    const t = limit * scale(i);
    const a = Math.abs(v);
    if (a > t || (inclusive && a === t)) n++;
  }
  return n;
}
