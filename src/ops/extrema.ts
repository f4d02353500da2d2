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

/** Steps 1–3 of the §4.11 …Number and …Finite variants (a single NaN is ignored), then `rest` (step 4 on). */
const ignoringNaN =
  (rest: Omega): Omega =>
  ([x, y], p) => {
    if (isNaNDatum(x!) && isNaNDatum(y!)) return NAN; // 1. (NaN, NaN) → NaN
    if (isNaNDatum(x!)) return y!; // 2. (NaN, y) → y
    if (isNaNDatum(y!)) return x!; // 3. (x, NaN) → x
    return rest([x!, y!], p);
  };

/** §4.11 MinimumNumber: a single NaN is ignored, else (4.) Minimum(x, y). */
export const MinimumNumber: Omega = ignoringNaN(Minimum);

/** §4.11 MaximumNumber: a single NaN is ignored, else (4.) Maximum(x, y). */
export const MaximumNumber: Omega = ignoringNaN(Maximum);

/** §4.11 Minimum/MaximumMagnitude: the operand of smaller |·| (order 1) or larger |·| (order −1); a tie goes to `tie`. */
const byMagnitude =
  (order: -1 | 1, tie: (a: Exact, b: Exact) => Exact): Omega =>
  ([x, y]) => {
    if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. any NaN → NaN
    const c = order * compareMagnitudeOrdered(x!, y!);
    if (c < 0) return x!; // 3. |X| < |Y| → X for Minimum… (a finite operand beats ±∞); |X| > |Y| for Maximum…
    if (c > 0) return y!; // 4. the other way round → Y
    return tie(x!, y!); // 5. |X| = |Y| → Minimum(X, Y) or Maximum(X, Y)
  };

/** §4.11 MinimumMagnitude: the smaller |·|; equal magnitudes give the smaller value (MinMag(−2, 2) = −2, MinMag(+∞, −∞) = −∞). */
export const MinimumMagnitude: Omega = byMagnitude(1, min);

/** §4.11 MaximumMagnitude: the larger |·|; equal magnitudes give the larger value (MaxMag(−2, 2) = 2, MaxMag(−∞, +∞) = +∞). */
export const MaximumMagnitude: Omega = byMagnitude(-1, max);

/** §4.11 MinimumMagnitudeNumber: a single NaN is ignored, else MinimumMagnitude. */
export const MinimumMagnitudeNumber: Omega = ignoringNaN(MinimumMagnitude);

/** §4.11 MaximumMagnitudeNumber: a single NaN is ignored, else MaximumMagnitude. */
export const MaximumMagnitudeNumber: Omega = ignoringNaN(MaximumMagnitude);

/** Steps 4–7 of §4.11 Minimum/MaximumFinite after the NaN steps: a finite operand beats an infinite one. */
const preferFinite =
  (pick: (a: Exact, b: Exact) => Exact): Omega =>
  ([x, y]) => {
    if (x!.kind === "infinity" && y!.kind === "infinity") return pick(x!, y!); // 4. both infinite → the smaller (larger)
    if (x!.kind === "infinity") return y!; // 5. (±∞, Y) → Y
    if (y!.kind === "infinity") return x!; // 6. (X, ±∞) → X
    return pick(x!, y!); // 7. min(X, Y) (max(X, Y))
  };

/** §4.11 MinimumFinite: NaN ignored; a finite operand beats an infinite one (MinimumFinite(−∞, 3) = 3). */
export const MinimumFinite: Omega = ignoringNaN(preferFinite(min));

/** §4.11 MaximumFinite: NaN ignored; a finite operand beats an infinite one (MaximumFinite(+∞, 3) = 3). */
export const MaximumFinite: Omega = ignoringNaN(preferFinite(max));

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
