// Comparisons, predicates and classification (P3109 §4.12–4.13): no projection; Boolean or enumeration results.
// Operands are ω-values (no −0, one NaN); the predicates that depend on the format (IsNormal, IsSubnormal, Class)
// take the operand's format.
import { type Exact, type Finite, floorLog2, isNaNDatum } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { compareOrdered } from "./extrema.js";

export type Predicate = (args: Exact[], formats: readonly Format[]) => boolean;

/** §4.12 CompareLess: False whenever either operand is NaN. */
export const CompareLess: Predicate = ([x, y]) => !isNaNDatum(x!) && !isNaNDatum(y!) && compareOrdered(x!, y!) < 0;
/** §4.12 CompareLessEqual. */
export const CompareLessEqual: Predicate = ([x, y]) => !isNaNDatum(x!) && !isNaNDatum(y!) && compareOrdered(x!, y!) <= 0;
/** §4.12 CompareEqual: CompareEqual(NaN, NaN) is False. */
export const CompareEqual: Predicate = ([x, y]) => !isNaNDatum(x!) && !isNaNDatum(y!) && compareOrdered(x!, y!) === 0;
/** §4.12 CompareGreater. */
export const CompareGreater: Predicate = ([x, y]) => !isNaNDatum(x!) && !isNaNDatum(y!) && compareOrdered(x!, y!) > 0;
/** §4.12 CompareGreaterEqual. */
export const CompareGreaterEqual: Predicate = ([x, y]) => !isNaNDatum(x!) && !isNaNDatum(y!) && compareOrdered(x!, y!) >= 0;

/** §4.12 TotalOrder: NaN is the least element. */
export const TotalOrder: Predicate = ([x, y], f) => {
  if (isNaNDatum(x!)) return true; // 1. TotalOrder(NaN, ∗) → True
  if (isNaNDatum(y!)) return false; // 2. TotalOrder(x, NaN) → False
  return CompareLessEqual([x!, y!], f); // 3. CompareLessEqual(x, y)
};

const nonzeroFinite = (x: Exact): x is Finite => x.kind === "finite" && x.significand !== 0n;
/** |X| ≥ MinNormalOf(f) = 2^(1−B) (formats with a zero; every nonzero value of a P = 1 format is normal). */
const atLeastMinNormal = (x: Finite, f: Format): boolean => f.P === 1 || floorLog2(x) >= 1 - f.bias;

/** §4.13 predicates. */
export const IsZero: Predicate = ([x]) => x!.kind === "finite" && x!.significand === 0n;
export const IsOne: Predicate = ([x]) =>
  x!.kind === "finite" && x!.sign > 0 && x!.significand !== 0n && floorLog2(x!) === 0 && (x!.significand & (x!.significand - 1n)) === 0n;
export const IsNaN: Predicate = ([x]) => isNaNDatum(x!);
export const IsInfinite: Predicate = ([x]) => x!.kind === "infinity";
export const IsFinite: Predicate = ([x]) => x!.kind === "finite";
/** −∞ or X < 0; NaN and 0 are not sign-minus. */
export const IsSignMinus: Predicate = ([x]) => x!.kind !== "nan" && x!.sign < 0 && !(x!.kind === "finite" && x!.significand === 0n);
export const IsNormal: Predicate = ([x], [f]) => nonzeroFinite(x!) && atLeastMinNormal(x!, f!);
/** Finite, nonzero and not normal (always False for P = 1). */
export const IsSubnormal: Predicate = ([x], [f]) => nonzeroFinite(x!) && !atLeastMinNormal(x!, f!);

/** §4.13 Table 2, in the order of the golden vectors' enumeration. */
export const CLASS_NAMES = [
  "ClsNaN",
  "ClsNegativeInfinity",
  "ClsNegativeNormal",
  "ClsNegativeSubnormal",
  "ClsZero",
  "ClsPositiveSubnormal",
  "ClsPositiveNormal",
  "ClsPositiveInfinity",
] as const;
export type ClassName = (typeof CLASS_NAMES)[number];

/** §4.13 Class<f>(x). */
export function Class(x: Exact, f: Format): ClassName {
  if (x.kind === "nan") return "ClsNaN";
  if (x.kind === "infinity") return x.sign < 0 ? "ClsNegativeInfinity" : "ClsPositiveInfinity";
  if (x.significand === 0n) return "ClsZero";
  const normal = atLeastMinNormal(x, f);
  if (x.sign < 0) return normal ? "ClsNegativeNormal" : "ClsNegativeSubnormal";
  return normal ? "ClsPositiveNormal" : "ClsPositiveSubnormal";
}
