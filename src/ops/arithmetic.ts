// Arithmetic ω-functions (P3109 §4.9.1 Convert, §4.10 Arithmetic): ordered pattern rules, first match wins, then
// the exact real result (or its round-to-odd value at `precision` bits for Divide, Sqrt, Recip, RSqrt, Hypot).
// Operands are ω-values (no −0, one unsigned NaN); results never contain −0.
import { type Exact, type Finite, NAN, NEG_INF, POS_INF, ZERO, finite, isNaNDatum } from "../exact/value.js";
import { abs, add, multiply, negate, rsqrtToOdd, sqrtToOdd } from "./exact-arith.js";
import { stickyQuotient } from "./sticky.js";

/** An ω-operation: exact real result, or a round-to-odd value with ≥ precision bits (sticky.ts). */
export type Omega = (args: Exact[], precision: number) => Exact;

const isPosInf = (x: Exact): boolean => x.kind === "infinity" && x.sign > 0;
const isNegInf = (x: Exact): boolean => x.kind === "infinity" && x.sign < 0;
const isZero = (x: Exact): boolean => x.kind === "finite" && x.significand === 0n;
const inf = (sign: number): Exact => (sign > 0 ? POS_INF : NEG_INF);
/** Sign of a non-NaN value (0 for zero). */
const sgn = (x: Exact): number => (x.kind === "finite" && x.significand === 0n ? 0 : x.sign);

/** §4.9.1 ωConvert is the identity: Convert<fx,fr,ρ>(x) = ωProject(ωDecode(x)). */
export const Convert: Omega = ([x]) => x!;

/** §4.10 Negate. */
export const Negate: Omega = ([x]) => {
  if (isNaNDatum(x!)) return NAN; // 1. Negate(NaN) → NaN
  if (isNegInf(x!)) return POS_INF; // 2. Negate(−∞) → +∞
  if (isPosInf(x!)) return NEG_INF; // 3. Negate(+∞) → −∞
  return negate(x as Finite); // 4. Negate(X) → −X (Negate(0) = 0)
};

/** §4.10 Abs. */
export const Abs: Omega = ([x]) => {
  if (isNaNDatum(x!)) return NAN; // 1. Abs(NaN) → NaN
  if (x!.kind === "infinity") return POS_INF; // 2–3. Abs(±∞) → +∞
  return abs(x as Finite); // 4. Abs(X) → |X|
};

/** §4.10 CopySign: the magnitude of x with the sign of y (Y = 0 counts as positive). */
export const CopySign: Omega = ([x, y]) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. CopySign(NaN, ∗), CopySign(∗, NaN) → NaN
  const negative = isNegInf(y!) || (y!.kind === "finite" && y!.sign < 0 && y!.significand !== 0n);
  if (x!.kind === "infinity") return negative ? NEG_INF : POS_INF; // 3–6. CopySign(±∞, y) → ±∞ by y
  const m = abs(x as Finite);
  return negative ? negate(m) : m; // 7–8. CopySign(X, y) → ±|X| by y
};

/** §4.10 Add. */
export const Add: Omega = ([x, y]) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. Add(NaN, ∗), Add(∗, NaN) → NaN
  if ((isPosInf(x!) && isNegInf(y!)) || (isNegInf(x!) && isPosInf(y!))) return NAN; // 3–4. Add(±∞, ∓∞) → NaN
  if (isPosInf(x!) || isPosInf(y!)) return POS_INF; // 5–6. Add(+∞, ∗), Add(∗, +∞) → +∞
  if (isNegInf(x!) || isNegInf(y!)) return NEG_INF; // 7–8. Add(−∞, ∗), Add(∗, −∞) → −∞
  return add(x as Finite, y as Finite); // 9. Add(X, Y) → X + Y
};

/** §4.10 Subtract. */
export const Subtract: Omega = ([x, y]) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. Subtract(NaN, ∗), Subtract(∗, NaN) → NaN
  if ((isPosInf(x!) && isPosInf(y!)) || (isNegInf(x!) && isNegInf(y!))) return NAN; // 3–4. (+∞)−(+∞), (−∞)−(−∞) → NaN
  if (isPosInf(y!)) return NEG_INF; // 5. Subtract(∗, +∞) → −∞
  if (isPosInf(x!)) return POS_INF; // 6. Subtract(+∞, ∗) → +∞
  if (isNegInf(y!)) return POS_INF; // 7. Subtract(∗, −∞) → +∞
  if (isNegInf(x!)) return NEG_INF; // 8. Subtract(−∞, ∗) → −∞
  return add(x as Finite, negate(y as Finite)); // 9. Subtract(X, Y) → X − Y
};

