// ωProject_{f,ρ} (P3109 §4.7.3) = ωEncode ∘ ωSaturate ∘ ωRoundToPrecision, for every format of the model.
import type { Format } from "../format/model.js";
import type { ResolvedProjection, Rounding, Saturation } from "./projection.js";
import { roundToPrecision } from "./round.js";
import { type Exact, type Finite, bitLength } from "./value.js";

/** IEEE-style exception flags of one conversion (accumulated as counts by the bulk API). */
export interface ConversionFlags {
  /** NaN input, or a NaN/∞ input clamped because the format has no such datum. */
  invalid: number;
  /** The input was a subnormal of its own format (binary32/binary64 subnormal). */
  denormal: number;
  /** The rounded result exceeded MaxFinite (saturated, or became ∞ or NaN). */
  overflow: number;
  /** The result is inexact and its magnitude is below MinNormal (zero or subnormal). */
  underflow: number;
}

export function newFlags(): ConversionFlags {
  return { invalid: 0, denormal: 0, overflow: 0, underflow: 0 };
}

/** The outcome of ωSaturate (§4.7.5) before encoding. */
type Saturated = "value" | "maxFinite" | "minFinite" | "posInf" | "negInf" | "nan";

/**
 * Projects an exact value into format f under ρ and returns the code (K ≤ 32).
 * R is the random value of the stochastic modes. Vendor formats keep the sign of zero and NaN (IEEE semantics);
 * P3109 formats have neither −0 nor a signed NaN.
 */
export function project(x: Exact, f: Format, rho: ResolvedProjection, R = 0, flags?: ConversionFlags): number {
  return Number(projectBig(x, f, rho, R, flags));
}

/** As `project`, with the code as a bigint (needed for binary64 codes). */
export function projectBig(x: Exact, f: Format, rho: ResolvedProjection, R = 0, flags?: ConversionFlags): bigint {
  // P3109 datums (§3.1) have no −0 and one unsigned NaN: ωEncodeExternal gives +0 and the canonical NaN (§4.8).
  const ieeeSigns = rho.datums === "IEEE";
  if (x.kind === "nan") {
    if (flags) flags.invalid++;
    return ieeeSigns ? encodeNaN(f, x.sign, x.payload) : encodeNaN(f, 1, undefined);
  }
  if (rho.vendor === "ml_dtypes_e8m0") return BigInt(mlDtypesE8M0(x));
  const negative = x.sign < 0;
  const s = { negativeZero: negative && ieeeSigns, nanSign: ieeeSigns ? x.sign : 1 } as const;
  if (x.kind === "infinity") {
    if (!f.infinity && flags) flags.invalid++;
    return encodeSaturated(f, saturateInfinity(f, rho.saturation, negative), negative, 0n, s);
  }
  if (x.significand === 0n) {
    if (f.zero) return encodeZero(f, s.negativeZero);
    return encodeSaturated(f, saturateFinite(f, rho.saturation, rho.rounding, negative, 0n, true), negative, 0n, s);
  }
  if (flags && isSubnormalInput(x)) flags.denormal++;
  const r = roundToPrecision(x, f.P, f.minQuantumExponent, f.bias + f.P - 2, rho.rounding, rho.stochasticBits, R);
  let mag = r.S === 0n ? 0n : r.S + BigInt(r.Q + f.P + f.bias - 2) * (1n << BigInt(f.P - 1));
  let inexact = r.inexact;
  if (f.subnormals === "flush" && mag !== 0n && mag < 1n << BigInt(f.P - 1)) {
    mag = 0n; // flushing a nonzero subnormal result is inexact
    inexact = true;
  }
  if (flags && inexact && mag < BigInt(f.minNormalCode) + (f.zero ? 0n : 1n)) flags.underflow++;
  // In a format without zero (E8M0) magnitude code 0 is MinFinite; only S = 0 is the value zero.
  const isZero = f.zero ? mag === 0n : r.S === 0n;
  const outcome = saturateFinite(f, rho.saturation, rho.rounding, negative, mag, isZero);
  if (flags && outcome !== "value" && mag > f.bigCodes.maxFinite) flags.overflow++;
  return encodeSaturated(f, outcome, negative, mag, s);
}

/** Rules 3–17 of §4.7.5: an infinite input. */
function saturateInfinity(f: Format, sat: Saturation, negative: boolean): Saturated {
  if (sat === "SatFinite") return negative ? "minFinite" : "maxFinite";
  if (sat === "SatPropagate") {
    if (!negative) return f.infinity ? "posInf" : "maxFinite"; // rules 7, 8
    return f.infinity && f.signed ? "negInf" : "minFinite"; // rules 9, 10
  }
  // SatNone
  if (!negative) return f.infinity ? "posInf" : f.finiteOverflow === "nan" ? "nan" : "maxFinite"; // 13, 14
  if (f.signed && f.infinity) return "negInf"; // 15
  if (!f.signed) return "nan"; // 16
  return f.finiteOverflow === "nan" ? "nan" : "minFinite"; // 17
}

