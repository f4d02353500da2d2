// κ (§4.4, Annex D): measureKappa's three outcomes on synthetic approximations, pieces, and the measured κ of the
// published ExpFast / SqrtFast approximations.
import { describe, expect, it } from "vitest";
import { FormatError } from "../src/errors.js";
import { approximate, approximationNames, kappaOf, measureKappa, specialize } from "../src/p3109.js";

const f = "Binary8p4se";
const sqrt = specialize("Sqrt", { operands: [f], result: f });

describe("measureKappa", () => {
  it("is 0 for the exact operation itself", () => {
    expect(measureKappa((x) => sqrt(x) as number, sqrt)).toMatchObject({ kappa: 0, count: 256 });
  });

  it("counts representable values between â and ã (counting ã, not â), across zero by value order", () => {
    // ã = two codes above â for positive finite results (0x40 → 0x42), and −MinPositive instead of 0.
    const approx = (x: number): number => {
      const r = sqrt(x) as number;
      if (r === 0) return 0x81;
      return r > 0 && r < 0x7d ? r + 2 : r;
    };
    const k = measureKappa(approx, sqrt);
    expect(k.kappa).toBe(2);
    expect(k.witness).toEqual({ operands: [0x01], exact: 0x18, approximate: 0x1a }); // first maximum: √(2^-10) = 2^-5
  });

  it("is NaN when NaN-ness differs anywhere, even if infinities also mismatch", () => {
    const approx = (x: number): number => (x === 0x40 ? 0x80 : x === 0x7f ? 0x7e : (sqrt(x) as number));
    const k = measureKappa(approx, sqrt);
    expect(k.kappa).toBeNaN();
    expect(k.witness).toEqual({ operands: [0x40], exact: 0x40, approximate: 0x80 });
  });

  it("is Infinity when MatchOnInfinity fails (finite vs +Inf, or infinities of different sign)", () => {
    const k = measureKappa((x) => (x === 0x7f ? 0x7e : (sqrt(x) as number)), sqrt);
    expect(k.kappa).toBe(Infinity);
    expect(k.witness).toEqual({ operands: [0x7f], exact: 0x7f, approximate: 0x7e });
  });

  it("reports κ per piece of a disjoint cover", () => {
    const approx = (x: number): number => {
      const r = sqrt(x) as number;
      return x >= 0x40 && x < 0x7f ? r + 1 : r; // off by one for X ≥ 1
    };
    const k = measureKappa(approx, sqrt, {
      pieces: [
        { label: "[ -Inf, 1 )", contains: ([x]) => x!.kind !== "finite" || x!.sign < 0 || x!.exponent + x!.significand.toString(2).length - 1 < 0 },
        { label: "[ 1, Inf ]", contains: ([x]) => x!.kind === "finite" && x!.sign > 0 && x!.exponent + x!.significand.toString(2).length - 1 >= 0 },
      ],
    });
    expect(k.kappa).toBe(1);
    expect(k.pieces).toEqual([
      { label: "[ -Inf, 1 )", kappa: 0 },
      { label: "[ 1, Inf ]", kappa: 1 },
    ]);
  });

  it("rejects non-numeric specializations and too many operand tuples", () => {
    expect(() => measureKappa(() => 0, specialize("IsZero", { operands: [f] }) as never)).toThrow(FormatError);
    const wide = specialize("Add", { operands: ["Binary16p8se", "Binary16p8se"], result: f });
    expect(() => measureKappa(() => 0, wide)).toThrow(/at most 2\^24/);
  });
});

describe("ExpFast and SqrtFast", () => {
  it("are named differently from the exact operations and say what they approximate", () => {
    const a = approximate("ExpFast", { operands: [f], result: f });
    expect(a.signature).toBe("ExpFast<Binary8p4se, Binary8p4se, (NearestTiesToEven, SatNone)>");
    expect(a.approximates).toBe("Exp<Binary8p4se, Binary8p4se, (NearestTiesToEven, SatNone)>");
    expect(approximationNames()).toEqual(["ExpFast", "SqrtFast"]);
    expect(() => approximate("LogFast", { operands: [f], result: f })).toThrow(/allowed: ExpFast, SqrtFast/);
    expect(() => approximate("SqrtFast", { operands: ["Binary12p7se"], result: f })).toThrow(FormatError);
  });

  it("have small measured κ on every 8-bit conformance format and projection pair tried", () => {
    const results: Record<string, number> = {};
    for (const name of ["ExpFast", "SqrtFast"]) {
      for (const fmt of ["Binary8p3se", "Binary8p4se", "Binary8p5se", "Binary4p2sf"]) {
        for (const [rounding, saturation] of [
          ["NearestTiesToEven", "SatNone"],
          ["TowardZero", "SatFinite"],
          ["TowardPositive", "SatNone"],
        ] as const) {
          const a = approximate(name, { operands: [fmt], result: fmt, rounding, saturation });
          results[a.signature] = kappaOf(a).kappa;
        }
      }
    }
    for (const [sig, k] of Object.entries(results)) {
      expect(Number.isInteger(k), sig).toBe(true);
      expect(k, sig).toBeLessThanOrEqual(1);
    }
    // The values a directed rounding exposes: ExpFast's tiny results flush to 0 where Exp gives MinPositive.
    expect(results["ExpFast<Binary8p3se, Binary8p3se, (TowardPositive, SatNone)>"]).toBe(1);
  });

  it("map applies the 256-entry table", () => {
    const a = approximate("SqrtFast", { operands: [f], result: "binary16" });
    expect([...a.map(new Uint8Array([0x40, 0x50, 0x80]))]).toEqual([0x3c00, 0x4000, 0x7e00]);
  });
});
