// Every transcendental row of the exhaustive unary golden tables (P3109 v4.0 `spec`), formats of the first half.
import { describe, expect, it } from "vitest";
import { checkUnary, unaryFiles } from "./ops-transcendental-golden.js";

const FILES = unaryFiles((n) => !n.startsWith("stochastic_") && !n.includes("_to_"));
const HALF = FILES.slice(0, Math.ceil(FILES.length / 2));

describe("transcendental ops, exhaustive unary tables (first half of the formats)", () => {
  it("covers the expected containers", () => {
    expect(FILES.length).toBe(36);
  });
  for (const name of HALF) {
    it(`${name}: 25 ops × every code × 18 projections`, () => {
      const r = checkUnary(name);
      expect(r.ops.length).toBe(25);
      expect(r.mismatches).toEqual([]);
      expect(r.checked % (25 * 18)).toBe(0);
      expect(r.checked).toBeGreaterThanOrEqual(25 * 16 * 18);
    });
  }
});
