// Projection options: the rounding and saturation vocabulary of P3109 §4.7.3–§4.7.5 and §4.15, validated once.
import { ProjectionError, describe } from "../errors.js";
import type { Format } from "../format/model.js";

export const ROUNDINGS = [
  "NearestTiesToEven",
  "NearestTiesToAway",
  "TowardPositive",
  "TowardNegative",
  "TowardZero",
  "ToOdd",
  "StochasticA",
  "StochasticB",
  "StochasticC",
  // Not in Interim Report v4.0: the older draft's mode (round away from zero when inexact), kept for the
  // reference's conformance vectors; treated as non-directed by saturation.
  "TowardMaxMagnitude",
] as const;
export type Rounding = (typeof ROUNDINGS)[number];

export const SATURATIONS = ["SatFinite", "SatPropagate", "SatNone"] as const;
export type Saturation = (typeof SATURATIONS)[number];

export type StochasticRounding = "StochasticA" | "StochasticB" | "StochasticC";

/** What callers pass. Omitted fields take the format's defaults (P3109: NearestTiesToEven, SatNone). */
export interface Projection {
  rounding?: Rounding;
  saturation?: Saturation;
  /** N, the number of random bits of the stochastic modes (1 ≤ N ≤ 32). */
  stochasticBits?: number;
  /** R for a scalar stochastic encode: an integer 0 ≤ R < 2^N. */
  random?: number;
}

/**
 * A validated projection ρ. `vendor` selects a library's own cast where the format defines one and the caller
 * asked for the default (ml_dtypes' float8_e8m0fnu rounding).
 */
export interface ResolvedProjection {
  readonly rounding: Rounding;
  readonly saturation: Saturation;
  readonly stochasticBits: number;
  readonly vendor: "none" | "ml_dtypes_e8m0";
  /**
   * "IEEE": −0 and the sign (and payload) of NaN survive in formats that have them — conversions of IEEE values,
   * ml_dtypes and ONNX casts. "P3109": results are P3109 datums (§3.1: no −0, one NaN), as every P3109 operation
   * and ωProject of an exact real produce.
   */
  readonly datums: "IEEE" | "P3109";
}

export function isStochastic(r: Rounding): r is StochasticRounding {
  return r === "StochasticA" || r === "StochasticB" || r === "StochasticC";
}

/** Validates options against the format; throws ProjectionError naming the offending field. */
export function resolveProjection(f: Format, options: Projection | undefined, where = "options", datums: "IEEE" | "P3109" = "IEEE"): ResolvedProjection {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ProjectionError(where, `got ${describe(options)}; allowed: an object { rounding?, saturation?, stochasticBits?, random? }`);
  }
  const o = options ?? {};
  const isDefault = o.rounding === undefined && o.saturation === undefined;
  const rounding = o.rounding ?? "NearestTiesToEven";
  if (!(ROUNDINGS as readonly string[]).includes(rounding)) {
    throw new ProjectionError(`${where}.rounding`, `got ${describe(rounding)}; allowed: ${ROUNDINGS.join(", ")}`);
  }
  const saturation = o.saturation ?? (f.policy.defaultProjection === "Tesla" ? "SatFinite" : "SatNone");
  if (!(SATURATIONS as readonly string[]).includes(saturation)) {
    throw new ProjectionError(`${where}.saturation`, `got ${describe(saturation)}; allowed: ${SATURATIONS.join(", ")}`);
  }
  let stochasticBits = 0;
  if (isStochastic(rounding)) {
    const n = o.stochasticBits;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 32) {
      throw new ProjectionError(`${where}.stochasticBits`, `got ${describe(n)}; allowed: an integer N in [1, 32] for ${rounding}`);
    }
    stochasticBits = n;
  } else if (o.stochasticBits !== undefined) {
    throw new ProjectionError(`${where}.stochasticBits`, `only allowed with StochasticA, StochasticB or StochasticC (rounding is ${rounding})`);
  }
  const vendor = isDefault && f.policy.defaultProjection === "ml_dtypes_e8m0" ? "ml_dtypes_e8m0" : "none";
  return { rounding, saturation, stochasticBits, vendor, datums };
}

/** Validates a scalar random value R against N (P3109 §4.7.4: 0 ≤ R < 2^N). */
export function requireRandom(rho: ResolvedProjection, random: unknown, where = "options.random"): number {
  if (!isStochastic(rho.rounding)) {
    if (random !== undefined) throw new ProjectionError(where, `only allowed with a stochastic rounding (rounding is ${rho.rounding})`);
    return 0;
  }
  const limit = 2 ** rho.stochasticBits;
  if (typeof random !== "number" || !Number.isInteger(random) || random < 0 || random >= limit) {
    throw new ProjectionError(where, `got ${describe(random)}; allowed: an integer R with 0 ≤ R < 2^N = ${limit}`);
  }
  return random;
}
