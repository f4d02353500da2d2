// Shared helpers of the ops-* tests: golden record access and mismatch reports.
import type { ROUNDINGS, SATURATIONS } from "../src/exact/projection.js";
import { type P3gv, getArray } from "./golden/reader.js";
import { TRANSCENDENTAL } from "../src/ops/transcendental/index.js";

/** Enumerations of golden/p3109-exhaustive/manifest.json. */
export const ROUND_ENUM = [
  "TowardZero",
  "TowardPositive",
  "TowardNegative",
  "NearestTiesToAway",
  "NearestTiesToEven",
  "ToOdd",
  "TowardMaxMagnitude",
  "StochasticA",
  "StochasticB",
  "StochasticC",
] as const;
export const SAT_ENUM = ["SatFinite", "SatPropagate", "SatNone"] as const;

/** The transcendental ω-functions (checked by the transcendental tests), skipped by these tests. */
export const TRANSCENDENTAL_NAMES: ReadonlySet<string> = new Set(Object.keys(TRANSCENDENTAL));

/** Collects mismatches (keeps the first few for the report, counts all). */
export class Mismatches {
  count = 0;
  checked = 0;
  readonly first: string[] = [];
  add(ok: boolean, what: () => string): void {
    this.checked++;
    if (ok) return;
    this.count++;
    if (this.first.length < 8) this.first.push(what());
  }
  summary(): { count: number; first: string[] } {
    return { count: this.count, first: this.first };
  }
}

/** Record table of a sampled/*.p3gv.gz container: field arrays by name. */
export function records(c: P3gv): Record<string, ArrayLike<number>> & { length: number } {
  const names = ["op", "combo", "x", "y", "z", "w", "round", "sat", "N", "R", "spec"];
  const out: Record<string, ArrayLike<number>> = {};
  for (const n of names) out[n] = getArray(c, n).data as ArrayLike<number>;
  return Object.assign(out, { length: out.op!.length });
}

export function projectionOf(
  round: number,
  sat: number,
  N: number,
): { rounding: (typeof ROUNDINGS)[number]; saturation: (typeof SATURATIONS)[number]; stochasticBits?: number } {
  const rounding = ROUND_ENUM[round]!;
  return { rounding, saturation: SAT_ENUM[sat]!, ...(rounding.startsWith("Stochastic") && { stochasticBits: N }) };
}