/** Rules 2, 5–6, 11–12, 18–25 of §4.7.5 for a rounded finite magnitude code `mag` (exponent unbounded above). */
function saturateFinite(f: Format, sat: Saturation, rnd: Rounding, negative: boolean, mag: bigint, isZero: boolean): Saturated {
  const max = f.bigCodes.maxFinite;
  // "X < Mlo": a negative nonzero result in an unsigned format; the value zero in a format without zero.
  const below = f.signed ? negative && mag > max : (negative && !isZero) || (!f.zero && isZero);
  const above = !negative && mag > max;
  if (!below && !above) return "value"; // rule 2
  if (sat !== "SatNone") return above ? "maxFinite" : "minFinite"; // rules 5, 6, 11, 12
  if (above) {
    if (rnd === "ToOdd" && !f.signed && f.infinity) return "maxFinite"; // 18
    if (rnd === "TowardZero" || rnd === "TowardNegative") return "maxFinite"; // 19
    if (f.infinity) return "posInf"; // 24
    return f.finiteOverflow === "nan" ? "nan" : "maxFinite"; // 25
  }
  if (rnd === "TowardZero" || rnd === "TowardPositive") return "minFinite"; // 20
  if (f.signed && f.infinity) return "negInf"; // 21
  if (!f.signed) return "nan"; // 22
  return f.finiteOverflow === "nan" ? "nan" : "minFinite"; // 23
}

/** ωEncode (§4.7.6) of a saturation outcome. */
function encodeSaturated(f: Format, s: Saturated, negative: boolean, mag: bigint, signs: { negativeZero: boolean; nanSign: 1 | -1 }): bigint {
  const codes = f.bigCodes;
  const sign = codes.signBit;
  switch (s) {
    case "value":
      if (mag === 0n) return encodeZero(f, signs.negativeZero);
      return negative ? mag + sign : mag;
    case "maxFinite":
      return codes.maxFinite;
    case "minFinite":
      return codes.minFinite;
    case "posInf":
      return codes.posInf;
    case "negInf":
      return codes.negInf;
    case "nan":
      return encodeNaN(f, signs.nanSign, undefined);
  }
}

/** Zero: +0 in P3109 formats (no −0) and in formats without −0 (FNUZ); the input's sign elsewhere. */
function encodeZero(f: Format, negative: boolean): bigint {
  if (!f.zero) return 0n; // not reached by ωProject: saturation handles formats without zero
  return negative && f.signed && f.signedZeroAndNaN && f.negativeZero === "zero" ? f.bigCodes.signBit : 0n;
}

/** The NaN code: canonical for P3109, signed (and payload-truncated where the format says so) for vendor formats. */
function encodeNaN(f: Format, sign: 1 | -1, payload: bigint | undefined): bigint {
  const negative = sign < 0 && f.signed && f.signedZeroAndNaN;
  if (!f.hasNaN) {
    // Formats without NaN (MX elements, Tesla): ml_dtypes gives the −0 code with the sign flipped; Tesla clamps.
    if (f.nanSubstitute === "negzero-xor-sign") return negative ? 0n : f.bigCodes.signBit;
    return f.bigCodes.maxFinite;
  }
  const codes = f.bigCodes;
  let code = codes.nan;
  if (f.nanPayload === "keep" && payload !== undefined && f.infinity) {
    // numpy float16: keep the top P−1 bits of the (52-bit, left-aligned) payload, and stay a NaN.
    const t = payload >> BigInt(52 - f.trailingBits);
    code = codes.infMagnitude + (t === 0n ? 1n : t);
  }
  const negativeNaN = negative && f.highNaNs > 0;
  return negativeNaN ? code + codes.signBit : code;
}

function isSubnormalInput(x: Finite): boolean {
  // Inputs reach the bulk API as binary32/binary64 values; their subnormals have the smallest exponents.
  return (x.exponent === -149 && bitLength(x.significand) < 24) || (x.exponent === -1074 && bitLength(x.significand) < 53);
}

/**
 * ml_dtypes' float32 → float8_e8m0fnu cast (vendor-formats.md, "E8M0"): 0, negatives, ±∞ and NaN give 0xFF;
 * rounding is to nearest with ties away from zero (the kept bit is the implicit 1); below 2^−126 the cast
 * rounds as if code 0 were zero (x ≤ 2^−127 → 0x00, 2^−127 < x < 2^−126 → 0x01); x ≥ 1.5·2^127 → 0xFF.
 */
function mlDtypesE8M0(x: Exact): number {
  if (x.kind !== "finite" || x.significand === 0n || x.sign < 0) return 0xff;
  const L = bitLength(x.significand) - 1 + x.exponent;
  if (L < -126) {
    // Compare with 2^−127: equal or below → code 0, above → code 1.
    return L < -127 || (L === -127 && x.significand === 1n << BigInt(bitLength(x.significand) - 1)) ? 0 : 1;
  }
  // Ties away: round up iff the bit below the leading one is set.
  const nextBit = bitLength(x.significand) >= 2 ? (x.significand >> BigInt(bitLength(x.significand) - 2)) & 1n : 0n;
  const e = L + Number(nextBit);
  return e + 127 > 254 ? 0xff : e + 127;
}
