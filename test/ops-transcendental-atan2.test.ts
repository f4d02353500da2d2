// ArcTan2 and ArcTan2Pi over every code pair of the exhaustive binary golden tables (y = x_code axis,
// x = y_code axis), NearestTiesToEven × 3 saturation modes.
import { describe, expect, it } from "vitest";
import { checkBinaryAtan2 } from "./ops-transcendental-golden.js";

const FORMATS: [string, number][] = [
  ["Binary4p2sf", 16],
  ["Binary6p3sf", 64],
  ["Binary8p3se", 256],
  ["Binary8p4se", 256],
  ["Binary8p4uf", 256],
];

describe("ArcTan2 / ArcTan2Pi, exhaustive binary tables", () => {
  for (const [name, n] of FORMATS) {
    it(`${name}: every (y, x) pair × 3 projections`, () => {
      const r = checkBinaryAtan2(name);
      expect(r.ops).toEqual(["ArcTan2", "ArcTan2Pi"]);
      expect(r.mismatches).toEqual([]);
      expect(r.checked).toBe(2 * n * n * 3);
    });
  }
});
