// Format-bound constructors: Float8E4M3FNArray, BFloat16Array, … and miniFloatArrayType(fmt).
import { describe, expect, it } from "vitest";
import {
  BFloat16Array,
  FormatError,
  Float4E2M1FNArray,
  Float6E2M3FNArray,
  Float6E3M2FNArray,
  Float8E4M3FNArray,
  Float8E4M3FNUZArray,
  Float8E5M2Array,
  Float8E5M2FNUZArray,
  Float8E8M0FNUArray,
  MiniFloatArray,
  format,
  miniFloatArrayType,
  packCodes,
  quantize,
} from "../src/index.js";

const BOUND = [
  [Float8E4M3FNArray, "float8_e4m3fn", 1],
  [Float8E5M2Array, "float8_e5m2", 1],
  [Float8E4M3FNUZArray, "float8_e4m3fnuz", 1],
  [Float8E5M2FNUZArray, "float8_e5m2fnuz", 1],
  [Float8E8M0FNUArray, "float8_e8m0fnu", 1],
  [Float6E3M2FNArray, "float6_e3m2fn", 1],
  [Float6E2M3FNArray, "float6_e2m3fn", 1],
  [Float4E2M1FNArray, "float4_e2m1fn", 1],
  [BFloat16Array, "bfloat16", 2],
] as const;

const x = new Float32Array([0.75, -3, 1e-2, 240, Number.NaN, -0, 5]);

describe.each(BOUND)("%o", (Type, name, bytes) => {
  it(`is bound to ${name}: new, from, fromCodes, instanceof`, () => {
    expect(Type.format.name).toBe(format(name).name);
    expect(Type.BYTES_PER_ELEMENT).toBe(bytes);
    expect(Type.name).toBe(`MiniFloatArray<${Type.format.name}>`);
    const a = new Type(4);
    expect(a).toBeInstanceOf(MiniFloatArray);
    expect(a).toBeInstanceOf(Type);
    expect(a.format).toBe(Type.format);
    expect(Array.from(a.codes)).toEqual([0, 0, 0, 0]);
    const b = Type.from(x);
    expect(Array.from(b.codes)).toEqual(Array.from(quantize(x, name)));
    const sat = Type.from(x, { saturation: "SatFinite" });
    expect(Array.from(sat.codes)).toEqual(Array.from(quantize(x, name, { saturation: "SatFinite" })));
    const c = Type.fromCodes(b.codes);
    expect(Array.from(c.codes)).toEqual(Array.from(b.codes));
    const made = [b.subarray(1), b.slice(2), MiniFloatArray.from(x, name)];
    for (const m of made) expect(m).toBeInstanceOf(Type);
    const other = BOUND.find(([, n]) => n !== name)![0];
    expect(a).not.toBeInstanceOf(other);
    expect({ format: Type.format }).not.toBeInstanceOf(Type);
    for (const v of [a, b, sat, c, ...made]) v.free();
  });
});

describe("miniFloatArrayType", () => {
  it("binds any format by name or value, P3109 included", () => {
    const Binary8p3se = miniFloatArrayType("Binary8p3se");
    const a = new Binary8p3se(3);
    expect(a.format.name).toBe("Binary8p3se");
    expect(a).toBeInstanceOf(miniFloatArrayType(format("binary8p3se")));
    const b = MiniFloatArray.from([1, 2], "Binary8p3se");
    expect(b).toBeInstanceOf(Binary8p3se);
    a.free();
    b.free();
    expect(() => miniFloatArrayType("Binary8p9se")).toThrow(FormatError);
  });

  it("fromPacked of FP4/FP6 types reads the packCodes layout", () => {
    const codes = quantize(x, "float4_e2m1fn") as Uint8Array;
    const a = Float4E2M1FNArray.fromPacked(packCodes(codes, 4), x.length);
    expect(Array.from(a.codes)).toEqual(Array.from(codes));
    a.free();
  });
});
