// Hand-checked P3109 operation vectors and the validation contract of specialize().
import { describe, expect, it } from "vitest";
import { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError } from "../src/errors.js";
import { specialize } from "../src/ops/index.js";

const p3 = "Binary8p3se";
const p4 = "Binary8p4se";

describe("hand-checked P3109 operation vectors", () => {
  it("FMA<Binary8p3se ×4>(0x1e, 0x7e, 0x01) is 0x5d (160): exact X·Y+Z, one rounding", () => {
    const fma = specialize("FMA", { operands: [p3, p3, p3], result: p3 });
    expect(fma(0x1e, 0x7e, 0x01)).toBe(0x5d);
  });
  it("Add<Binary8p3se>(1, 2^-17): RNE 0x40, TowardPositive 0x41", () => {
    expect(specialize("Add", { operands: [p3, p3], result: p3 })(0x40, 0x01)).toBe(0x40);
    expect(specialize("Add", { operands: [p3, p3], result: p3, rounding: "TowardPositive" })(0x40, 0x01)).toBe(0x41);
  });
  it("Multiply<Binary8p4se>(224, 2): SatNone +Inf 0x7f, SatFinite 0x7e", () => {
    expect(specialize("Multiply", { operands: [p4, p4], result: p4 })(0x7e, 0x48)).toBe(0x7f);
    expect(specialize("Multiply", { operands: [p4, p4], result: p4, saturation: "SatFinite" })(0x7e, 0x48)).toBe(0x7e);
  });
  it("x/0 = NaN for every x, 1/+Inf = 0, Recip(0) = NaN, Recip(±Inf) = 0, RSqrt(0) = NaN, Hypot(NaN, +Inf) = NaN", () => {
    const div = specialize("Divide", { operands: [p4, p4], result: p4 });
    for (let x = 0; x < 256; x++) expect(div(x, 0)).toBe(0x80);
    expect(div(0x40, 0x7f)).toBe(0x00);
    const recip = specialize("Recip", { operands: [p4], result: p4 });
    expect([recip(0), recip(0x7f), recip(0xff)]).toEqual([0x80, 0, 0]);
    expect(specialize("RSqrt", { operands: [p4], result: p4 })(0)).toBe(0x80);
    expect(specialize("Hypot", { operands: [p4, p4], result: p4 })(0x80, 0x7f)).toBe(0x80);
  });
  it("NextGreaterThan / NextLessThan of Binary8p4se and Binary4p2sf", () => {
    const ngt = specialize("NextGreaterThan", { operands: [p4] });
    const nlt = specialize("NextLessThan", { operands: [p4] });
    expect([0x00, 0x7e, 0x7f, 0x80, 0x81, 0x85, 0xfe, 0xff].map((c) => ngt(c))).toEqual([0x01, 0x7f, 0x80, 0x80, 0x00, 0x84, 0xfd, 0xfe]);
    expect([0x00, 0x01, 0x7f, 0x81, 0xfe, 0xff].map((c) => nlt(c))).toEqual([0x81, 0x00, 0x7e, 0x82, 0xff, 0x80]);
    expect(specialize("NextGreaterThan", { operands: ["Binary4p2sf"] })(0x7)).toBe(0x8);
    expect(specialize("NextLessThan", { operands: ["Binary8p1uf"] })(0x00)).toBe(0xff);
  });
  it("min/max: MinimumNumber(NaN, 2) = 2, Minimum(NaN, 2) = NaN, MaximumFinite(+Inf, 3) = 3, MaxMag(−Inf, +Inf) = +Inf", () => {
    const op = (name: string) => specialize(name, { operands: [p4, p4], result: p4 });
    expect(op("MinimumNumber")(0x80, 0x48)).toBe(0x48);
    expect(op("Minimum")(0x80, 0x48)).toBe(0x80);
    expect(op("MaximumFinite")(0x7f, 0x4c)).toBe(0x4c);
    expect(op("MaximumFinite")(0x80, 0x7f)).toBe(0x7f);
    expect(op("MinimumMagnitude")(0xc8, 0x48)).toBe(0xc8);
    expect(op("MaximumMagnitude")(0xc8, 0x48)).toBe(0x48);
    expect(op("MaximumMagnitude")(0xff, 0x7f)).toBe(0x7f);
  });
  it("comparisons with NaN are false, TotalOrder puts NaN first, Class names", () => {
    expect(specialize("CompareEqual", { operands: [p4, p4] })(0x80, 0x80)).toBe(false);
    expect(specialize("CompareLess", { operands: [p4, p3] })(0x40, 0x41)).toBe(true);
    expect(specialize("TotalOrder", { operands: [p4, p4] })(0x80, 0xff)).toBe(true);
    expect(specialize("TotalOrder", { operands: [p4, p4] })(0xff, 0x80)).toBe(false);
    const cls = specialize("Class", { operands: [p4] });
    expect([0x80, 0xff, 0x81, 0x00, 0x08, 0x7f].map((c) => cls(c))).toEqual([
      "ClsNaN",
      "ClsNegativeInfinity",
      "ClsNegativeSubnormal",
      "ClsZero",
      "ClsPositiveNormal",
      "ClsPositiveInfinity",
    ]);
  });
  it("external formats as operands and results: IEEE −0 and NaN payloads normalise, binary64 codes are bigints", () => {
    const add = specialize("Add", { operands: ["binary32", p4], result: "binary64" });
    expect(add(0x3f800000, 0x40)).toBe(0x4000000000000000n);
    expect(specialize("IsSignMinus", { operands: ["binary32"] })(0x80000000)).toBe(false);
    expect(specialize("Convert", { operands: ["binary64"], result: p4 })(0x3fd5555555555555n)).toBe(0x33);
    expect(specialize("Negate", { operands: ["binary16"], result: "binary16" })(0x0000)).toBe(0x0000);
    expect(specialize("MaxFiniteOf", { operands: ["binary64"] })()).toBe(0x7fefffffffffffffn);
  });
  it("the transcendental ω-functions are in the catalogue (Exp<Binary8p4se>(1) = e → 0x4b, ArcTan2(0, −1) = π)", () => {
    expect(specialize("Exp", { operands: [p4], result: p4 })(0x40)).toBe(0x4b);
    expect(specialize("Exp", { operands: [p4], result: p4, rounding: "TowardZero" })(0x40)).toBe(0x4a);
    expect(specialize("ArcTan2", { operands: [p4, p4], result: p4 })(0x00, 0xc0)).toBe(0x4d); // π → 3.25
  });
  it("format and projection queries", () => {
    const q = (name: string, f: string) => specialize(name, { operands: [f] })();
    expect(q("ExponentBitwidthOf", p4)).toBe(4);
    expect(q("ExponentBitwidthOf", "binary32")).toBe(8);
    expect(q("MaxSubnormalOf", "Binary8p1uf")).toBe(0xff);
    expect(q("MinFiniteOf", p4)).toBe(0xfe);
    expect(q("SignednessOf", "Binary8p1uf")).toBe("Unsigned");
    expect(specialize("SatOf", { saturation: "SatFinite" })()).toBe("SatFinite");
  });
});

