// ωProject as the report defines it (project.ts) and the library casts around it (cast.ts): on P3109 formats the
// cast adds nothing; on vendor formats it differs exactly where the format's cast policy says so.
import { describe, expect, it } from "vitest";
import { projectBig } from "../src/exact/cast.js";
import { decodeExact } from "../src/exact/decode.js";
import { SATURATE_RESULTS, projectP3109, roundToPrecision, saturate } from "../src/exact/project.js";
import { ROUNDINGS, SATURATIONS, isStochastic, resolveProjection } from "../src/exact/projection.js";
import { NEG_INF, POS_INF, fromNumber, type Exact } from "../src/exact/value.js";
import { format } from "../src/format/registry.js";

const binary16 = format("binary16");
const INPUTS: Exact[] = [POS_INF, NEG_INF, fromNumber(-0), fromNumber(1e30), fromNumber(-1e30), fromNumber(1e-30), fromNumber(-1e-30)];
for (let c = 0; c < binary16.codeCount; c += 149) INPUTS.push(decodeExact(c, binary16));

describe("projectP3109 and the cast", () => {
  it("agree on P3109 formats for every rounding, saturation and datum convention", () => {
    const mismatches: string[] = [];
    for (const name of ["Binary8p3se", "Binary8p1ue", "Binary5p2sf", "Binary6p4uf", "Binary3p1uf", "Binary10p9se"]) {
      const f = format(name);
      for (const rounding of ROUNDINGS) {
        for (const saturation of SATURATIONS) {
          for (const datums of ["IEEE", "P3109"] as const) {
            const rho = resolveProjection(f, { rounding, saturation, ...(isStochastic(rounding) && { stochasticBits: 3 }) }, "options", datums);
            for (const [i, x] of INPUTS.entries()) {
              const R = isStochastic(rounding) ? i % 8 : 0;
              if (projectBig(x, f, rho, R) !== projectP3109(x, f, rho, R)) mismatches.push(`${name} ${rounding} ${saturation} ${datums} input ${i}`);
            }
          }
        }
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it("every rule number has a result and NaN is rule 1", () => {
    expect(SATURATE_RESULTS).toHaveLength(26);
    const f = format("Binary8p3se");
    const rho = resolveProjection(f, undefined);
    expect(saturate(f, "SatNone", "NearestTiesToEven", roundToPrecision(fromNumber(NaN), f, rho))).toBe(1);
    expect(saturate(f, "SatNone", "TowardZero", roundToPrecision(fromNumber(1e9), f, rho))).toBe(19);
  });

  it("vendor policies differ from the report's projection where they say so", () => {
    const e4m3fn = format("float8_e4m3fn");
    const rho = resolveProjection(e4m3fn, { rounding: "NearestTiesToEven", saturation: "SatNone" });
    // OCP FN: a SatNone overflow is NaN; P3109 v4.0 clamps (rule 25).
    expect(projectBig(fromNumber(1e9), e4m3fn, rho)).toBe(BigInt(e4m3fn.nanCode));
    expect(projectP3109(fromNumber(1e9), e4m3fn, rho)).toBe(BigInt(e4m3fn.maxFiniteCode));
    // IEEE sign keeping: −0 survives a vendor cast, not the report's projection.
    expect(projectBig(fromNumber(-0), e4m3fn, rho)).toBe(0x80n);
    expect(projectP3109(fromNumber(-0), e4m3fn, rho)).toBe(0n);
  });
});
