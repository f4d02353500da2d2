// NVFP4 (the ratio scale rule) on the Wasm block kernel against the scalar reference, bit for bit: every E4M3 scale
// code × every E2M1 magnitude, threshold and tie (and their float32 neighbours) under several tensor scales; random
// blocks around every threshold with NaN/±∞, ±0, float32 subnormals, all-zero blocks and extreme tensor scales; block
// sizes that are not multiples of 16 and trailing partial blocks. Also fails if NVFP4 falls back to the reference.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BlockTensor, blockScheme, quantizeBlocks } from "../src/block/index.js";
import { planBlocks } from "../src/block/mx.js";
import { divisionHolds, kernelApplies, quantizeBlocksKernel } from "../src/block/wasm.js";
import { valueTableOrNaN } from "../src/exact/tables.js";
import { format } from "../src/index.js";
import { bitsToFloat, floatToBits, fuzzParameters } from "./fuzz-arbitraries.js";
import { onReference } from "./kernel-switch.js";

const E2M1 = valueTableOrNaN(format("float4_e2m1fn"));
const E4M3 = format("float8_e4m3fn");
const SCALES = valueTableOrNaN(E4M3);
/** Magnitudes 0…6 of E2M1 and the midpoints between neighbours (the RNE thresholds; ties among them). */
const GRID = [...E2M1.slice(0, 8), ...E2M1.slice(0, 7).map((v, j) => (v + E2M1[j + 1]!) / 2)];
/** Tensor scales the kernel divides by (with S, divisionHolds), then ones it counts against thresholds for. */
const DIVIDING = [1, 2 ** -3, 2 ** -118, 2 ** 116];
const TENSOR_SCALES = [...DIVIDING, Math.fround(0.37), Math.fround(1 / 3), Math.fround(1e-30), Math.fround(2e30), 2 ** -149, bitsToFloat(0x7f7fffff)];

/** Kernel and reference results equal byte for byte (the first differing byte named on failure). */
function expectSame(src: Float32Array, scheme: Parameters<typeof quantizeBlocks>[1], options: Parameters<typeof quantizeBlocks>[2], what: string): BlockTensor {
  const fast = quantizeBlocks(src, scheme, options);
  const slow = onReference(() => quantizeBlocks(src, scheme, options));
  for (const key of ["scales", "elements"] as const) {
    const i = fast[key].findIndex((b, j) => b !== slow[key][j]);
    if (i >= 0) throw new Error(`${what}: ${key}[${i}]: kernel ${fast[key][i]} vs reference ${slow[key][i]}`);
  }
  expect(fast.tensorScale).toBe(slow.tensorScale);
  return slow;
}

/** float32 neighbours of v: v itself and d ulps either side (non-negative v). */
function around(v: number, d: number): number[] {
  const b = floatToBits(Math.fround(v));
  const out: number[] = [];
  for (let k = -d; k <= d; k++) if (b + k >= 0 && b + k <= 0x7f7fffff) out.push(bitsToFloat(b + k));
  return out;
}

