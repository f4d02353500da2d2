// Decode kernels vs the exact core's decodeTable32, bit for bit (NaN bits included), over every code of every format.
import { afterEach, describe, expect, it } from "vitest";
import { CodeRangeError, allocCodes, allocFloat32, customFormat, dequantize, format, registeredNames, useKernels } from "../src/index.js";
import { decodeTable32 } from "../src/exact/tables.js";
import type { Format } from "../src/format/model.js";
import { kernelStatus, kernels } from "../src/wasm/instance.js";
import { IEEE_PAYLOAD_WORD, ieeeParams, wasmTable } from "../src/wasm/decode.js";
import { CHUNK, memoryStats } from "../src/wasm/memory.js";
import { affineKind } from "./kernel-switch.js";

afterEach(() => useKernels(true));

/** Every code, then every code in a scrambled order, then 29 more: unrolled loops, a single group of 16 and a tail run. */
function allCodes(f: Format): Uint8Array | Uint16Array {
  const n = f.codeCount;
  const codes = f.K <= 8 ? new Uint8Array(2 * n + 29) : new Uint16Array(2 * n + 29);
  for (let i = 0; i < codes.length; i++) codes[i] = i < n ? i : ((Math.imul(i, 40503) + 17) >>> 0) % n;
  return codes;
}

function expectTable(f: Format, codes: Uint8Array | Uint16Array, out: Float32Array): void {
  const table = decodeTable32(f);
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  let bad = 0;
  for (let i = 0; i < codes.length; i++) if (bits[i] !== table[codes[i]!]) bad++;
  expect(bad, `${f.name}: mismatching elements`).toBe(0);
}

/** Decodes through a JS array (streamed) and through Wasm views (zero-copy) and compares both with the table. */
function checkFormat(f: Format): void {
  const codes = allCodes(f);
  expectTable(f, codes, dequantize(codes, f));
  const zc = allocCodes(f, codes.length);
  const out = allocFloat32(codes.length);
  zc.array.set(codes);
  const y = dequantize(zc.array, f, { out: out.array });
  expect(y.buffer).toBe(out.array.buffer);
  expect(y.byteOffset).toBe(out.ptr);
  expectTable(f, codes, out.array);
  zc.free();
  out.free();
}

