// Error sums of a quantized chunk against its input: the specification (a loop) and the Wasm kernel's dispatch.
// They feed the CLI's error reports (src/cli/stats.ts) on the calling thread and in conversion workers.
import { type ErrorSums, type Threshold, errorSumsWasm } from "../wasm/stats.js";

/** No input overflows: the thresholds of a caller that counts overflows itself (or not at all). */
export const NO_OVERFLOW: readonly [Threshold, Threshold] = [
  { limit: Infinity, inclusive: false },
  { limit: Infinity, inclusive: false },
];

/**
 * The specification of the error sums (assembly/stats.ts computes the same, bit for bit, for float32 x): over the
 * finite x[i] (NaN and ±∞ inputs are not measured), e = |y[i] − x[i]| in float64; Σ e² and Σ x² add element i to
 * lane i mod 4 in index order, and the lanes are added as (s0 + s2) + (s1 + s3); the max is NaN if any e is;
 * flushed counts y = 0 from x ≠ 0; overflowed counts x > positive.limit (or = when inclusive) and
 * −x > negative.limit (or =).
 */
export function errorSumsReference(x: Float32Array | Float64Array, y: Float32Array, positive: Threshold, negative: Threshold): ErrorSums {
  const sse = [0, 0, 0, 0];
  const ssq = [0, 0, 0, 0];
  const { limit: pos, inclusive: posInclusive } = positive;
  const { limit: neg, inclusive: negInclusive } = negative;
  let maxAbsError = 0;
  let measured = 0;
  let flushed = 0;
  let overflowed = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i]!;
    if (xi - xi !== 0) continue;
    const yi = y[i]!;
    const e = Math.abs(yi - xi);
    sse[i & 3] += e * e;
    ssq[i & 3] += xi * xi;
    maxAbsError = Math.max(maxAbsError, e);
    measured++;
    if (yi === 0 && xi !== 0) flushed++;
    if (xi > pos || (posInclusive && xi === pos) || -xi > neg || (negInclusive && -xi === neg)) overflowed++;
  }
  return {
    measured,
    sumSquaredError: sse[0]! + sse[2]! + (sse[1]! + sse[3]!),
    sumSquares: ssq[0]! + ssq[2]! + (ssq[1]! + ssq[3]!),
    maxAbsError,
    flushed,
    overflowed,
  };
}

/** The error sums of one chunk: the Wasm kernel for float32 inputs, else the reference. */
export function errorSums(x: Float32Array | Float64Array, y: Float32Array, positive: Threshold, negative: Threshold): ErrorSums {
  return (x instanceof Float32Array && errorSumsWasm(x, y, positive, negative)) || errorSumsReference(x, y, positive, negative);
}
