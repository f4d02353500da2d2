import { describe, expect, it } from "vitest";
import { getArray, parseHexFloat, readP3gv, readValueTable, sharedPath } from "./golden/reader.js";

describe("golden readers", () => {
  it("parses hex floats in every notation the golden files use", () => {
    expect(parseHexFloat("0x0.8p-16")).toEqual({ kind: "finite", sign: 1, significand: 8n, exponent: -20 });
    expect(parseHexFloat("-0x1.8p+1")).toEqual({ kind: "finite", sign: -1, significand: 0x18n, exponent: -3 });
    expect(parseHexFloat("0x1dp-3")).toEqual({ kind: "finite", sign: 1, significand: 0x1dn, exponent: -3 });
    expect(parseHexFloat("-Inf")).toEqual({ kind: "infinity", sign: -1 });
    expect(() => parseHexFloat("1.5")).toThrow(/not a hex float/);
  });
  it("reads a value table and a P3GV container", () => {
    const rows = readValueTable(sharedPath("golden", "p3109-value-tables", "Binary4p2sf.csv"));
    expect(rows.length).toBe(16);
    expect(rows[1]!.subnormal).toBe(true);
    const c = readP3gv(sharedPath("golden", "p3109-exhaustive", "binary", "Binary4p2sf.p3gv.gz"));
    expect(getArray(c, "arith").shape).toEqual([4, 16, 16, 18]);
  });
});
