// OCP MX v1.0 and NVFP4 block quantization: the scale rule (float32 exponent bits, clamping), the documented
// decisions (NaN/±∞ blocks, all-zero blocks, MXINT8 symmetric, trailing partial block, FP4 nibble order), NVFP4's
// E4M3 scale and tensor scale, and round trips of the ml_dtypes golden element vectors with scale 1.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decode } from "../src/api/scalar.js";
import { MX_SCHEMES, blockScheme, dequantizeBlocks, quantizeBlocks } from "../src/block/index.js";
import { format } from "../src/format/registry.js";
import { useKernels } from "../src/wasm/instance.js";
import { sharedPath } from "./golden/reader.js";

const f32 = (values: number[]) => Float32Array.from(values);
// The reference semantics: every call here runs with the kernels switched off (block-mx-kernel.test.ts compares).
beforeAll(() => useKernels(false));
afterAll(() => useKernels(true));

describe("OCP MX scale rule", () => {
  it("shared exponent = ⌊log2 amax⌋ − emax from the float32 exponent bits, elements V/X rounded and saturated", () => {
    const q = quantizeBlocks(f32([6, -3, 0.5, 1.25]), "mxfp4");
    expect(q.scales).toEqual(Uint8Array.of(127)); // ⌊log2 6⌋ − 2 = 0
    // E2M1 codes 7 (6), 0xD (−3), 1 (0.5), 2 (1.0: 1.25 ties to even) — first element in the low nibble.
    expect([...q.elements]).toEqual([0xd7, 0x21]);
    expect([...dequantizeBlocks(q)]).toEqual([6, -3, 0.5, 1]);
  });
  it("amax just below a power of two: 8·(1 − 2^−24) has exponent 2 (a float32 log2 rounds it to 3)", () => {
    const amax = Math.fround(8 * (1 - 2 ** -24));
    expect(Math.fround(Math.log2(amax))).toBe(3);
    const q = quantizeBlocks(f32([amax]), "mxfp4");
    expect(q.scales[0]).toBe(127 + 2 - 2);
    expect(dequantizeBlocks(q)[0]).toBe(6); // 7.99999952 saturates to 6 (a scale of 2 would give 8)
  });
  it("elements above MaxFinite after scaling saturate: [7.9, −7.9, 0.1] in MXFP4 → ±6, 0", () => {
    const q = quantizeBlocks(f32([7.9, -7.9, 0.1]), "mxfp4");
    expect(q.scales[0]).toBe(127);
    expect([...dequantizeBlocks(q)]).toEqual([6, -6, 0]);
  });
  it("dequantizeBlocks gives the canonical quiet NaN for ∞ · 0 (a scale format with ∞), whatever the hardware's NaN", () => {
    const scheme = blockScheme({ element: "float4_e2m1fn", scale: "float8_e5m2", blockSize: 2 });
    const q = { scheme, length: 4, blockSize: 2, scales: Uint8Array.of(0x7c, 0xfc), elements: Uint8Array.of(0x80, 0x20) };
    // Block 0: +∞ · (+0, −0); block 1: −∞ · (+0, 1).
    const bits = new Uint32Array(dequantizeBlocks(q).buffer);
    expect([...bits]).toEqual([0x7fc00000, 0x7fc00000, 0x7fc00000, 0xff800000]);
  });

  it("emax per element type: E4M3 8, E5M2 15, E3M2 4, E2M3 2, E2M1 2, INT8 0", () => {
    expect(["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"].map((s) => blockScheme(s as "mxfp4").emax)).toEqual([8, 15, 4, 2, 2, 0]);
    for (const s of ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"] as const) {
      const q = quantizeBlocks(f32([1]), s);
      expect(q.scales[0]).toBe(127 - blockScheme(s).emax);
      expect(dequantizeBlocks(q)[0]).toBe(1);
    }
  });
  it("clamps the shared exponent to [−127, 127]: a subnormal amax gives code 0", () => {
    const tiny = 2 ** -140;
    const q = quantizeBlocks(f32([tiny, 0]), "mxfp8_e4m3");
    expect(q.scales[0]).toBe(0);
    expect([...dequantizeBlocks(q)]).toEqual([0, 0]); // 2^−140 / 2^−127 = 2^−13 < E4M3's 2^−10 half-quantum → 0
    const big = quantizeBlocks(f32([3e38]), "mxint8"); // ⌊log2⌋ = 127, emax 0 → 127 (the largest scale)
    expect(big.scales[0]).toBe(254);
  });
  it("the scaleExponent option fixes X for every block", () => {
    const q = quantizeBlocks(f32([1, 100]), "mxfp8_e4m3", { scaleExponent: 0, blockSize: 1 });
    expect([...q.scales]).toEqual([127, 127]);
    expect([...dequantizeBlocks(q)]).toEqual([1, 96]);
  });
});

