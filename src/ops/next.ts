// NextGreaterThan / NextLessThan (P3109 §4.16): code arithmetic in the operand's own (P3109) format. Unlike IEEE
// nextUp/nextDown the ends give NaN: NextGreaterThan(+Inf) = NaN, NextGreaterThan(MaxFinite) = NaN in Finite formats,
// NextLessThan(0) = NaN in Unsigned formats.
import type { Format } from "../format/model.js";

/** §4.16 NextGreaterThanAux(Σ, Δ, x), rules in order. */
export function NextGreaterThan(x: number, f: Format): number {
  const nan = f.nanCode;
  const smallestNeg = f.signBit + 1;
  if (f.isNaNCode(x)) return nan; // 1. NaN → NaN
  if (f.infinity && x === f.posInfCode) return nan; // 2. (∗, Extended, +Inf) → NaN
  if (!f.infinity && x === f.maxFiniteCode) return nan; // 3. (∗, Finite, MaxFinite) → NaN
  if (f.infinity && x === f.maxFiniteCode) return f.posInfCode; // 4. (∗, Extended, MaxFinite) → +Inf
  if (f.signed && f.infinity && x === f.negInfCode) return f.minFiniteCode; // 5. (Signed, Extended, −Inf) → MinFinite
  if (f.signed && x === smallestNeg) return 0; // 6. (Signed, ∗, SmallestNeg) → 0
  if (f.signed && f.isNegativeCode(x)) return x - 1; // 7. (Signed, ∗, x) if IsSignMinus(x) → x − 1
  return x + 1; // 8. (∗, ∗, x) → x + 1
}

/** §4.16 NextLessThanAux(Σ, Δ, x), rules in order. */
export function NextLessThan(x: number, f: Format): number {
  const nan = f.nanCode;
  const smallestNeg = f.signBit + 1;
  if (f.isNaNCode(x)) return nan; // 1. NaN → NaN
  if (!f.infinity && x === f.minFiniteCode) return nan; // 2. (∗, Finite, MinFinite) → NaN
  if (!f.signed && x === 0) return nan; // 3. (Unsigned, ∗, 0) → NaN
  if (f.signed && f.infinity && x === f.negInfCode) return nan; // 4. (Signed, Extended, −Inf) → NaN
  if (f.signed && f.infinity && x === f.minFiniteCode) return f.negInfCode; // 5. (Signed, Extended, MinFinite) → −Inf
  if (f.infinity && x === f.posInfCode) return f.maxFiniteCode; // 6. (∗, Extended, +Inf) → MaxFinite
  if (f.signed && x === 0) return smallestNeg; // 7. (Signed, ∗, 0) → SmallestNeg
  if (f.signed && f.isNegativeCode(x)) return x + 1; // 8. (Signed, ∗, x) if IsSignMinus(x) → x + 1
  return x - 1; // 9. (∗, ∗, x) → x − 1
}