const p3109 = (K: number, Ps: number[]) =>
  Ps.flatMap((P) => [...(P < K ? [`Binary${K}p${P}se`, `Binary${K}p${P}sf`] : []), `Binary${K}p${P}ue`, `Binary${K}p${P}uf`]);
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe("Wasm dequantize, exhaustive per format", () => {
  it("runs in Wasm on this platform", () => {
    expect(kernelStatus()).toEqual({ available: true, enabled: true, tier: process.env.MINIFLOAT_EXPECT_TIER });
  });

  const vendor = registeredNames().filter((n) => format(n).K <= 16);
  it(`every registered format of ≤ 16 bits (${new Set(vendor.map((n) => format(n).name)).size} formats)`, () => {
    expect(vendor).toContain("float8_e4m3fn");
    expect(vendor).toContain("bfloat16");
    for (const name of new Set(vendor.map((n) => format(n).name))) checkFormat(format(name));
  });

  it("Tesla CFloat8 and CFloat16 SHP with several biases", () => {
    for (const bias of [0, 7, 11, 15, 31, 63]) {
      checkFormat(format("cfloat8_1_4_3", { bias }));
      checkFormat(format("cfloat8_1_5_2", { bias }));
    }
    for (const bias of [0, 15, 40, 63]) checkFormat(format("cfloat16_shp", { bias }));
  });

  for (const K of [3, 4, 5, 6, 7, 8]) {
    it(`every P3109 format with K = ${K}`, () => {
      for (const name of p3109(K, range(1, K))) checkFormat(format(name));
    });
  }
  for (const K of [12, 16]) {
    it(`every P3109 format with K = ${K}`, () => {
      for (const name of p3109(K, range(1, K))) checkFormat(format(name));
    });
  }
  it("a spread of P3109 formats with K = 9, 10, 11, 13, 14, 15", () => {
    for (const K of [9, 10, 11, 13, 14, 15]) for (const name of p3109(K, [1, 2, K >> 1, K - 1, K])) checkFormat(format(name));
  });

  it("the exhaustive checks above cover every kernel: planes, affine (every variant), linear, IEEE rule, scalar LUTs", () => {
    const kind = (f: string | Format) => {
      const t = wasmTable(kernels()!, format(f), decodeTable32);
      return t.planes >= 0
        ? "planes"
        : t.affine >= 0
          ? affineKind(t.affineVariant)
          : t.shift !== undefined
            ? `shift<<${t.shift}`
            : t.ieee >= 0
              ? `ieee${t.ieeeNaNs ? "NaNs" : ""}`
              : "lut";
    };
    expect(
      ["float4_e2m1fn", "float8_e4m3fn", "float6_e3m2fn", "Binary8p3se", "Binary8p7se", "bfloat16", "float16", "Binary16p11se", "cfloat16_uhp"].map(kind),
    ).toEqual(["planes", "affineWindow", "affineWindow", "affineOddWindow", "lut", "shift<<16", "ieee", "ieeeNaNs", "ieeeNaNs"]);
    // Two windows: subnormals fill the low one, ∞ and NaNs the top one (and P3109's NaN at −0 the odd code).
    expect(["float8_e3m4", "Binary6p5se", "Binary6p5ue"].map(kind)).toEqual(["affine", "affineOdd", "affine"]);
    expect(kind("Binary16p8se")).toBe("lut");
    expect(kind(format("cfloat16_shp", { bias: 15 }))).toBe("ieee");
  });

  it("decodes by a rule (IEEE, bfloat16's shift), derived from the parameters, only formats whose every code it reproduces", () => {
    // The rules are chosen without a table, so every format taking one among these is checked code by code here:
    // registered formats, every P3109 format of 9…16 bits, every cfloat16_shp bias, binary32 prefixes other than
    // bfloat16 and seeded random custom formats.
    const prefix = (K: number) =>
      customFormat({
        name: `binary32top${K}`,
        K,
        P: K - 8,
        bias: 127,
        signed: true,
        infinity: true,
        highNaNs: 2 ** (K - 9) - 1,
        negativeZero: "zero",
        nanPayload: "keep",
        signedZeroAndNaN: true,
      });
    const named = [
      ...registeredNames(),
      ...range(9, 16).flatMap((K) => p3109(K, range(1, K))),
      ...range(0, 63).map((bias) => format("cfloat16_shp", { bias })),
      ...range(9, 15).map(prefix),
    ].map((n) => format(n));
    let seed = 15;
    const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const custom = Array.from({ length: 400 }, (_, i) => {
      const K = 9 + next(8);
      const signed = next(2) === 0;
      const P = 1 + next(K - (signed ? 1 : 0));
      const t = P - 1;
      const specials = [
        { infinity: false, highNaNs: 0 },
        { infinity: true, highNaNs: 2 ** t - 1 },
        { infinity: true, highNaNs: Math.max(0, 2 ** t - 2) },
      ][next(3)]!;
      return customFormat({
        name: `custom${i}`,
        K,
        P,
        bias: next(160) - 16,
        signed,
        ...specials,
        negativeZero: next(8) === 0 ? "nan" : "zero",
        subnormals: next(4) === 0 ? "flush" : "gradual",
        nanPayload: (["drop", "keep", "keepOnDecode"] as const)[next(3)]!,
        signedZeroAndNaN: next(4) !== 0,
      });
    });
    const rule = (f: Format) => {
      const t = wasmTable(kernels()!, f, decodeTable32);
      return t.shift !== undefined ? "shift" : t.ieee >= 0 ? "ieee" : undefined;
    };
    const ruled = [...new Set([...named, ...custom])].filter((f) => f.K <= 16 && rule(f));
    for (const f of ruled) checkFormat(f);
    expect(ruled.filter((f) => rule(f) === "shift").map((f) => f.name)).toEqual(["bfloat16", ...range(10, 15).map((K) => `binary32top${K}`)]);
    const accepted = ruled.filter((f) => rule(f) === "ieee");
    const names = accepted.map((f) => f.name);
    expect(names).toContain("binary16");
    expect(names).toContain("cfloat16_shp(bias=0)");
    expect(names).toContain("cfloat16_shp(bias=63)");
    // The random formats reach every branch of the rule: unsigned, flushed subnormals, ∞ and NaN payloads.
    expect(accepted.length).toBeGreaterThan(100);
    for (const has of [(f: Format) => !f.signed, (f: Format) => f.subnormals === "flush", (f: Format) => f.infinity]) {
      expect(accepted.filter(has).length).toBeGreaterThan(10);
    }
    for (const name of ["Binary16p11se", "Binary16p11ue", "Binary16p9sf", "Binary12p5se", "cfloat16_uhp"]) expect(names).toContain(name);
    // The kernel's payload form (binary16's specials, gradual subnormals, the top binade finite in float32) and the
    // general one both decode formats with payload-keeping NaNs here.
    const payloadForm = accepted.filter((f) => ieeeParams(f)![IEEE_PAYLOAD_WORD] === 1);
    expect(payloadForm.map((f) => f.name)).toContain("binary16");
    expect(payloadForm.filter((f) => f.K < 16 || !f.signed).length).toBeGreaterThan(10);
    const general = accepted.filter((f) => ieeeParams(f)![IEEE_PAYLOAD_WORD] === 0 && f.infinity && f.policy.nanPayload !== "drop");
    expect(general.length).toBeGreaterThan(5);
    // Values beyond float32's normal range (Binary16p8se: 2^−127 and below; Binary16p3se: 2^±2^12): the table.
    for (const name of ["Binary16p8se", "Binary16p3se"]) expect(ieeeParams(format(name)), name).toBeUndefined();
  });

  it("agrees with the TypeScript reference (kernels off) across chunk boundaries", () => {
    const f = format("float4_e2m1fn");
    const codes = new Uint8Array(2 * CHUNK + 77).map((_, i) => (i * 7) & 15);
    const fast = dequantize(codes, f);
    useKernels(false);
    const ref = dequantize(codes, f);
    const fastBits = new Uint32Array(fast.buffer);
    const refBits = new Uint32Array(ref.buffer);
    expect(refBits.length).toBe(codes.length);
    expect(fastBits.filter((v, i) => v !== refBits[i]).length).toBe(0);
  });
});