describe("documented decisions", () => {
  it("NaN or ±∞ in a block: NaN scale (0xFF), zero elements, the whole block decodes to NaN; other blocks unaffected", () => {
    for (const special of [NaN, Infinity, -Infinity]) {
      const src = new Float32Array(64).fill(1);
      src[40] = special;
      const q = quantizeBlocks(src, "mxfp8_e4m3");
      expect([...q.scales]).toEqual([127 - 8, 0xff]);
      expect(q.elements.subarray(32).every((c) => c === 0)).toBe(true);
      const d = dequantizeBlocks(q);
      expect(d.subarray(0, 32).every((v) => v === 1)).toBe(true);
      expect(d.subarray(32).every((v) => Number.isNaN(v))).toBe(true);
    }
  });
  it("an all-zero block gets scale code 0 (2^−127) and decodes to zeros (signs of zero kept)", () => {
    const q = quantizeBlocks(f32([0, -0, 0]), "mxfp6_e2m3");
    expect([...q.scales]).toEqual([0]);
    expect([...q.elements]).toEqual([0, 0x20, 0]);
    expect(Object.is(dequantizeBlocks(q)[1], -0)).toBe(true);
  });
  it("a trailing partial block is scaled by its own elements", () => {
    const src = new Float32Array(33).fill(1);
    src[32] = 100;
    const q = quantizeBlocks(src, "mxfp4");
    expect([...q.scales]).toEqual([127 - 2, 127 + 6 - 2]);
    expect(q.elements.length).toBe(17);
    expect(dequantizeBlocks(q)[32]).toBe(96); // 100/16 = 6.25 → 6
  });
  it("MXINT8 is symmetric: −1.999 → −127/64 (never the 0x80 code); 0x80 still decodes to −2", () => {
    const q = quantizeBlocks(f32([-1.999, 1.999, 0.5, -1 / 64]), "mxint8", { scaleExponent: 0 });
    expect([...q.elements]).toEqual([0x81, 0x7f, 0x20, 0xff]);
    expect(dequantizeBlocks({ ...q, elements: Uint8Array.of(0x80, 0x7f, 0x01, 0x00) })).toEqual(f32([-2, 127 / 64, 1 / 64, 0]));
    // Every k/64 (|k| ≤ 127) round-trips with scale 1.
    const all = f32(Array.from({ length: 255 }, (_, i) => (i - 127) / 64));
    expect(dequantizeBlocks(quantizeBlocks(all, "mxint8", { scaleExponent: 0, blockSize: 255 }))).toEqual(all);
  });
  it("every element rounding mode is accepted; stochastic modes are not", () => {
    const x = f32([4, 1.2]);
    expect(dequantizeBlocks(quantizeBlocks(x, "mxfp4", { rounding: "TowardPositive" }))[1]).toBe(1.5);
    expect(dequantizeBlocks(quantizeBlocks(x, "mxfp4", { rounding: "TowardZero" }))[1]).toBe(1);
    expect(() => quantizeBlocks(x, "mxfp4", { rounding: "StochasticA" })).toThrow(/options\.rounding: got "StochasticA"; allowed: NearestTiesToEven/);
  });
});

