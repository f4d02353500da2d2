// The Wasm MX quantize kernel against the scalar reference, bit for bit: every power-of-two scheme, block sizes
// 16/32/64 and ones that are not multiples of 16, lengths that leave a trailing partial block, inputs with ties,
// subnormals, values above the element range, NaN/±∞ blocks and all-zero blocks. (NVFP4: block-nvfp4-kernel.test.ts.)
import { describe, expect, it } from "vitest";
import { MX_SCHEMES, blockScheme, quantizeBlocks } from "../src/block/index.js";
import { planBlocks } from "../src/block/mx.js";
import { kernelApplies } from "../src/block/wasm.js";
import { mix32 } from "../src/random.js";
import { kernelStatus } from "../src/wasm/instance.js";
import { onReference } from "./kernel-switch.js";

function inputs(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  const u = new Uint32Array(out.buffer);
  for (let i = 0; i < n; i++) {
    const r = mix32((seed * 0x9e3779b9 + i) >>> 0);
    const kind = r % 16;
    const mant = mix32(r) & 0x7fffff;
    if (kind < 8)
      out[i] = (mix32(r + 1) / 2 ** 32 - 0.5) * 2 ** (((r >>> 8) % 24) - 12); // wide magnitudes
    else if (kind < 11)
      out[i] = (((r >>> 4) % 64) - 32) / 8 + ((r >>> 10) & 1 ? 1 / 32 : 0); // ties of FP4/FP6 grids
    else if (kind < 12)
      u[i] = mant & 0x807fffff; // float32 subnormals (either sign via bit 31 of mant is 0 → positive)
    else if (kind < 13) out[i] = -0;
    else if (kind < 14) out[i] = 0;
    else out[i] = ((r >>> 4) % 2000) - 1000;
  }
  // Special blocks: a NaN, an infinity and an all-zero block near the start of each 256 elements.
  for (let i = 0; i + 256 <= n; i += 256) {
    out[i + 3] = NaN;
    out[i + 70] = -Infinity;
    out.fill(0, i + 128, i + 192);
  }
  return out;
}

describe("MX quantize kernel vs reference", () => {
  it("the kernels are available", () => {
    expect(kernelStatus().available).toBe(true);
  });
  const pow2 = MX_SCHEMES.filter((s) => s !== "nvfp4");
  for (const scheme of pow2) {
    it(`${scheme}: blocks of 16, 32, 64 and 2, 10, 24, 40 (odd: 7 unpacked); lengths with a trailing partial block`, () => {
      for (const blockSize of [16, 32, 64, 2, 10, 24, 40, ...(blockScheme(scheme).packed ? [] : [7])]) {
        for (const n of [0, 16, 100, 1000, 4099, 70000]) {
          const src = inputs(n, n + blockSize);
          expect(kernelApplies(planBlocks(src, blockScheme(scheme), { blockSize }))).toBe(true);
          const fast = quantizeBlocks(src, scheme, { blockSize });
          const slow = onReference(() => quantizeBlocks(src, scheme, { blockSize }));
          expect(Buffer.from(fast.scales).equals(Buffer.from(slow.scales))).toBe(true);
          let first = -1;
          for (let i = 0; i < slow.elements.length && first < 0; i++) if (fast.elements[i] !== slow.elements[i]) first = i;
          if (first >= 0)
            throw new Error(`${scheme} B=${blockSize} n=${n}: byte ${first}: kernel ${fast.elements[first]} vs reference ${slow.elements[first]}`);
        }
      }
    });
  }
  it("a fixed scaleExponent and a custom P3109 element (no −0) also match", () => {
    const src = inputs(5000, 3);
    for (const [scheme, options] of [
      ["mxfp8_e4m3", { scaleExponent: -3 }],
      [{ element: "Binary8p4se", scale: "E8M0", blockSize: 32 }, {}],
      [{ element: "Binary8p3se", scale: "Binary8p1uf", blockSize: 16 }, {}],
    ] as const) {
      const fast = quantizeBlocks(src, scheme, options);
      const slow = onReference(() => quantizeBlocks(src, scheme, options));
      expect([...fast.scales]).toEqual([...slow.scales]);
      expect(Buffer.from(fast.elements).equals(Buffer.from(slow.elements))).toBe(true);
    }
  });
  it("fixed scale exponents that scale elements past MaxFinite, up to float32 overflow (+∞), saturate like the reference", () => {
    // Every float32 binade, both signs, a few significands each: with 2^−e = 2^127 most of them overflow to ∞ in
    // the kernel's float32 product, with 2^−e = 2^−127 most fall below the element's smallest subnormal.
    const src = new Float32Array(254 * 8);
    const u = new Uint32Array(src.buffer);
    for (let e = 1; e < 255; e++) for (let j = 0; j < 8; j++) u[(e - 1) * 8 + j] = ((j & 1) << 31) | (e << 23) | (mix32(e * 8 + j) & 0x7fffff);
    for (const scheme of pow2) {
      for (const scaleExponent of [-127, -100, -20, 0, 20, 127]) {
        const fast = quantizeBlocks(src, scheme, { scaleExponent });
        const slow = onReference(() => quantizeBlocks(src, scheme, { scaleExponent }));
        expect([...fast.scales]).toEqual([...slow.scales]);
        expect([...fast.elements]).toEqual([...slow.elements]);
      }
    }
  });
  it("an input that lives in Wasm memory (allocFloat32) is read in place with the same result", async () => {
    const { allocFloat32 } = await import("../src/api/wasm-memory.js");
    const src = inputs(3000, 9);
    const w = allocFloat32(src.length);
    try {
      w.array.set(src);
      const inPlace = quantizeBlocks(w.array, "mxfp4");
      const copied = onReference(() => quantizeBlocks(src, "mxfp4"));
      expect([...inPlace.scales]).toEqual([...copied.scales]);
      expect(Buffer.from(inPlace.elements).equals(Buffer.from(copied.elements))).toBe(true);
    } finally {
      w.free();
    }
  });
  it("non-RNE roundings and odd block sizes of packed elements take the reference (the kernel declines)", () => {
    const src = inputs(100, 1);
    expect(kernelApplies(planBlocks(src, blockScheme("mxfp4"), { rounding: "TowardZero" }))).toBe(false);
    expect(kernelApplies(planBlocks(src, blockScheme("mxfp4"), { blockSize: 25 }))).toBe(false);
    expect(kernelApplies(planBlocks(src, blockScheme("mxfp8_e4m3"), { blockSize: 25 }))).toBe(true);
  });
});
