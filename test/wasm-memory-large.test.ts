// Wasm memory beyond 2 GiB (wasm32 allows 4): the heap's whole-memory views and the parameter blocks written at
// addresses past 2^31 (unsigned shifts), so calls keep working, with the same results, once the memory has grown.
// Its own file: Wasm memory never shrinks, and the 2 GiB block is reserved, never touched.
import { describe, expect, it } from "vitest";
import { MiniFloatArray, allocBytes, allocCodes, allocFloat32, dequantize, matvec, quantize } from "../src/index.js";

describe("Wasm memory past 2 GiB", () => {
  it("quantize, dequantize, MiniFloatArray and matvec (parameters above 2^31) give the results they gave before", () => {
    const x = Float32Array.from({ length: 4096 }, (_, i) => Math.sin(i) * 100);
    const codes = quantize(x, "float8_e4m3fn");
    const values = dequantize(codes, "float8_e4m3fn");
    const a = codes.subarray(0, 64 * 32);
    const v = codes.subarray(0, 32);
    const y = matvec(a, v, 64, 32, { formats: "float8_e4m3fn" });
    const big = allocBytes(2 ** 31 + 2 ** 20);
    try {
      expect(big.array.buffer.byteLength).toBeGreaterThan(2 ** 31);
      expect(quantize(x, "float8_e4m3fn")).toEqual(codes);
      expect(dequantize(codes, "float8_e4m3fn")).toEqual(values);
      const m = MiniFloatArray.from(x, "float8_e4m3fn");
      expect(m.codes).toEqual(codes);
      m.free();
      // Operands and output in Wasm memory above 2^31: the dot kernel's parameter block lands there too.
      const [wa, wv, wy] = [allocCodes("float8_e4m3fn", a.length), allocCodes("float8_e4m3fn", v.length), allocFloat32(64)];
      expect(wa.array.byteOffset).toBeGreaterThan(2 ** 31);
      wa.array.set(a);
      wv.array.set(v);
      expect(matvec(wa.array as Uint8Array, wv.array as Uint8Array, 64, 32, { formats: "float8_e4m3fn", out: wy.array })).toEqual(y);
      for (const h of [wa, wv, wy]) h.free();
    } finally {
      big.free();
    }
    expect(quantize(x, "float8_e4m3fn")).toEqual(codes);
  });
});
