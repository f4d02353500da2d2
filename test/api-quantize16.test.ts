// quantize from 16-bit input: every binary16 and every bfloat16 bit pattern (a Uint16Array with options.from, or a
// Float16Array where the runtime has one) into each 8-bit ml_dtypes format and P3109 formats equals the exact
// reference (the TypeScript projection, kernels off) on the same values as float32 — NaN signs and payloads
// included, which a float64 round trip through JavaScript numbers would lose.
import { afterEach, describe, expect, it } from "vitest";
import { ArgumentTypeError, dequantize, format, quantize, registeredNames, useKernels } from "../src/index.js";

const ALL = Uint16Array.from({ length: 65536 }, (_, c) => c);
const TARGETS = [...registeredNames().filter((n) => format(n).K <= 8 && format(n).name === n), "Binary8p3se", "Binary8p5uf", "Binary6p3sf"];

afterEach(() => useKernels(true));

describe("quantize from binary16 and bfloat16 bits", () => {
  for (const from of ["float16", "bfloat16"] as const) {
    it(`every ${from} pattern into ${TARGETS.length} formats equals the exact reference on the same values`, () => {
      const values = dequantize(ALL, from === "float16" ? "binary16" : "bfloat16");
      for (const target of TARGETS) {
        for (const options of [{}, { saturation: "SatFinite" as const }, { rounding: "TowardZero" as const }]) {
          const got = quantize(ALL, target, { ...options, from });
          useKernels(false);
          const want = quantize(values, target, options);
          useKernels(true);
          expect({ target, options, same: Buffer.compare(Buffer.from(got.buffer), Buffer.from(want.buffer)) === 0 }).toEqual({ target, options, same: true });
        }
      }
    });
  }

  it("refuses a Uint16Array without from, and from with another array", () => {
    expect(() => quantize(ALL as never, "float8_e4m3fn")).toThrow(ArgumentTypeError);
    expect(() => quantize(new Float32Array(2), "float8_e4m3fn", { from: "float16" })).toThrow(
      /src: got Float32Array\(2\); allowed: a Uint16Array of float16 bits/,
    );
    expect(() => quantize(ALL, "float8_e4m3fn", { from: "float32" as never })).toThrow(/options\.from: got "float32"; allowed: float16 or bfloat16/);
  });
});
