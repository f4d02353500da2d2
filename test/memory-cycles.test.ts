// Wasm memory stays bounded under long runs of the functional API (JS arrays streamed through scratch, zero-copy
// handles, packed FP4/FP6, stochastic rounding) and of MiniFloatArray views (slices, subarrays, packed copies), under failing calls, and for inputs far larger than the scratch;
// requests beyond the 4 GiB wasm32 cap fail with CodeRangeError before any memory grows.
import { describe, expect, it } from "vitest";
import {
  CodeRangeError,
  MiniFloatArray,
  ProjectionError,
  allocBytes,
  allocCodes,
  allocFloat32,
  dequantize,
  dequantizePacked,
  packCodes,
  quantize,
  quantizePacked,
} from "../src/index.js";
import { memoryStats } from "../src/wasm/memory.js";

const x = Float32Array.from({ length: 40 }, (_, i) => Math.sin(i) * 2 ** ((i % 17) - 8));
const STOCHASTIC = { rounding: "StochasticB", stochasticBits: 6, seed: 9 } as const;

/** One cycle over every bulk entry point, alternating JS arrays and handles in Wasm memory. */
function cycle(i: number): void {
  const codes = quantize(x, "float8_e4m3fn");
  dequantize(codes, "float8_e4m3fn");
  quantize(x, "Binary8p3se", { ...STOCHASTIC, seed: i });
  dequantizePacked(quantizePacked(x, "float4_e2m1fn"), "float4_e2m1fn", x.length);
  packCodes(quantize(x, "float6_e3m2fn") as Uint8Array, 6);
  const input = allocFloat32(x.length);
  const output = allocCodes("bfloat16", x.length);
  input.array.set(x);
  quantize(input.array, "bfloat16", { out: output.array });
  input.free();
  output.free();
  const view = MiniFloatArray.from(x, "float6_e3m2fn", { rounding: "StochasticA", stochasticBits: 4, seed: i });
  view.slice(1, 9).free();
  view.subarray(2).toFloat32Array();
  MiniFloatArray.fromPacked(view.toPacked(), "float6_e3m2fn", view.length).free();
  view.free();
}

describe("Wasm memory over long runs", () => {
  it("10^5 cycles of the functional API and of MiniFloatArray views return every byte and never grow memory after warm-up", () => {
    for (let i = 0; i < 100; i++) cycle(i);
    const before = memoryStats();
    for (let i = 0; i < 100_000; i++) cycle(i);
    const after = memoryStats();
    expect(after.liveBytes).toBe(before.liveBytes);
    expect(after.memoryBytes).toBe(before.memoryBytes);
    expect(after.topBytes).toBeLessThanOrEqual(before.topBytes);
  });

  it("3·10^3 rounds of failing calls (bad codes, bad random bits, bad lengths) leak nothing", () => {
    const bad = Uint8Array.from({ length: 5000 }, (_, i) => (i === 4321 ? 200 : i & 15));
    const random = new Uint8Array(x.length).fill(64);
    const handle = allocFloat32(40_000);
    const calls = () => {
      expect(() => dequantize(bad, "float4_e2m1fn")).toThrow(CodeRangeError);
      expect(() => packCodes(bad, 4)).toThrow("codes[4321]: is 200");
      expect(() => quantize(x, "Binary8p3se", { rounding: "StochasticA", stochasticBits: 6, random })).toThrow(ProjectionError);
      expect(() => quantize(handle.array, "float8_e5m2", { out: new Uint8Array(3) })).toThrow(CodeRangeError);
      expect(() => MiniFloatArray.fromCodes(bad, "float4_e2m1fn")).toThrow(CodeRangeError);
    };
    calls();
    const before = memoryStats();
    for (let i = 0; i < 3_000; i++) calls();
    handle.free();
    const after = memoryStats();
    expect(after.liveBytes).toBe(before.liveBytes - Math.ceil((40_000 * 4) / 64) * 64);
    expect(after.memoryBytes).toBe(before.memoryBytes);
  });

  it("streams JS arrays of 2^23 elements without growing Wasm memory", () => {
    const n = 2 ** 23;
    const big = new Float32Array(n).map((_, i) => (i % 1000) / 7);
    // Warm-up with more than one chunk: the scratch region reaches its full size, the decode tables exist.
    const warm = big.subarray(0, 70_000);
    dequantizePacked(quantizePacked(warm, "float4_e2m1fn", STOCHASTIC), "float4_e2m1fn", warm.length);
    dequantize(quantize(warm, "float8_e4m3fn"), "float8_e4m3fn");
    const before = memoryStats();
    const codes = quantize(big, "float8_e4m3fn");
    const values = dequantize(codes, "float8_e4m3fn");
    const packed = quantizePacked(big, "float4_e2m1fn", STOCHASTIC);
    const unpacked = dequantizePacked(packed, "float4_e2m1fn", n);
    expect(memoryStats()).toMatchObject({ memoryBytes: before.memoryBytes, liveBytes: before.liveBytes });
    expect([codes[n - 1], values[n - 1], unpacked.length]).toEqual([
      quantize(big.subarray(n - 1), "float8_e4m3fn")[0],
      dequantize(codes.subarray(n - 1), "float8_e4m3fn")[0],
      n,
    ]);
  });

  it("rejects requests beyond 4 GiB of Wasm memory before any growth", () => {
    const before = memoryStats();
    expect(() => allocFloat32(2 ** 30 + 1)).toThrow(/^n: is 1073741825 elements \(4294967300 bytes\); allowed: at most 4 GiB/);
    expect(() => allocBytes(2 ** 32 - 64)).toThrow(CodeRangeError);
    expect(() => new MiniFloatArray("bfloat16", 2 ** 31 + 1)).toThrow(CodeRangeError);
    expect(() => allocCodes("binary16", 2 ** 31)).toThrow(/allowed: at most 4 GiB/);
    expect(memoryStats()).toEqual(before);
  });
});
