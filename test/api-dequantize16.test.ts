// dequantize(codes, fmt, { to: "float16" | "bfloat16" }): every code of every ≤ 8-bit format and of the 16-bit
// formats, one rounding of its exact value into the target — checked against the exact projection and, where the
// value is exact in the target, against bit patterns computed here from the float64 value.
import { describe, expect, it } from "vitest";
import { ArgumentTypeError, CodeRangeError, decode, decodeExact, dequantize, encode, encodeExact, format } from "../src/index.js";
import { EIGHT_BIT_FORMATS } from "./format-lists.js";

const RNE = { rounding: "NearestTiesToEven", saturation: "SatNone" } as const;

const SMALL = EIGHT_BIT_FORMATS;
const WIDE = ["float16", "bfloat16", "Binary16p11se", "Binary16p8se", "Binary12p5se", "cfloat16_uhp"];

/** binary16 bits of a float64 value that binary16 holds exactly (sign, normal or subnormal, ±∞, NaN → quiet NaN). */
function binary16Bits(v: number): number {
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (Number.isNaN(v)) return 0x7e00;
  if (a === Number.POSITIVE_INFINITY) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | (a / 2 ** -24);
  const e = Math.floor(Math.log2(a));
  return sign | ((e + 15) << 10) | ((a / 2 ** e - 1) * 1024);
}
const exactInBinary16 = (v: number) =>
  Number.isNaN(v) ||
  !Number.isFinite(v) ||
  v === 0 ||
  (Math.abs(v) >= 2 ** -24 && Math.abs(v) <= 65504 && Number.isInteger(v / 2 ** Math.max(Math.floor(Math.log2(Math.abs(v))) - 10, -24)));

function allCodes(name: string): Uint8Array | Uint16Array {
  const f = format(name);
  return f.K <= 8 ? Uint8Array.from({ length: f.codeCount }, (_, c) => c) : Uint16Array.from({ length: f.codeCount }, (_, c) => c);
}

describe("dequantize into binary16 and bfloat16", () => {
  for (const [target, name] of [
    ["float16", "binary16"],
    ["bfloat16", "bfloat16"],
  ] as const) {
    it(`${target}: every code of ${SMALL.length} formats of ≤ 8 bits and of ${WIDE.join(", ")} equals the exact projection`, () => {
      for (const f of [...SMALL, ...WIDE]) {
        const codes = allCodes(f);
        const want = Uint16Array.from(codes, (c) => encodeExact(decodeExact(c, f), name, RNE));
        // The format's first call has fewer elements than codes: each element is converted, no table is built.
        const split = codes.length - 13;
        const head = Array.from(dequantize(codes.subarray(0, split), f, { to: target, bits: true }));
        // Then the table (the calls' elements reach the code count), and a short call through it.
        const got = dequantize(codes, f, { to: target, bits: true });
        expect(got).toBeInstanceOf(Uint16Array);
        expect({ f, got: Array.from(got) }).toEqual({ f, got: Array.from(want) });
        const tail = Array.from(dequantize(codes.subarray(split), f, { to: target, bits: true }));
        expect({ f, split: [...head, ...tail] }).toEqual({ f, split: Array.from(want) });
      }
    });
  }

  it("repeated short calls convert each element until their elements add up to the code count, then use the table", () => {
    for (const [f, step] of [
      ["float8_e5m2", 7],
      ["bfloat16", 4099],
    ] as const) {
      const codes = allCodes(f);
      const want = Array.from(codes, (c) => encodeExact(decodeExact(c, f), "binary16", RNE));
      const got: number[] = [];
      // Wraps around the codes twice: calls before and after the crossover, one of them across it.
      for (let at = 0; at < 2 * codes.length; at += step) {
        const part = Uint16Array.from({ length: step }, (_, i) => codes[(at + i) % codes.length]!);
        const view = f === "bfloat16" ? part : Uint8Array.from(part);
        got.push(...dequantize(view, f, { to: "float16", bits: true }));
      }
      expect(got.every((bits, i) => bits === want[i % codes.length])).toBe(true);
    }
  });

  it("agrees with bit patterns computed from the value wherever binary16 holds it exactly", () => {
    let checked = 0;
    for (const f of SMALL) {
      const codes = allCodes(f);
      const got = dequantize(codes, f, { to: "float16", bits: true }) as Uint16Array;
      codes.forEach((c, i) => {
        const v = decode(c, f);
        if (Number.isNaN(v) || !exactInBinary16(v)) return;
        expect({ f, c, bits: got[i] }).toEqual({ f, c, bits: binary16Bits(v) });
        checked++;
      });
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it("rounds to nearest, ties to even, where the target lacks the precision or the range", () => {
    // Binary16p12se has one more significand bit than binary16: its odd values are ties, which go to the even neighbour.
    const f = format("Binary16p12se");
    const codes = Uint16Array.from([1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 5 * 2 ** -11], (v) => encode(v, f));
    expect(Array.from(codes, (c) => decode(c, f))).toEqual([1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 5 * 2 ** -11]);
    expect(Array.from(dequantize(codes, f, { to: "float16", bits: true }))).toEqual([0x3c00, 0x3c02, 0x3c02]);
    expect(dequantize(Uint16Array.of(0x7f7f), "bfloat16", { to: "float16", bits: true })[0]).toBe(0x7c00); // 3.39e38 → +∞
  });

  it("returns a Uint16Array where the runtime has no Float16Array, takes out arrays, and refuses bad options", () => {
    const codes = Uint8Array.of(0x38, 0xb8, 0x7f);
    const hasF16 = typeof (globalThis as { Float16Array?: unknown }).Float16Array === "function";
    const plain = dequantize(codes, "float8_e4m3fn", { to: "float16" });
    expect(plain.constructor.name).toBe(hasF16 ? "Float16Array" : "Uint16Array");
    const out = new Uint16Array(3);
    expect(dequantize(codes, "float8_e4m3fn", { to: "bfloat16", out })).toBe(out);
    expect(Array.from(out)).toEqual([0x3f80, 0xbf80, 0x7fc0]);
    expect(() => dequantize(codes, "float8_e4m3fn", { to: "bfloat16", out: new Float32Array(3) as never })).toThrow(ArgumentTypeError);
    expect(() => dequantize(codes, "float8_e4m3fn", { to: "float16", out: new Uint16Array(2) })).toThrow(CodeRangeError);
    expect(() => dequantize(codes, "float8_e4m3fn", { to: "float8" as never })).toThrow(/options\.to: got "float8"; allowed: float32, float16 or bfloat16/);
    expect(() => dequantize(Uint8Array.of(0x10), "float4_e2m1fn", { to: "float16" })).toThrow(CodeRangeError);
  });
});
