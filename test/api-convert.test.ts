// convert(codes, from, to, projection?): every code of every registered ≤ 16-bit format and of the P3109 formats of
// ≤ 8 bits, into 16-bit and 8-bit targets under several projections, equals the exact projection of its exact value
// (encodeExact ∘ decodeExact, computed here per code, independently of the tables the library builds).
import { describe, expect, it } from "vitest";
import { ArgumentTypeError, CodeRangeError, convert, decodeExact, dequantize, encodeExact, format, registeredNames } from "../src/index.js";
import { EIGHT_BIT_FORMATS } from "./format-lists.js";

const SIXTEEN_BIT = [...registeredNames().filter((n) => format(n).K > 8 && format(n).K <= 16), "Binary16p11se", "Binary16p3ue", "Binary16p1sf", "Binary12p5se"];

function allCodes(name: string): Uint8Array | Uint16Array {
  const n = format(name).codeCount;
  return n <= 256 ? Uint8Array.from({ length: n }, (_, c) => c) : Uint16Array.from({ length: n }, (_, c) => c);
}

function expectExact(from: string, to: string, projection?: { rounding?: string; saturation?: string }): void {
  const codes = allCodes(from);
  const got = convert(codes, from, to, projection as never);
  const want = Array.from(codes, (c) => encodeExact(decodeExact(c, from), to, projection as never));
  expect({ from, to, projection, got: Array.from(got) }).toEqual({ from, to, projection, got: want });
  expect(got).toBeInstanceOf(format(to).K <= 8 ? Uint8Array : Uint16Array);
}

describe("convert between formats of at most 16 bits", () => {
  it("every code of every ≤ 8-bit format into binary16 and bfloat16 (default projection) is the exact projection", () => {
    for (const from of EIGHT_BIT_FORMATS) for (const to of ["binary16", "bfloat16"]) expectExact(from, to);
  });

  it("every 16-bit code, including formats whose values a float32 cannot hold, into 16-bit and 8-bit targets", () => {
    for (const from of SIXTEEN_BIT) {
      for (const to of [from === "binary16" ? "bfloat16" : "binary16", "float8_e4m3fn"]) expectExact(from, to);
    }
  });

  it("8-bit targets under directed roundings and every saturation mode", () => {
    for (const from of ["float8_e5m2", "float8_e4m3fn", "Binary8p4se", "float6_e3m2fn"]) {
      for (const rounding of ["NearestTiesToEven", "TowardZero", "TowardPositive", "NearestTiesToAway"]) {
        for (const saturation of ["SatFinite", "SatPropagate", "SatNone"]) {
          expectExact(from, "float4_e2m1fn", { rounding, saturation });
          expectExact(from, "Binary6p3sf", { rounding, saturation });
        }
      }
    }
    expectExact("bfloat16", "float8_e5m2", { rounding: "TowardNegative", saturation: "SatFinite" });
  });

  it("fp8 → binary16 is the same bits as dequantize to float16", () => {
    const codes = allCodes("float8_e4m3fn") as Uint8Array;
    expect(Array.from(convert(codes, "float8_e4m3fn", "binary16"))).toEqual(Array.from(dequantize(codes, "float8_e4m3fn", { to: "float16", bits: true })));
  });

  it("writes into a given out and returns it", () => {
    const out = new Uint8Array(4);
    const codes = new Uint16Array([0x3c00, 0x4000, 0xbc00, 0x7c00]);
    expect(convert(codes, "binary16", "float8_e4m3fn", { out })).toBe(out);
    expect(Array.from(out)).toEqual([0x38, 0x40, 0xb8, 0x7f]);
  });

  it("refuses what it cannot do, naming the argument", () => {
    const codes = new Uint8Array([1, 2]);
    expect(() => convert(codes, "float8_e4m3fn", "binary32")).toThrow(CodeRangeError);
    expect(() => convert(codes, "float8_e4m3fn", "binary32")).toThrow(/^to: /);
    // A stochastic rounding is refused as such, with or without its stochasticBits.
    for (const options of [{ rounding: "StochasticA", stochasticBits: 4 }, { rounding: "StochasticC" }]) {
      expect(() => convert(codes, "float8_e4m3fn", "binary16", options as never)).toThrow(
        new ArgumentTypeError(
          "options.rounding",
          `${options.rounding}: convert rounds through one table per code, so it takes no stochastic rounding; allowed: NearestTiesToEven, NearestTiesToAway, TowardPositive, TowardNegative, TowardZero, ToOdd, TowardMaxMagnitude (or dequantize, then quantize with a seed)`,
        ),
      );
    }
    expect(() => convert(codes, "float8_e4m3fn", "binary16", { out: new Uint8Array(2) })).toThrow(ArgumentTypeError);
    expect(() => convert(codes, "float8_e4m3fn", "binary16", { saturaton: "SatFinite" } as never)).toThrow(/did you mean "saturation"/);
    expect(() => convert(new Uint8Array([16]), "float4_e2m1fn", "binary16")).toThrow(/codes\[0\]/);
    expect(() => convert(codes, "nonsense", "binary16")).toThrow(/^from: |nonsense/);
  });
});
