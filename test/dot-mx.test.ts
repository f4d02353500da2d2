// Dot products of MX tensors: quantizeBlocks codes and E8M0 scales go straight into matmul (per row and block
// scales), and the exact mode equals the exact dot product of the dequantized tensors, rounded once to binary32.
import { describe, expect, it } from "vitest";
import { dequantizeBlocks, quantizeBlocks } from "../src/block/index.js";
import { matmul } from "../src/dot/index.js";
import { mix32 } from "../src/random.js";

function values(n: number, seed: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => (mix32(seed * 7919 + i) / 2 ** 32 - 0.5) * 2 ** ((mix32(i + seed) % 12) - 6));
}

describe("MX tensors in matmul", () => {
  it("mxfp8_e4m3 codes with per-block scales: exact mode = fround(Σ dequantized products)", () => {
    const m = 3,
      n = 2,
      k = 64;
    const A = quantizeBlocks(values(m * k, 1), "mxfp8_e4m3", { blockSize: 16 });
    const B = quantizeBlocks(values(n * k, 2), "mxfp8_e4m3", { blockSize: 16 });
    const C = matmul(A.elements, B.elements, m, n, k, {
      formats: "E4M3",
      partials: "binary32",
      overflow: "exact",
      blockSize: 16,
      scales: { a: A.scales, b: B.scales },
    });
    const da = dequantizeBlocks(A);
    const db = dequantizeBlocks(B);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        // 4-bit significands times powers of two within ±2^−20…2^3: the float64 sum of 64 products is exact.
        let exact = 0;
        for (let t = 0; t < k; t++) exact += da[i * k + t]! * db[j * k + t]!;
        expect(C[i * n + j]).toBe(Math.fround(exact));
      }
    }
  });
  it("with binary16 partials the same scaled blocks are projected block by block (OvSAT keeps them finite)", () => {
    const m = 2,
      n = 2,
      k = 32;
    const big = values(m * k, 3).map((v) => v * 2 ** 20);
    const A = quantizeBlocks(big, "mxfp8_e4m3", { blockSize: 16 });
    const B = quantizeBlocks(values(n * k, 4), "mxfp8_e4m3", { blockSize: 16 });
    const sat = matmul(A.elements, B.elements, m, n, k, { formats: "E4M3", partials: "binary16", overflow: "OvSAT", scales: { a: A.scales, b: B.scales } });
    const inf = matmul(A.elements, B.elements, m, n, k, { formats: "E4M3", partials: "binary16", overflow: "OvINF", scales: { a: A.scales, b: B.scales } });
    for (let i = 0; i < m * n; i++) {
      expect(Math.abs(sat[i]!)).toBeLessThanOrEqual(65504);
      if (Number.isFinite(inf[i]!)) expect(inf[i]).toBe(sat[i]);
    }
    expect(inf.some((v) => !Number.isFinite(v))).toBe(true);
  });
});
