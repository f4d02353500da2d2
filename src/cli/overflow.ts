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

/** Rows of `rowLength` elements cut into blocks of `blockSize` (the last one of a row may be partial), one scale each. */
export interface BlockScales {
  readonly rowLength: number;
  readonly blockSize: number;
  /** The scale of block b, counted row by row (ceil(rowLength / blockSize) blocks per row). */
  scale(b: number): number;
}

/**
 * Counts elements of x whose magnitude over their scale overflows: |x| compared with limit·scale, exact. `scale` is
 * one number for every element, or per block.
 */
export function countOverflows(x: ArrayLike<number>, positive: OverflowLimit, negative: OverflowLimit, scale: number | BlockScales = 1): number {
  if (typeof scale === "number") return countRange(x, 0, x.length, positive, negative, scale);
  const { rowLength: L, blockSize: B } = scale;
  const perRow = Math.ceil(L / B);
  let n = 0;
  for (let row = 0; row * L < x.length; row++) {
    for (let b = 0; b < perRow; b++) {
      const from = row * L + b * B;
      n += countRange(x, from, Math.min(from + B, (row + 1) * L), positive, negative, scale.scale(row * perRow + b));
    }
  }
  return n;
}

/** countOverflows over x[from, to) with one scale: four numbers hoisted out of the loop (v − v is NaN for ±∞, NaN). */
function countRange(x: ArrayLike<number>, from: number, to: number, positive: OverflowLimit, negative: OverflowLimit, scale: number): number {
  const pos = positive.limit * scale;
  const neg = negative.limit * scale;
  const posInclusive = positive.inclusive;
  const negInclusive = negative.inclusive;
  let n = 0;
  const low = -neg;
  for (let i = from; i < to; i++) {
    const v = x[i]!;
    if (v < pos && v > low) continue; // nearly every element: strictly inside both limits (false for NaN)
    if (v - v === 0 && (v > pos || (posInclusive && v === pos) || -v > neg || (negInclusive && -v === neg))) n++;
  }
  return n;
}
