// ωProject_{f,ρ} (P3109 §4.7.3) = ωEncode ∘ ωSaturate ∘ ωRoundToPrecision, for every encoding of the model. The
// functions see only the encoding (FormatEncoding): library casts (ml_dtypes, numpy, OCP, Tesla) wrap these steps
// in cast.ts.
import type { FormatEncoding } from "../format/model.js";
import type { ResolvedProjection, Rounding, Saturation } from "./projection.js";
import { roundSignificand } from "./round.js";
import type { Exact } from "./value.js";

/** ωRoundToPrecision's result as a magnitude code of f, the exponent unbounded above (mag may exceed MaxFinite). */
export type RoundedCode =
  | { readonly kind: "nan" }
  | { readonly kind: "infinity"; readonly negative: boolean }
  | {
      readonly kind: "finite";
      readonly negative: boolean;
      readonly mag: bigint;
      /** The rounded value is zero (in a format without zero, magnitude code 0 is MinFinite, not zero). */
      readonly isZero: boolean;
      /** ν > 0, or a nonzero subnormal flushed to zero. */
      readonly inexact: boolean;
    };

const NAN_ROUNDED: RoundedCode = Object.freeze({ kind: "nan" });

/** ωRoundToPrecision_{P,B,µ} (§4.7.4) of x into f's magnitude codes; R is the random value of the stochastic modes. */
export function roundToPrecision(x: Exact, f: FormatEncoding, rho: ResolvedProjection, R = 0): RoundedCode {
  if (x.kind === "nan") return NAN_ROUNDED;
  const negative = x.sign < 0;
  if (x.kind === "infinity") return { kind: "infinity", negative };
  if (x.significand === 0n) return { kind: "finite", negative, mag: 0n, isZero: true, inexact: false };
  const r = roundSignificand(x, f.P, f.minQuantumExponent, f.bias + f.P - 2, rho.rounding, rho.stochasticBits, R);
  let mag = r.S === 0n ? 0n : r.S + BigInt(r.Q + f.P + f.bias - 2) * (1n << BigInt(f.P - 1));
  let inexact = r.inexact;
  if (f.subnormals === "flush" && mag !== 0n && mag < 1n << BigInt(f.P - 1)) {
    mag = 0n; // flushing a nonzero subnormal result is inexact
    inexact = true;
  }
  // In a format without zero (E8M0) magnitude code 0 is MinFinite; only S = 0 is the value zero.
  return { kind: "finite", negative, mag, isZero: f.zero ? mag === 0n : r.S === 0n, inexact };
}

/** The number (1–25) of the ωSaturate rule of §4.7.5 that fired; SATURATE_RESULTS gives its result. */
export type SaturationRule = number;

/** What ωSaturate yields, before ωEncode. */
export type Saturated = "value" | "maxFinite" | "minFinite" | "posInf" | "negInf" | "nan";

/** Result of each rule of §4.7.5, indexed by rule number (Mhi = maxFinite, Mlo = minFinite). */
export const SATURATE_RESULTS: readonly Saturated[] = Object.freeze([
  "nan", // unused: rules are numbered from 1
  "nan",
  "value", // 1, 2
  "maxFinite",
  "minFinite",
  "minFinite",
  "maxFinite", // 3–6: SatFinite
  "posInf",
  "maxFinite",
  "negInf",
  "minFinite",
  "minFinite",
  "maxFinite", // 7–12: SatPropagate
  "posInf",
  "maxFinite",
  "negInf",
  "nan",
  "minFinite", // 13–17: SatNone, ±∞
  "maxFinite",
  "maxFinite",
  "minFinite",
  "negInf",
  "nan",
  "minFinite",
  "posInf",
  "maxFinite", // 18–25: SatNone, finite
] as const);

/** ωSaturate_{Mlo,Mhi}(Sat, Round, X, Σ, Δ) (§4.7.5): the first of the 25 ordered rules that matches. */
export function saturate(f: FormatEncoding, sat: Saturation, rnd: Rounding, x: RoundedCode): SaturationRule {
  if (x.kind === "nan") return 1;
  const extended = f.infinity;
  const signed = f.signed;
  const posInf = x.kind === "infinity" && !x.negative;
  const negInf = x.kind === "infinity" && x.negative;
  let below = false; // X < Mlo: a negative nonzero value of an unsigned format; zero in a format without zero
  let above = false; // X > Mhi
  if (x.kind === "finite") {
    const max = f.bigCodes.maxFinite;
    below = signed ? x.negative && x.mag > max : (x.negative && !x.isZero) || (!f.zero && x.isZero);
    above = !x.negative && x.mag > max;
    if (!below && !above) return 2;
  }
  if (sat === "SatFinite") return posInf ? 3 : negInf ? 4 : below ? 5 : 6;
  if (sat === "SatPropagate") {
    if (posInf) return extended ? 7 : 8;
    if (negInf) return signed && extended ? 9 : 10;
    return below ? 11 : 12;
  }
  if (posInf) return extended ? 13 : 14;
  if (negInf) return signed && extended ? 15 : !signed ? 16 : 17;
  if (above && rnd === "ToOdd" && !signed && extended) return 18;
  if (above && (rnd === "TowardZero" || rnd === "TowardNegative")) return 19;
  if (below && (rnd === "TowardZero" || rnd === "TowardPositive")) return 20;
  if (below) return signed && extended ? 21 : !signed ? 22 : 23;
  return extended ? 24 : 25;
}

/**
 * ωEncode (§4.7.6) of a saturation result: P3109 datums, so every zero is +0 and NaN is the canonical NaN code
 * (−1n for an encoding without NaN, which only vendor formats have; their cast substitutes a code).
 */
export function encode(f: FormatEncoding, s: Saturated, x: RoundedCode): bigint {
  const codes = f.bigCodes;
  switch (s) {
    case "value":
      if (x.kind !== "finite" || x.mag === 0n) return 0n;
      return x.negative ? x.mag + codes.signBit : x.mag;
    case "maxFinite":
      return codes.maxFinite;
    case "minFinite":
      return codes.minFinite;
    case "posInf":
      return codes.posInf;
    case "negInf":
      return codes.negInf;
    case "nan":
      return codes.nan;
  }
}

/** ωProject_{f,ρ}(X) (§4.7.3) exactly as the report defines it: no library cast policy, no flags. */
export function projectP3109(x: Exact, f: FormatEncoding, rho: ResolvedProjection, R = 0): bigint {
  const r = roundToPrecision(x, f, rho, R);
  return encode(f, SATURATE_RESULTS[saturate(f, rho.saturation, rho.rounding, r)]!, r);
}
