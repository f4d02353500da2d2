// Format and projection queries (P3109 §4.14, §4.15) for P3109 and the external formats of §4.8.
// Code-valued queries return a code of the queried format (a bigint for binary64, whose codes exceed 2^53).
import type { ResolvedProjection, Rounding, Saturation } from "../exact/projection.js";
import type { Format, Domain, Signedness } from "../format/model.js";

export const FORMAT_QUERIES = [
  "BitwidthOf",
  "PrecisionOf",
  "SignednessOf",
  "DomainOf",
  "ExponentBitwidthOf",
  "TrailingSignificandBitwidthOf",
  "ExponentBiasOf",
  "MaxFiniteOf",
  "MinFiniteOf",
  "MinPositiveOf",
  "MaxSubnormalOf",
  "MinNormalOf",
] as const;
export type FormatQuery = (typeof FORMAT_QUERIES)[number];
export type QueryResult = number | bigint | Signedness | Domain;

/** binary64 codes as bigints: the number-based layout constants of Format are not exact at 64 bits. */
function binary64Query(q: FormatQuery): bigint {
  const signBit = 1n << 63n;
  const maxFinite = 0x7fefffffffffffffn;
  switch (q) {
    case "MaxFiniteOf":
      return maxFinite;
    case "MinFiniteOf":
      return maxFinite | signBit;
    case "MinPositiveOf":
      return 1n;
    case "MaxSubnormalOf":
      return (1n << 52n) - 1n;
    default:
      return 1n << 52n; // MinNormalOf
  }
}

/** §4.14: the value of query q for format f. */
export function formatQuery(q: FormatQuery, f: Format): QueryResult {
  switch (q) {
    case "BitwidthOf":
      return f.K;
    case "PrecisionOf":
      return f.P;
    case "SignednessOf":
      return f.signedness;
    case "DomainOf":
      return f.domain;
    case "ExponentBitwidthOf":
      return f.exponentBits; // K − P signed, K − P + 1 unsigned (report table; not the formal spec's K − P − 1)
    case "TrailingSignificandBitwidthOf":
      return f.trailingBits;
    case "ExponentBiasOf":
      return f.bias;
  }
  if (f.K === 64) return binary64Query(q);
  switch (q) {
    case "MaxFiniteOf":
      return f.maxFiniteCode;
    case "MinFiniteOf":
      return f.minFiniteCode; // −MaxFinite (signed), 0 (unsigned)
    case "MinPositiveOf":
      return f.minPositiveCode;
    case "MaxSubnormalOf":
      return f.maxSubnormalCode; // NaN when the format has no subnormals (P = 1)
    case "MinNormalOf":
      return f.minNormalCode;
  }
}

/** §4.15 RoundOf(ρ). */
export function RoundOf(rho: ResolvedProjection): Rounding {
  return rho.rounding;
}

/** §4.15 SatOf(ρ). */
export function SatOf(rho: ResolvedProjection): Saturation {
  return rho.saturation;
}