describe("specialize validation", () => {
  it("names the allowed operations, operand counts, formats, codes and projections", () => {
    expect(() => specialize("Plus", {})).toThrow(ArgumentTypeError);
    expect(() => specialize("Plus", {})).toThrow(/allowed: Convert, Negate/);
    expect(() => specialize("Add", { operands: [p4], result: p4 })).toThrow(CodeRangeError);
    expect(() => specialize("Add", { operands: [p4, "float8_e4m3fn"], result: p4 })).toThrow(FormatError);
    expect(() => specialize("Add", { operands: [p4, p4] })).toThrow(/needs a result format/);
    expect(() => specialize("IsZero", { operands: [p4], rounding: "TowardZero" })).toThrow(ProjectionError);
    expect(() => specialize("NextGreaterThan", { operands: ["binary16"] })).toThrow(FormatError);
    const add = specialize("Add", { operands: [p4, "Binary4p2sf"], result: p4 });
    expect(() => add(0x40, 16)).toThrow(/allowed: a Binary4p2sf code, an integer in \[0, 15\]/);
    expect(() => add(0x40)).toThrow(CodeRangeError);
    const sr = specialize("Add", { operands: [p4, p4], result: p4, rounding: "StochasticA", stochasticBits: 3 });
    expect(() => sr(0x40, 0x01)).toThrow(ProjectionError);
    expect(() => sr(0x40, 0x01, { random: 8 })).toThrow(/0 ≤ R < 2\^N = 8/);
    expect(sr(0x40, 0x01, { random: 7 })).toBe(0x40);
  });
});
