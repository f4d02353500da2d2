// Every transcendental row of the stochastic unary golden tables: StochasticA/B/C × N ∈ {1, 3, 8} × 3 saturation
// modes, with the per-(op, code, pair) random value R of the table.
import { describe, expect, it } from "vitest";
import { checkUnary, unaryFiles } from "./ops-transcendental-golden.js";

const FILES = unaryFiles((n) => n.startsWith("stochastic_"));

describe("transcendental ops, stochastic unary tables", () => {
  it("covers the expected containers", () => {
    expect(FILES).toEqual(["stochastic_Binary8p3se", "stochastic_Binary8p4se", "stochastic_Binary8p4ue"]);
  });
  for (const name of FILES) {
    it(`${name}: 25 ops × every code × 27 stochastic columns`, () => {
      const r = checkUnary(name);
      expect(r.ops.length).toBe(25);
      expect(r.mismatches).toEqual([]);
      expect(r.checked).toBe(25 * 256 * 27);
    });
  }
});
