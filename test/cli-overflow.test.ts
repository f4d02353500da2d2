// The quantize report's "saturated" column: an input counts when its rounded value overflows (P3109 judges
// overflow after rounding), checked against the exact projection's overflow flag.
import { describe, expect, it } from "vitest";
import { decode } from "../src/api/scalar.js";
import { quantize } from "../src/api/bulk.js";
import { countOverflows, overflowLimit } from "../src/cli/overflow.js";
import { newFlags } from "../src/exact/cast.js";
import type { Rounding } from "../src/exact/projection.js";
import { format } from "../src/format/registry.js";

const DETERMINISTIC: Rounding[] = ["NearestTiesToEven", "NearestTiesToAway", "TowardZero", "TowardPositive", "TowardNegative", "ToOdd", "TowardMaxMagnitude"];
const FORMATS = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float6_e3m2fn", "Binary8p3se", "Binary8p4uf", "float8_e8m0fnu", "bfloat16", "Binary5p2sf"];

/** Values around MaxFinite: just above it, a quarter, half and a whole step above, and beyond. */
function probes(max: number, ulp: number): number[] {
  const around = [
    max,
    max * (1 + 2 ** -20),
    max + ulp / 4,
    max + ulp / 2,
    max + (ulp / 2) * (1 + 2 ** -20),
    max + ulp * 0.75,
    max + ulp,
    max + 2 * ulp,
    4 * max,
  ];
  return [...around, ...around.map((v) => -v)];
}

describe("overflowLimit equals the exact projection's overflow flag", () => {
  for (const name of FORMATS) {
    it(name, () => {
      const f = format(name);
      const max = Math.abs(decode(f.maxFiniteCode, f));
      const ulp = 2 ** Math.max(Math.floor(Math.log2(max)) - (f.P - 1), f.minQuantumExponent);
      for (const rounding of DETERMINISTIC) {
        const limits = [overflowLimit(f, rounding, false), overflowLimit(f, rounding, true)] as const;
        for (const v of probes(max, ulp)) {
          if (v < 0 && !f.signed) continue;
          const flags = newFlags();
          quantize(Float64Array.of(v), f, { rounding, saturation: "SatFinite", flags });
          expect({ name, rounding, v, overflow: countOverflows([v], limits[0], limits[1]) }).toEqual({ name, rounding, v, overflow: flags.overflow });
        }
      }
    });
  }

  it("scales the threshold exactly (an NVFP4-style scale s·T)", () => {
    const f = format("float4_e2m1fn");
    const limits = [overflowLimit(f, "NearestTiesToEven", false), overflowLimit(f, "NearestTiesToEven", true)] as const;
    const scale = 448 * Math.fround(1 / 2688);
    // 6·scale rounds to 6 (no overflow) and so does 6.99·scale; 7·scale is the tie, which E2M1 breaks to 8.
    expect(countOverflows([6 * scale, -6.99 * scale, 7 * scale, -7 * scale], limits[0], limits[1], scale)).toBe(2);
  });

  it("takes each block's own scale, a partial last block per row included, and never counts ±∞ or NaN", () => {
    const f = format("float4_e2m1fn");
    const limits = [overflowLimit(f, "NearestTiesToEven", false), overflowLimit(f, "NearestTiesToEven", true)] as const;
    // Two rows of 5 in blocks of 2: scales 1, 2, 4 per row (the last block holds one element), then 8, 16, 32.
    const x = [7, 6, 13, 14, -27, 0, 50, 100, 200, Infinity, NaN, -Infinity];
    const blocks = { rowLength: 5, blockSize: 2, scale: (b: number) => 2 ** b };
    // E2M1 overflows from 7·scale on (the tie rounds to 8). Row 0: 7 (scale 1) and 14 (scale 2) do, −27 (< 28) not;
    // row 1: 50 (< 56) and 100 (< 112) not, 200 does; +∞ is not counted.
    expect(countOverflows(x.slice(0, 10), limits[0], limits[1], blocks)).toBe(3);
    expect(countOverflows([Infinity, -Infinity, NaN], limits[0], limits[1])).toBe(0);
  });
});
