// Extrema ω-functions (P3109 §4.11): the ten Minimum/Maximum variants and Clamp. Results are datums of the
// operands, projected into the result format by the caller.
import { type Exact, type Finite, NAN, compareFinite, isNaNDatum } from "../exact/value.js";
import type { Omega } from "./arithmetic.js";

/** The ten §4.11 Minimum/Maximum operations (two operands each), by report name. */
export const MIN_MAX_OPS = [
  "Minimum",
  "Maximum",
  "MinimumNumber",
  "MaximumNumber",
  "MinimumMagnitude",
  "MaximumMagnitude",
  "MinimumMagnitudeNumber",
  "MaximumMagnitudeNumber",
  "MinimumFinite",
  "MaximumFinite",
] as const;

/** Order on ℝ ∪ {±∞} (both operands non-NaN): −1, 0, 1. */
export function compareOrdered(a: Exact, b: Exact): number {
  const ra = a.kind === "infinity" ? a.sign * 2 : 0;
  const rb = b.kind === "infinity" ? b.sign * 2 : 0;
  if (ra !== 0 || rb !== 0) return Math.sign(ra - rb);
  return compareFinite(a as Finite, b as Finite);
}

/** Order of magnitudes |a| vs |b| (non-NaN). */
function compareMagnitudeOrdered(a: Exact, b: Exact): number {
  const abs = (x: Exact): Exact => (x.sign < 0 ? (x.kind === "infinity" ? { kind: "infinity", sign: 1 } : { ...x, sign: 1 }) : x);
  return compareOrdered(abs(a), abs(b));
}

const min = (a: Exact, b: Exact): Exact => (compareOrdered(a, b) <= 0 ? a : b);
const max = (a: Exact, b: Exact): Exact => (compareOrdered(a, b) >= 0 ? a : b);

/** §4.11 Minimum. */
export const Minimum: Omega = ([x, y]) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. Minimum(NaN, ∗), Minimum(∗, NaN) → NaN
  return min(x!, y!); // 3. the smaller of X, Y on ℝ ∪ {±∞}
};

/** §4.11 Maximum. */
export const Maximum: Omega = ([x, y]) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. Maximum(NaN, ∗), Maximum(∗, NaN) → NaN
  return max(x!, y!); // 3. the larger of X, Y on ℝ ∪ {±∞}
};

/** §4.11 MinimumNumber: a single NaN is ignored. */
export const MinimumNumber: Omega = ([x, y], p) => {
  if (isNaNDatum(x!) && isNaNDatum(y!)) return NAN; // 1. (NaN, NaN) → NaN
  if (isNaNDatum(x!)) return y!; // 2. (NaN, y) → y
  if (isNaNDatum(y!)) return x!; // 3. (x, NaN) → x
  return Minimum([x!, y!], p); // 4. Minimum(x, y)
};

/** §4.11 MaximumNumber: a single NaN is ignored. */
export const MaximumNumber: Omega = ([x, y], p) => {
  if (isNaNDatum(x!) && isNaNDatum(y!)) return NAN; // 1. (NaN, NaN) → NaN
  if (isNaNDatum(x!)) return y!; // 2. (NaN, y) → y
  if (isNaNDatum(y!)) return x!; // 3. (x, NaN) → x
  return Maximum([x!, y!], p); // 4. Maximum(x, y)
};

/** §4.11 MinimumMagnitude: the smaller |·|; equal magnitudes give the smaller value (MinMag(−2, 2) = −2). */
export const MinimumMagnitude: Omega = ([x, y]) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. any NaN → NaN
  const c = compareMagnitudeOrdered(x!, y!);
  if (c < 0) return x!; // 3. |X| < |Y| → X (a finite operand beats ±∞)
  if (c > 0) return y!; // 4. |X| > |Y| → Y
  return min(x!, y!); // 5. |X| = |Y| → Minimum(X, Y) (MinMag(+∞, −∞) = −∞)
};

/** §4.11 MaximumMagnitude: the larger |·|; equal magnitudes give the larger value (MaxMag(−2, 2) = 2). */
export const MaximumMagnitude: Omega = ([x, y]) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. any NaN → NaN
  const c = compareMagnitudeOrdered(x!, y!);
  if (c > 0) return x!; // 3. |X| > |Y| → X (any +∞ wins, then any −∞)
  if (c < 0) return y!; // 4. |X| < |Y| → Y
  return max(x!, y!); // 5. |X| = |Y| → Maximum(X, Y) (MaxMag(−∞, +∞) = +∞)
};