describe("Wasm dequantize, validation", () => {
  it("rejects a code ≥ 2^K with the reference's error, before writing anything", () => {
    for (const [name, bad, at] of [
      ["float6_e2m3fn", 64, 70_001],
      ["Binary12p5se", 4096, 5],
      ["float4_e2m1fn", 255, 0],
    ] as const) {
      const f = format(name);
      const codes = f.K <= 8 ? new Uint8Array(CHUNK + 100_000) : new Uint16Array(CHUNK + 100_000);
      codes[at] = bad;
      codes[at + 3] = bad;
      const out = new Float32Array(codes.length).fill(42);
      let fastError: unknown;
      try {
        dequantize(codes, f, { out });
      } catch (e) {
        fastError = e;
      }
      expect(fastError).toBeInstanceOf(CodeRangeError);
      expect((fastError as Error).message).toBe(`codes[${at}]: is ${bad}; allowed: a ${f.name} code in [0, ${f.codeCount - 1}]`);
      expect(out.every((v) => v === 42)).toBe(true);
      useKernels(false);
      expect(() => dequantize(codes, f, { out })).toThrow((fastError as Error).message);
      useKernels(true);
    }
  });

  it("rejects a zero-copy code ≥ 2^K too, and leaves the output untouched", () => {
    const f = format("float6_e3m2fn");
    const codes = allocCodes(f, 1000);
    const out = allocFloat32(1000);
    out.array.fill(-1);
    codes.array[999] = 64;
    expect(() => dequantize(codes.array, f, { out: out.array })).toThrow(/^codes\[999\]: is 64; allowed: a float6_e3m2fn code in \[0, 63\]$/);
    expect(out.array.every((v) => v === -1)).toBe(true);
    codes.free();
    out.free();
  });

  it("frees the least recently used tables beyond 32 formats", () => {
    const before = memoryStats().liveBytes;
    for (const bias of range(0, 63)) for (const name of ["cfloat8_1_4_3", "cfloat8_1_5_2"]) dequantize(new Uint8Array(40), format(name, { bias }));
    // 128 formats decoded; at most 32 tables of 256 entries (1 KiB) + affine form (192 B, 64-byte blocks) stay.
    expect(memoryStats().liveBytes - before).toBeLessThanOrEqual(32 * 1280);
  });

  it("keeps a bounded number of tables however many Format objects name the same format", () => {
    dequantize(new Uint16Array(8), format("Binary16p3se"));
    const before = memoryStats().liveBytes;
    for (let i = 0; i < 100; i++) dequantize(new Uint16Array(8), format("Binary16p3se"));
    expect(memoryStats().liveBytes).toBe(before);
  });
});