/** §4.10 Multiply. */
export const Multiply: Omega = ([x, y]) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. Multiply(NaN, ∗), Multiply(∗, NaN) → NaN
  if (x!.kind === "infinity" && y!.kind === "infinity") return inf(x!.sign * y!.sign); // 3–6. ∞·∞ by signs
  if ((x!.kind === "infinity" && isZero(y!)) || (isZero(x!) && y!.kind === "infinity")) return NAN; // 7–8. ∞·0, 0·∞ → NaN
  if (x!.kind === "infinity") return inf(x!.sign * sgn(y!)); // 9–10. ±∞·Y → ±∞ by the sign of Y
  if (y!.kind === "infinity") return inf(y!.sign * sgn(x!)); // 11–12. X·±∞ → ±∞ by the sign of X
  return multiply(x as Finite, y as Finite); // 13. Multiply(X, Y) → X·Y
};

/** §4.10 Divide: every division by zero is NaN (0/0, X/0 and ∞/0 alike). */
export const Divide: Omega = ([x, y], precision) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. Divide(NaN, ∗), Divide(∗, NaN) → NaN
  if (x!.kind === "infinity" && y!.kind === "infinity") return NAN; // 3–6. ±∞/±∞ → NaN
  if (isZero(y!)) return NAN; // 7. Divide(∗, 0) → NaN
  if (x!.kind === "infinity") return inf(x!.sign * sgn(y!)); // 8–9. ±∞/Y → ±∞ by the signs
  if (y!.kind === "infinity") return ZERO; // 10. Divide(X, ±∞) → 0
  const a = x as Finite;
  const b = y as Finite;
  if (a.significand === 0n) return ZERO; // 11. Divide(0, Y) → 0 (no −0)
  const q = stickyQuotient(a.sign === b.sign ? 1 : -1, a.significand, b.significand, precision); // 12. X/Y
  return finite(q.sign, q.significand, q.exponent + a.exponent - b.exponent);
};

/** §4.10 FMA: exact X·Y + Z with one rounding; the special cases are those of ωAdd(ωMultiply(X, Y), Z) in ℝω. */
export const FMA: Omega = ([x, y, z], precision) => Add([Multiply([x!, y!], precision), z!], precision);

/** §4.10 FAA: exact X + Y + Z with one rounding (≡ ωAdd(ωAdd(X, Y), Z): any +∞ with any −∞ → NaN). */
export const FAA: Omega = ([x, y, z], precision) => Add([Add([x!, y!], precision), z!], precision);

/** §4.10 Sqrt. */
export const Sqrt: Omega = ([x], precision) => {
  if (isNaNDatum(x!)) return NAN; // 1. Sqrt(NaN) → NaN
  if (isNegInf(x!)) return NAN; // 2. Sqrt(−∞) → NaN
  if (x!.kind === "finite" && x!.sign < 0 && x!.significand !== 0n) return NAN; // 3. Sqrt(X < 0) → NaN
  if (isPosInf(x!)) return POS_INF; // 4. Sqrt(+∞) → +∞
  return sqrtToOdd(x as Finite, precision); // 5. Sqrt(X) → √X (√0 = 0)
};

/** §4.10 Recip. */
export const Recip: Omega = ([x], precision) => {
  if (isNaNDatum(x!)) return NAN; // 1. Recip(NaN) → NaN
  if (isZero(x!)) return NAN; // 2. Recip(0) → NaN
  if (x!.kind === "infinity") return ZERO; // 3–4. Recip(±∞) → 0
  const a = x as Finite;
  const q = stickyQuotient(a.sign, 1n, a.significand, precision); // 5. Recip(X) → 1/X
  return finite(q.sign, q.significand, q.exponent - a.exponent);
};

/** §4.10 RSqrt. */
export const RSqrt: Omega = ([x], precision) => {
  if (isNaNDatum(x!)) return NAN; // 1. RSqrt(NaN) → NaN
  if (isNegInf(x!)) return NAN; // 2. RSqrt(−∞) → NaN
  if (x!.kind === "finite" && (x!.sign < 0 || x!.significand === 0n)) return NAN; // 3. RSqrt(X ≤ 0) → NaN
  if (isPosInf(x!)) return ZERO; // 4. RSqrt(+∞) → 0
  return rsqrtToOdd(x as Finite, precision); // 5. RSqrt(X) → 1/√X
};

/** §4.10 Hypot: any NaN wins over ∞ (Hypot(NaN, ∞) = NaN, unlike IEEE 754). */
export const Hypot: Omega = ([x, y], precision) => {
  if (isNaNDatum(x!) || isNaNDatum(y!)) return NAN; // 1–2. Hypot(NaN, ∗), Hypot(∗, NaN) → NaN
  if (x!.kind === "infinity" || y!.kind === "infinity") return POS_INF; // 3–6. Hypot(±∞, ∗), Hypot(∗, ±∞) → +∞
  const a = x as Finite;
  const b = y as Finite;
  return sqrtToOdd(add(multiply(a, a), multiply(b, b)), precision); // 7. Hypot(X, Y) → √(X² + Y²)
};