describe("NVFP4", () => {
  it("E4M3 block scale amax/6 (RNE), blocks of 16, E2M1 elements", () => {
    const q = quantizeBlocks(f32([6, 3, -1.5, 0.25]), "nvfp4");
    expect(q.blockSize).toBe(16);
    expect(decode(q.scales[0]!, "E4M3")).toBe(1);
    expect([...dequantizeBlocks(q)]).toEqual([6, 3, -1.5, 0]);
    // amax 7 → 7/6 = 1.1666… → E4M3 1.125: elements divided by 1.125 (exact quotient, one rounding).
    const r = quantizeBlocks(f32([7, 1]), "nvfp4");
    expect(decode(r.scales[0]!, "E4M3")).toBe(1.125);
    expect([...dequantizeBlocks(r)]).toEqual([6 * 1.125, 1 * 1.125]);
  });
  it("scale clamped to [2^−6, 448]; zero block → 2^−6; NaN block → E4M3 NaN 0x7F", () => {
    expect(decode(quantizeBlocks(f32([0, 0]), "nvfp4").scales[0]!, "E4M3")).toBe(2 ** -6);
    expect(decode(quantizeBlocks(f32([1e6]), "nvfp4").scales[0]!, "E4M3")).toBe(448);
    const n = quantizeBlocks(f32([1, NaN]), "nvfp4");
    expect(n.scales[0]).toBe(0x7f);
    expect(Number.isNaN(dequantizeBlocks(n)[0])).toBe(true);
  });
  it("tensor scale: 'auto' = fround(amax / (448·6)); blocks then use amax_block / (6·T)", () => {
    const src = f32([1000, 300, 1, 0.5]);
    const q = quantizeBlocks(src, "nvfp4", { tensorScale: "auto", blockSize: 2 });
    const T = Math.fround(1000 / 2688);
    expect(q.tensorScale).toBe(T);
    expect(decode(q.scales[0]!, "E4M3")).toBe(448); // 1000 / (6·T) = 448.00002 → 448
    expect(decode(q.scales[1]!, "E4M3")).toBe(0.4375); // 1 / (6·T) = 0.448 → 0.4375
    const d = dequantizeBlocks(q);
    expect(d[0]).toBe(Math.fround(6 * 448 * T));
    expect(d[2]).toBe(Math.fround(6 * 0.4375 * T)); // 1 / (0.4375·T) = 6.14 saturates to 6
    expect(d[3]).toBe(Math.fround(3 * 0.4375 * T));
    // A block 10^6 times smaller than the tensor maximum hits the 2^−6 clamp and flushes (as in torchao).
    const wide = quantizeBlocks(f32([1e6, 1, 1, 0.5]), "nvfp4", { tensorScale: "auto", blockSize: 2 });
    expect(decode(wide.scales[1]!, "E4M3")).toBe(2 ** -6);
    expect(dequantizeBlocks(wide)[2]).toBe(0);
    expect(quantizeBlocks(src, "nvfp4", { tensorScale: 2 }).tensorScale).toBe(2);
    expect(() => quantizeBlocks(src, "mxfp4", { tensorScale: 2 })).toThrow(/options\.tensorScale: only allowed for NVFP4-style schemes/);
  });
});