/** §4.11 MinimumMagnitudeNumber: a single NaN is ignored, else MinimumMagnitude. */
export const MinimumMagnitudeNumber: Omega = ([x, y], p) => {
  if (isNaNDatum(x!) && isNaNDatum(y!)) return NAN; // 1. (NaN, NaN) → NaN
  if (isNaNDatum(x!)) return y!; // 2. (NaN, y) → y
  if (isNaNDatum(y!)) return x!; // 3. (x, NaN) → x
  return MinimumMagnitude([x!, y!], p); // 4. MinimumMagnitude(x, y)
};

/** §4.11 MaximumMagnitudeNumber: a single NaN is ignored, else MaximumMagnitude. */
export const MaximumMagnitudeNumber: Omega = ([x, y], p) => {
  if (isNaNDatum(x!) && isNaNDatum(y!)) return NAN; // 1. (NaN, NaN) → NaN
  if (isNaNDatum(x!)) return y!; // 2. (NaN, y) → y
  if (isNaNDatum(y!)) return x!; // 3. (x, NaN) → x
  return MaximumMagnitude([x!, y!], p); // 4. MaximumMagnitude(x, y)
};

/** §4.11 MinimumFinite: NaN ignored; a finite operand beats an infinite one (MinimumFinite(−∞, 3) = 3). */
export const MinimumFinite: Omega = ([x, y]) => {
  if (isNaNDatum(x!) && isNaNDatum(y!)) return NAN; // 1. (NaN, NaN) → NaN
  if (isNaNDatum(x!)) return y!; // 2. (NaN, y) → y
  if (isNaNDatum(y!)) return x!; // 3. (x, NaN) → x
  if (x!.kind === "infinity" && y!.kind === "infinity") return min(x!, y!); // 4. both infinite → the smaller
  if (x!.kind === "infinity") return y!; // 5. (±∞, Y) → Y
  if (y!.kind === "infinity") return x!; // 6. (X, ±∞) → X
  return min(x!, y!); // 7. min(X, Y)
};

/** §4.11 MaximumFinite: NaN ignored; a finite operand beats an infinite one (MaximumFinite(+∞, 3) = 3). */
export const MaximumFinite: Omega = ([x, y]) => {
  if (isNaNDatum(x!) && isNaNDatum(y!)) return NAN; // 1. (NaN, NaN) → NaN
  if (isNaNDatum(x!)) return y!; // 2. (NaN, y) → y
  if (isNaNDatum(y!)) return x!; // 3. (x, NaN) → x
  if (x!.kind === "infinity" && y!.kind === "infinity") return max(x!, y!); // 4. both infinite → the larger
  if (x!.kind === "infinity") return y!; // 5. (±∞, Y) → Y
  if (y!.kind === "infinity") return x!; // 6. (X, ±∞) → X
  return max(x!, y!); // 7. max(X, Y)
};

/** §4.11 Clamp<fx,flo,fhi,fr,ρ>(x, lo, hi). */
export const Clamp: Omega = ([x, lo, hi]) => {
  const posInf = (v: Exact): boolean => v.kind === "infinity" && v.sign > 0;
  const negInf = (v: Exact): boolean => v.kind === "infinity" && v.sign < 0;
  if (isNaNDatum(x!) || isNaNDatum(lo!) || isNaNDatum(hi!)) return NAN; // 1–3. any NaN → NaN
  if (compareOrdered(lo!, hi!) > 0) return NAN; // 4. Lo > Hi → NaN
  if (posInf(lo!) && posInf(hi!)) return hi!; // 5. (∗, +∞, +∞) → +∞
  if (negInf(lo!) && negInf(hi!)) return lo!; // 6. (∗, −∞, −∞) → −∞
  if (negInf(hi!)) return NAN; // 7. (∗, ∗, −∞) → NaN
  if (posInf(lo!)) return NAN; // 8. (∗, +∞, ∗) → NaN
  if (posInf(x!)) return hi!; // 9–10. (+∞, ∗, +∞) → +∞; (+∞, ∗, Hi) → Hi
  if (negInf(x!)) return lo!; // 11–12. (−∞, −∞, ∗) → −∞; (−∞, Lo, ∗) → Lo
  if (negInf(lo!) && posInf(hi!)) return x!; // 13. (X, −∞, +∞) → X
  if (negInf(lo!)) return min(x!, hi!); // 14. (X, −∞, Hi) → min(X, Hi)
  if (posInf(hi!)) return max(x!, lo!); // 15. (X, Lo, +∞) → max(X, Lo)
  if (compareOrdered(x!, lo!) <= 0) return lo!; // 16. X ≤ Lo → Lo
  if (compareOrdered(x!, hi!) >= 0) return hi!; // 17. X ≥ Hi → Hi
  return x!; // 18. X
};