describe("NVFP4 on the Wasm block kernel", () => {
  it("takes the kernel (no silent fallback to the reference) for every tensor scale and block size", () => {
    const src = new Float32Array(100).map((_, i) => (i - 50) / 7);
    for (const options of [{}, { tensorScale: "auto" as const }, { tensorScale: 2 ** -149 }, { blockSize: 32 }, { blockSize: 10 }, { blockSize: 2 }]) {
      const plan = planBlocks(src, blockScheme("nvfp4"), options);
      expect(kernelApplies(plan)).toBe(true);
      const B = plan.blockSize;
      expect(quantizeBlocksKernel(src, plan, new Uint8Array(Math.ceil(100 / B)), new Uint8Array(50))).toBeDefined();
    }
    // Declines what it does not compute: other roundings, and odd block sizes of a packed element (blocks would start mid-byte).
    expect(kernelApplies(planBlocks(src, blockScheme("nvfp4"), { rounding: "TowardZero" }))).toBe(false);
    expect(kernelApplies(planBlocks(src, blockScheme("nvfp4"), { blockSize: 15 }))).toBe(false);
  });

  it("divides by S·T where every midpoint times S·T is a normal float32, and counts against thresholds elsewhere", () => {
    const src = new Float32Array(16);
    const divides = (tensorScale: number) => divisionHolds(planBlocks(src, blockScheme("nvfp4"), { tensorScale }));
    expect(TENSOR_SCALES.filter(divides)).toEqual(DIVIDING);
    // 0.25·2^−6 (the smallest midpoint times the smallest normal scale) times T must stay normal, 5·448·T finite.
    expect(divides(2 ** -118)).toBe(true);
    expect(divides(2 ** -119)).toBe(false);
    expect(divides(2 ** 116)).toBe(true);
    expect(divides(2 ** 117)).toBe(false);
  });

  it("every E4M3 scale code × every E2M1 magnitude, threshold and tie (±1 ulp), under extreme and odd tensor scales", () => {
    for (const T of TENSOR_SCALES) {
      const values: number[] = [];
      const scaleCodes = new Set<number>();
      const elementCodes = new Set<number>();
      for (let c = E4M3.minNormalCode; c <= E4M3.maxFiniteMagnitude; c++) {
        const D = SCALES[c]! * T; // exact: ≤ 4 + 24 significant bits
        // A block: first its amax (rounding to scale code c, or its neighbour), then 15 probes.
        const probes = GRID.flatMap((g) => around(g * D, 1)).flatMap((v) => [v, -v]);
        for (let i = 0; i < probes.length; i += 15)
          values.push(Math.fround(6 * D), ...probes.slice(i, i + 15), ...Array(Math.max(0, i + 15 - probes.length)).fill(0));
      }
      const src = Float32Array.from(values);
      const ref = expectSame(src, "nvfp4", { tensorScale: T }, `T = ${T}`);
      for (const s of ref.scales) scaleCodes.add(s);
      for (const b of ref.elements) elementCodes.add(b & 15).add(b >> 4);
      if (T === 1 || T === 2 ** -3) {
        // Tensor scales whose thresholds are all float32: every scale code and every element code is reached.
        for (let c = E4M3.minNormalCode; c <= E4M3.maxFiniteMagnitude; c++) expect(scaleCodes.has(c)).toBe(true);
        expect(elementCodes.size).toBe(16);
      }
    }
  });

  it("exact ties round to the even code (T = 1, every scale)", () => {
    for (let c = E4M3.minNormalCode; c <= E4M3.maxFiniteMagnitude; c++) {
      const D = SCALES[c]!;
      const ties = E2M1.slice(0, 7).map((v, j) => (v + E2M1[j + 1]!) / 2);
      const src = Float32Array.from([6 * D, ...ties.map((t) => t * D), ...ties.map((t) => -t * D), 0]);
      const q = expectSame(src, "nvfp4", {}, `scale code ${c}`);
      expect(q.scales[0]).toBe(c);
      // Magnitude codes after rounding the ties 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5 to even: 0, 2, 2, 4, 4, 6, 6.
      const nib = (i: number) => (q.elements[i >> 1]! >> ((i & 1) * 4)) & 15;
      expect([1, 2, 3, 4, 5, 6, 7].map(nib)).toEqual([0, 2, 2, 4, 4, 6, 6]);
      expect([8, 9, 10, 11, 12, 13, 14].map(nib)).toEqual([8, 10, 10, 12, 12, 14, 14]);
    }
  });

  it("random blocks around every threshold, with specials, extreme tensor scales and partial blocks", () => {
    const near = fc
      .tuple(fc.integer({ min: E4M3.minNormalCode - 8, max: E4M3.maxFiniteMagnitude }), fc.nat(GRID.length - 1), fc.integer({ min: -2, max: 2 }), fc.boolean())
      .map(([c, g, d, negative]) => ({ c: Math.max(1, c), g, d, negative }));
    const special = fc.oneof(
      fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, bitsToFloat(1), -bitsToFloat(0x7fffff), bitsToFloat(0x7f7fffff)),
      fc.nat(0xffffffff).map((b) => bitsToFloat(b >>> 0)),
    );
    const cases = fc.record({
      T: fc.oneof(fc.constantFrom(...TENSOR_SCALES), fc.integer({ min: 1, max: 0x7f7fffff }).map(bitsToFloat)),
      blockSize: fc.constantFrom(16, 32, 2, 10, 24, 48),
      items: fc.array(fc.oneof({ weight: 6, arbitrary: near }, { weight: 1, arbitrary: special }), { minLength: 1, maxLength: 150 }),
      zeroBlock: fc.boolean(),
    });
    fc.assert(
      fc.property(cases, ({ T, blockSize, items, zeroBlock }) => {
        const src = Float32Array.from(items, (it) => {
          if (typeof it === "number") return it;
          const v = around(GRID[it.g]! * SCALES[it.c]! * T, 2)[2 + it.d] ?? 0;
          return it.negative ? -v : v;
        });
        if (zeroBlock) src.fill(0, 0, Math.min(src.length, blockSize));
        expectSame(src, "nvfp4", { tensorScale: T, blockSize }, `T = ${T}, B = ${blockSize}, n = ${src.length}`);
        return true;
      }),
      fuzzParameters(2000),
    );
  });

  it('tensorScale "auto", long inputs through the scratch chunks, custom ratio schemes and the ones the kernel declines', () => {
    const n = 200003;
    const src = new Float32Array(n).map((_, i) => Math.sin(i * 0.731) * 2 ** ((i % 61) - 30));
    src[777] = NaN;
    expectSame(src, "nvfp4", { tensorScale: "auto" }, "auto");
    expectSame(src, "nvfp4", { tensorScale: "auto", blockSize: 66 }, "auto, B = 66");
    // "auto" skips NaN and ±∞ (the kernel's amax pass and the reference's loop agree), 1 when nothing finite is non-zero.
    src[5] = -Infinity;
    src[123457] = bitsToFloat(0x7f7fffff);
    for (const s of [src, new Float32Array([NaN, Infinity, 0, -0]), Float32Array.of(-bitsToFloat(3), bitsToFloat(1)), src.subarray(5, 12)]) {
      const q = expectSame(s, "nvfp4", { tensorScale: "auto" }, `auto, n = ${s.length}`);
      expect(q.tensorScale).toBeGreaterThan(0);
    }
    // Ratio schemes built from their parameters: FP4/FP3-like elements (P3109 ones without −0, with ±∞) × scales.
    for (const element of ["float4_e2m1fn", "Binary4p2sf", "Binary4p2se", "Binary4p3sf", "Binary3p2sf"]) {
      for (const scale of ["float8_e5m2", "float8_e4m3fnuz", "Binary8p4sf", "Binary8p3uf"]) {
        const scheme = { element, scale, blockSize: 32 };
        expect(kernelApplies(planBlocks(src, blockScheme(scheme), {}))).toBe(true);
        expectSame(src.subarray(0, 5001), scheme, { tensorScale: Math.fround(0.01) }, `${element} × ${scale}`);
      }
    }
    // Declined (and then computed by the reference): P = 1 elements, elements of more than 8 magnitudes.
    for (const element of ["Binary4p1se", "float6_e2m3fn"]) {
      const scheme = { element, scale: "float8_e4m3fn", blockSize: 32 };
      expect(kernelApplies(planBlocks(src, blockScheme(scheme), {}))).toBe(false);
      expectSame(src.subarray(0, 500), scheme, {}, element);
    }
  });
});