describe("custom schemes and errors", () => {
  it("{ element, scale, blockSize } uses the same path", () => {
    const q = quantizeBlocks(f32([448, 1, 2, 3, 4, 5, 6, 7, 8]), { element: "E4M3", scale: "E8M0", blockSize: 8 });
    expect(q.scales.length).toBe(2);
    expect([...dequantizeBlocks(q)]).toEqual([448, 1, 2, 3, 4, 5, 6, 7, 8]);
    const p3109 = quantizeBlocks(f32([100, -1]), { element: "Binary8p4se", scale: "Binary8p1uf", blockSize: 2 });
    expect([...dequantizeBlocks(p3109)]).toEqual([96, -1]);
  });
  it("E8M0 code 0 (2^−127, a float32 subnormal) scales elements exactly", () => {
    const q = quantizeBlocks(f32([6 * 2 ** -127, 2 ** -128]), "mxfp4");
    expect(q.scales[0]).toBe(0);
    expect([...dequantizeBlocks(q)]).toEqual([6 * 2 ** -127, 2 ** -128]);
  });
  it("typed errors name the argument, the value and what is allowed", () => {
    expect(() => quantizeBlocks(new Float64Array(2) as unknown as Float32Array, "mxfp4")).toThrow(/^src: got Float64Array\(2\); allowed: a Float32Array/);
    expect(() => quantizeBlocks(f32([1]), "mxfp5" as "mxfp4")).toThrow(/scheme: got "mxfp5"; allowed: mxfp8_e4m3, mxfp8_e5m2/);
    expect(() => quantizeBlocks(f32([1]), "mxfp4", { blockSize: 0 })).toThrow(/options\.blockSize: got 0; allowed: an integer in \[1, 1048576\]/);
    expect(() => quantizeBlocks(f32([1]), "mxfp4", { scaleExponent: 200 })).toThrow(/options\.scaleExponent: got 200; allowed: an integer in \[-127, 127\]/);
    expect(() => quantizeBlocks(f32([1]), { element: "E4M3", scale: "E2M1", blockSize: 4 })).toThrow(
      /scheme\.scale: float4_e2m1fn has no NaN; allowed: a scale format with a NaN code/,
    );
    const q = quantizeBlocks(f32([1, 2, 3]), "mxfp4");
    expect(() => dequantizeBlocks({ ...q, scales: new Uint8Array(2) })).toThrow(
      /q\.scales: got Uint8Array\(2\); allowed: a Uint8Array of ceil\(3 \/ 32\) = 1 scale codes/,
    );
    const six = quantizeBlocks(f32([1, 2]), "mxfp6_e2m3");
    expect(() => dequantizeBlocks({ ...six, elements: Uint8Array.of(0, 64) })).toThrow(/q\.elements\[1\]: is 64; allowed: a float6_e2m3fn code in \[0, 63\]/);
  });
});

describe("round trips of the ml_dtypes element vectors with scale 1 (golden/ml_dtypes/<dtype>.encode.bin)", () => {
  const cases = [
    ["mxfp8_e4m3", "float8_e4m3fn"],
    ["mxfp8_e5m2", "float8_e5m2"],
    ["mxfp6_e3m2", "float6_e3m2fn"],
    ["mxfp6_e2m3", "float6_e2m3fn"],
    ["mxfp4", "float4_e2m1fn"],
  ] as const;
  for (const [scheme, dtype] of cases) {
    it(`${scheme}: every finite in-range input encodes to ml_dtypes' code`, () => {
      const raw = readFileSync(sharedPath("golden", "ml_dtypes", `${dtype}.encode.bin`));
      const count = raw.length / 5;
      const max = decode(format(dtype).maxFiniteMagnitude, dtype);
      const inputs: number[] = [];
      const expected: number[] = [];
      const view = new DataView(raw.buffer, raw.byteOffset, raw.length);
      const bits = new Float32Array(1);
      const u = new Uint32Array(bits.buffer);
      for (let r = 0; r < count; r++) {
        u[0] = view.getUint32(5 * r, true);
        const v = bits[0]!;
        if (!(Math.abs(v) <= max)) continue;
        inputs.push(v);
        expected.push(raw[5 * r + 4]!);
      }
      expect(inputs.length).toBeGreaterThan(10000);
      const src = Float32Array.from(inputs);
      const q = quantizeBlocks(src, scheme, { scaleExponent: 0 });
      expect(q.scales.every((c) => c === 127)).toBe(true);
      const s = blockScheme(scheme);
      const codes = s.packed ? Uint8Array.from({ length: src.length }, (_, i) => (i & 1 ? q.elements[i >> 1]! >> 4 : q.elements[i >> 1]! & 15)) : q.elements;
      let mismatches = 0;
      for (let i = 0; i < src.length; i++) if (codes[i] !== expected[i]) mismatches++;
      expect(mismatches).toBe(0);
      // ... and decode back to the golden decode table's values.
      const d = dequantizeBlocks(q);
      for (let i = 0; i < src.length; i += 97) expect(d[i]).toBe(decode(expected[i]!, dtype));
    });
  }
  it("covers every scheme name", () => {
    expect(MX_SCHEMES.length).toBe(7);
  });
});
