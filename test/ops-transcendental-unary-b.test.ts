// Every transcendental row of the exhaustive unary golden tables (P3109 v4.0 `spec`): the second half of the
// same-format tables and the four mixed-format tables <fx>_to_<fr>.
import { describe, expect, it } from "vitest";
import { checkUnary, unaryFiles } from "./ops-transcendental-golden.js";

const SAME = unaryFiles((n) => !n.startsWith("stochastic_") && !n.includes("_to_"));
const MIXED = unaryFiles((n) => n.includes("_to_"));

describe("transcendental ops, exhaustive unary tables (second half and mixed formats)", () => {
  it("covers the expected containers", () => {
    expect(MIXED).toEqual(["Binary8p3se_to_Binary8p4se", "Binary8p3se_to_Binary8p4uf", "Binary8p4se_to_Binary8p3se", "Binary8p4se_to_Binary8p3ue"]);
  });
  for (const name of [...SAME.slice(Math.ceil(SAME.length / 2)), ...MIXED]) {
    it(`${name}: 25 ops × every code × 18 projections`, () => {
      const r = checkUnary(name);
      expect(r.ops.length).toBe(25);
      expect(r.mismatches).toEqual([]);
      expect(r.checked).toBe(25 * 256 * 18);
    });
  }
});
