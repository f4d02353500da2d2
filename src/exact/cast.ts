// Library casts around ωProject (P3109 §4.7.3): each format's cast policy (src/format/model.ts CastPolicy) and the
// IEEE exception flags. The projection steps themselves live in project.ts and know nothing of libraries.
import type { Format } from "../format/model.js";
import { type RoundedCode, SATURATE_RESULTS, type Saturated, encode, roundToPrecision, saturate } from "./project.js";
import type { ResolvedProjection } from "./projection.js";
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

/** The §4.7.5 rules where P3109 v4.0 clamps a SatNone overflow (or ∞) in a format without infinities. */
const CLAMPING_RULES: ReadonlySet<number> = new Set([14, 17, 23, 25]);

/**
 * Projects an exact value into format f under ρ and returns the code (K ≤ 32).
 * R is the random value of the stochastic modes. With ρ.datums "IEEE", formats keep the sign of zero and NaN
 * where they have such codes; with "P3109" the results are P3109 datums (no −0, one unsigned NaN).
 */
export function project(x: Exact, f: Format, rho: ResolvedProjection, R = 0, flags?: ConversionFlags): number {
  return Number(projectBig(x, f, rho, R, flags));
}

/** As `project`, with the code as a bigint (needed for binary64 codes). */
export function projectBig(x: Exact, f: Format, rho: ResolvedProjection, R = 0, flags?: ConversionFlags): bigint {
  const ieeeSigns = rho.datums === "IEEE";
  const sign = ieeeSigns ? x.sign : 1;
  if (x.kind === "nan") {
    if (flags) flags.invalid++;
    return nanCode(f, sign, ieeeSigns ? x.payload : undefined);
  }
  if (rho.vendor === "ml_dtypes_e8m0") return BigInt(mlDtypesE8M0(x));
  if (flags) classifyInput(x, f, flags);
  const r = roundToPrecision(x, f, rho, R);
  const rule = saturate(f, rho.saturation, rho.rounding, r);
  // OCP FN and FNUZ casts give NaN where P3109 clamps.
  const outcome: Saturated = f.policy.finiteOverflow === "nan" && CLAMPING_RULES.has(rule) ? "nan" : SATURATE_RESULTS[rule]!;
  if (flags) classifyResult(r, outcome, f, flags);
  if (outcome === "nan") return nanCode(f, sign, undefined);
  const code = encode(f, outcome, r);
  return code === 0n && outcome === "value" && sign < 0 && hasNegativeZero(f) ? f.bigCodes.signBit : code;
}

/** invalid: ∞ into a format without ∞; denormal: a binary32/binary64 subnormal input. */
function classifyInput(x: Exact, f: Format, flags: ConversionFlags): void {
  if (x.kind === "infinity" && !f.infinity) flags.invalid++;
  if (x.kind === "finite" && x.significand !== 0n && isSubnormalInput(x)) flags.denormal++;
}

/** underflow: inexact below MinNormal; overflow: a rounded magnitude above MaxFinite. */
function classifyResult(r: RoundedCode, outcome: Saturated, f: Format, flags: ConversionFlags): void {
  if (r.kind !== "finite") return;
  if (r.inexact && r.mag < BigInt(f.minNormalCode) + (f.zero ? 0n : 1n)) flags.underflow++;
  if (outcome !== "value" && r.mag > f.bigCodes.maxFinite) flags.overflow++;
}

/** Vendor formats with a −0 code keep the sign of zero (IEEE); P3109 formats and FNUZ have no −0. */
function hasNegativeZero(f: Format): boolean {
  return f.zero && f.signed && f.policy.signedZeroAndNaN && f.negativeZero === "zero";
}

/** The NaN code: canonical for P3109 datums; signed and payload-truncated where the format's policy says so. */
function nanCode(f: Format, sign: 1 | -1, payload: bigint | undefined): bigint {
  const negative = sign < 0 && f.signed && f.policy.signedZeroAndNaN;
  const codes = f.bigCodes;
  if (!f.hasNaN) {
    // Formats without NaN (MX elements, Tesla): ml_dtypes gives the −0 code with the sign flipped; Tesla clamps.
    if (f.policy.nanSubstitute === "negzero-xor-sign") return negative ? 0n : codes.signBit;
    return codes.maxFinite;
  }
  let code = codes.nan;
  if (f.policy.nanPayload === "keep" && payload !== undefined && f.infinity) {
    // numpy float16: keep the top P−1 bits of the (52-bit, left-aligned) payload, and stay a NaN.
    const t = payload >> BigInt(52 - f.trailingBits);
    code = codes.infMagnitude + (t === 0n ? 1n : t);
  }
  return negative && f.highNaNs > 0 ? code + codes.signBit : code;
}

function isSubnormalInput(x: Finite): boolean {
  // Inputs reach the bulk API as binary32/binary64 values; their subnormals have the smallest exponents.
  return (x.exponent === -149 && bitLength(x.significand) < 24) || (x.exponent === -1074 && bitLength(x.significand) < 53);
}

/**
 * ml_dtypes' float32 → float8_e8m0fnu cast: 0, negatives, ±∞ and NaN give 0xFF; rounding is to nearest with ties
 * away from zero (the kept bit is the implicit 1); below 2^−126 the cast rounds as if code 0 were zero
 * (x ≤ 2^−127 → 0x00, 2^−127 < x < 2^−126 → 0x01); x ≥ 1.5·2^127 → 0xFF.
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
