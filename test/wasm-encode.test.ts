// Encode kernel (assembly/encode.ts via src/wasm/encode.ts) vs the exact reference `project`, bit for bit: structured
// float32 inputs × formats × every rounding × every saturation, stochastic rounding with seeds and caller arrays,
// chunking and zero-copy, and ml_dtypes' golden casts.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { allocCodes, allocFloat32, format, quantize, useKernels } from "../src/index.js";
import { codeArrayType } from "../src/api/validate.js";
import { project } from "../src/exact/cast.js";
import { ROUNDINGS, SATURATIONS, type ResolvedProjection, type Rounding, resolveProjection } from "../src/exact/projection.js";
import { type Exact, fromFloat32Bits } from "../src/exact/value.js";
import type { Format } from "../src/format/model.js";
import { randomR, seedKeys, streamField } from "../src/random.js";
import { customFormat } from "../src/format/registry.js";
import { encodeConstants } from "../src/kernel/encode-constants.js";
import { MAX_KERNEL_STOCHASTIC_BITS, encodeBlock, encodeSupported, encodeVariant, quantizeWasm } from "../src/wasm/encode.js";
import { CHUNK } from "../src/wasm/memory.js";
import { sharedPath } from "./golden/reader.js";

afterEach(() => useKernels(true));

const DETERMINISTIC = ROUNDINGS.filter((r) => !r.startsWith("Stochastic")) as Rounding[];
const STOCHASTIC = ["StochasticA", "StochasticB", "StochasticC"] as const;

/**
 * float32 bit patterns: every exponent × the mantissas around this format's rounding position there (truncation
 * points, exact midpoints ±1 ulp, the carry into the next binade), specials, NaNs with payloads, both signs, and
 * pseudo-random patterns.
 */
function inputs(f: Format): Uint32Array {
  const bits: number[] = [];
  for (let e = 0; e < 256; e++) {
    // The fraction bits below the result's quantum: 24 − P for normal results, more in the subnormal range.
    const sh = Math.min(26, Math.max(24 - f.P, f.minQuantumExponent + 150 - Math.max(e, 1)));
    const mantissas = new Set([0, 1, 2, 3, 0x7fffff, 0x7ffffe, 0x400000, 0x3fffff, 0x400001, 0x555555, 0x2aaaaa, 0x000400]);
    for (const fl of [0, 1, 2, 3, 6, 7]) {
      const half = 2 ** (sh - 1);
      for (const d of [0, 1, -1, half, half - 1, half + 1, 2 ** sh - 1, half / 2, half + half / 2]) mantissas.add(fl * 2 ** sh + d);
    }
    for (const m of mantissas) {
      if (m < 0 || m > 0x7fffff || !Number.isInteger(m)) continue;
      bits.push(e * 2 ** 23 + m, 2 ** 31 + e * 2 ** 23 + m);
    }
  }
  let s = 0x9e3779b9;
  for (let i = 0; i < 1500; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    bits.push((s ^ (s >>> 13)) >>> 0);
  }
  return new Uint32Array(bits);
}

const exactCache = new Map<string, { bits: Uint32Array; exact: Exact[] }>();
function cases(f: Format): { bits: Uint32Array; exact: Exact[] } {
  const key = `${f.P}/${f.minQuantumExponent}`;
  let c = exactCache.get(key);
  if (!c) {
    const bits = inputs(f);
    c = { bits, exact: Array.from(bits, (b) => fromFloat32Bits(b)) };
    exactCache.set(key, c);
  }
  return c;
}

/** Runs the kernel on the inputs and counts mismatches against project() with R_i from `rAt`. */
function mismatches(f: Format, rho: ResolvedProjection, random: Parameters<typeof quantizeWasm>[4], rAt: (i: number) => number): string[] {
  const { bits, exact } = cases(f);
  const src = new Float32Array(bits.buffer.slice(0));
  const out = new (codeArrayType(f) as typeof Uint8Array | typeof Uint16Array)(bits.length);
  const result = quantizeWasm(src, f, rho, out, random);
  expect(result, `${f.name} ${rho.rounding}/${rho.saturation}: kernel declined`).toBeDefined();
  const bad: string[] = [];
  for (let i = 0; i < bits.length; i++) {
    const want = project(exact[i]!, f, rho, rAt(i));
    const got = result![i]!;
    if (got !== want) bad.push(`0x${bits[i]!.toString(16)} → ${got}, reference ${want}`);
  }
  return bad;
}

/** The first five inputs of src whose kernel code (deterministic ρ) differs from project(), as text. */
function firstMismatches(src: Float32Array, f: Format, rho: ResolvedProjection): string[] {
  const bits = new Uint32Array(src.buffer, src.byteOffset, src.length);
  const out = quantizeWasm(src, f, rho, new (codeArrayType(f) as typeof Uint8Array | typeof Uint16Array)(src.length), undefined)!;
  const bad: string[] = [];
  for (let i = 0; i < src.length && bad.length < 5; i++) {
    const want = project(fromFloat32Bits(bits[i]!), f, rho);
    if (out[i] !== want) bad.push(`0x${bits[i]!.toString(16)} → ${out[i]}, reference ${want}`);
  }
  return bad;
}

const P3109_8BIT = [
  ...Array.from({ length: 7 }, (_, i) => [`Binary8p${i + 1}se`, `Binary8p${i + 1}sf`]).flat(),
  ...Array.from({ length: 8 }, (_, i) => [`Binary8p${i + 1}ue`, `Binary8p${i + 1}uf`]).flat(),
];
const VENDOR = [
  "float8_e5m2",
  "float8_e4m3",
  "float8_e3m4",
  "float8_e4m3fn",
  "float8_e4m3fnuz",
  "float8_e5m2fnuz",
  "float8_e4m3b11fnuz",
  "float8_e8m0fnu",
  "float6_e2m3fn",
  "float6_e3m2fn",
  "float4_e2m1fn",
  "bfloat16",
  "float16",
  "cfloat16_uhp",
];
const WIDE = ["Binary12p7se", "Binary16p1se", "Binary16p8ue", "Binary3p1ue", "Binary4p2sf", "Binary10p3uf"];
const TESLA: [string, { bias: number }][] = [
  ["cfloat8_1_4_3", { bias: 0 }],
  ["cfloat8_1_4_3", { bias: 63 }],
  ["cfloat8_1_5_2", { bias: 15 }],
];
const FORMATS: Format[] = [...[...P3109_8BIT, ...VENDOR, ...WIDE].map((n) => format(n)), ...TESLA.map(([n, p]) => format(n, p))];

describe("encode kernel vs project(): deterministic roundings × saturations", () => {
  for (const f of FORMATS) {
    it(`${f.name}: default projection and ${DETERMINISTIC.length} roundings × ${SATURATIONS.length} saturations`, () => {
      const rhos = [resolveProjection(f, undefined)];
      for (const rounding of DETERMINISTIC) for (const saturation of SATURATIONS) rhos.push(resolveProjection(f, { rounding, saturation }));
      for (const rho of rhos) {
        const bad = mismatches(f, rho, undefined, () => 0);
        expect(bad.slice(0, 5), `${f.name} ${rho.rounding}/${rho.saturation}/${rho.vendor}: ${bad.length} mismatches`).toEqual([]);
      }
    });
  }

  it("float8_e8m0fnu without zero: results rounding to MinPositive 2^−127 are code 0, a zero result is NaN", () => {
    const f = format("float8_e8m0fnu");
    const rho = resolveProjection(f, { rounding: "NearestTiesToEven", saturation: "SatNone" });
    const src = new Float32Array([2 ** -127, 1.5 * 2 ** -127, 1.75 * 2 ** -127, 2 ** -130, 2 ** -126]);
    expect(Array.from(quantizeWasm(src, f, rho, new Uint8Array(5), undefined)!)).toEqual([0, 0, 1, 0xff, 1]);
  });
});

describe("the parameter-block cache", () => {
  it("tells IEEE from P3109 datums and alternating requests apart (−0, signed NaNs), the last block reused", () => {
    const bits = new Uint32Array([0x80000000, 0xffc00000, 0x7fc00000, 0xbf800000, 0x00000000, 0xc3e00000]);
    const src = new Float32Array(bits.buffer);
    for (const name of ["float8_e4m3fn", "float8_e5m2", "bfloat16", "Binary8p3se"]) {
      const f = format(name);
      const ieee = resolveProjection(f, undefined);
      const p3109 = resolveProjection(f, undefined, "options", "P3109");
      const satFinite = resolveProjection(f, { rounding: "NearestTiesToEven", saturation: "SatFinite" });
      for (const rho of [ieee, p3109, p3109, ieee, satFinite, ieee])
        expect(firstMismatches(src, f, rho), `${name} ${rho.datums} ${rho.saturation}`).toEqual([]);
      expect(encodeBlock(f, resolveProjection(f, undefined), undefined)).toBe(encodeBlock(f, ieee, undefined));
    }
  });
});

describe("binary32's prefixes (bfloat16): float32 bits rounded in place vs project()", () => {
  const ieee = { signed: true, infinity: true, negativeZero: "zero", zero: true, subnormals: "gradual", signedZeroAndNaN: true } as const;
  const prefixes = [
    format("bfloat16"),
    customFormat({ ...ieee, name: "e8m3-ieee", K: 12, P: 4, bias: 127, highNaNs: 7, finiteOverflow: "nan", nanSubstitute: "maxfinite" }),
    customFormat({ ...ieee, name: "e8m1-ieee", K: 10, P: 2, bias: 127, highNaNs: 1, finiteOverflow: "nan", nanSubstitute: "maxfinite" }),
    customFormat({ ...ieee, name: "e8m5-fn", K: 14, P: 6, bias: 127, infinity: false, highNaNs: 1, finiteOverflow: "nan", nanSubstitute: "maxfinite" }),
  ];
  /** The strided inputs with runs of 16 finite values (whole blocks the prefix loop takes) and lengths off 16. */
  function prefixInputs(f: Format): Float32Array {
    const bits = [...cases(f).bits];
    for (let b = 0; b < 2 ** 32; b += 65521 * 16) for (let j = 0; j < 16; j++) bits.push((b + j * 4099) >>> 0);
    // Whole blocks just below and from the magnitude that may round into ∞'s exponent (0x7f800000 − 2^(31 − K)),
    // both signs: the last ones the loop rounds in place, the first ones it hands to the fast path.
    const risky = 0x7f800000 - 2 ** (31 - f.K);
    for (const from of [risky - 16, risky - 16 - 2 ** (32 - f.K), risky, risky + 2 ** (32 - f.K) - 8]) {
      for (const sign of [0, 0x80000000]) for (let j = 0; j < 16; j++) bits.push((sign | (from + j)) >>> 0);
    }
    return new Float32Array(new Uint32Array(bits.slice(0, bits.length - 5)).buffer);
  }
  for (const f of prefixes) {
    it(`${f.name}: NearestTiesToEven × every saturation takes the prefix variant, bit for bit`, () => {
      for (const saturation of SATURATIONS) {
        const rho = resolveProjection(f, { rounding: "NearestTiesToEven", saturation });
        const where = `${f.name} ${saturation}`;
        expect(encodeVariant(encodeBlock(f, rho, undefined)!), where).toBe("prefix");
        expect(firstMismatches(prefixInputs(f), f, rho), where).toEqual([]);
      }
    });
  }
  it("only binary32's prefixes under NearestTiesToEven: not float16, not bias 128, not P3109's NaN at −0, not TowardZero", () => {
    const variant = (f: Format, rounding: Rounding = "NearestTiesToEven") =>
      encodeVariant(encodeBlock(f, resolveProjection(f, { rounding, saturation: "SatFinite" }), undefined)!);
    expect(variant(format("float16"))).toBe("wideKeep");
    expect(variant(format("Binary16p8se"))).not.toBe("prefix");
    expect(
      variant(customFormat({ ...ieee, name: "e8m7-b128", K: 16, P: 8, bias: 128, highNaNs: 127, finiteOverflow: "nan", nanSubstitute: "maxfinite" })),
    ).not.toBe("prefix");
    expect(variant(format("bfloat16"), "TowardZero")).not.toBe("prefix");
  });
});

describe("formats without zero (unsigned, P = 1): their fast variant vs project()", () => {
  const shape = { P: 1, signed: false, zero: false } as const;
  const formats = [
    format("float8_e8m0fnu"),
    customFormat({ ...shape, name: "e8m0-inf", K: 8, bias: 127, infinity: true, highNaNs: 1 }),
    customFormat({ ...shape, name: "e5m0", K: 5, bias: 15 }),
    customFormat({ ...shape, name: "e7m0-b126", K: 7, bias: 126, finiteOverflow: "nan", highNaNs: 1 }),
    customFormat({ ...shape, name: "e12m0", K: 12, bias: 127, highNaNs: 3 }),
  ];
  /** The strided inputs, every 997th float32 bit pattern below 2^−124 and ±2 around the variant's thresholds, both signs. */
  function noZeroInputs(f: Format, rho: ResolvedProjection): Float32Array {
    const c = encodeConstants(f, rho);
    const bits = [...cases(f).bits];
    for (let b = 0; b < 3 * 2 ** 23; b += 997) bits.push(b);
    for (const t of [c.noZeroBelowBits, c.noZeroOneBits, c.fastNormalBits]) for (let d = -2; d <= 2; d++) bits.push(t + d);
    return new Float32Array(new Uint32Array([...bits, ...bits.map((b) => b ^ 0x80000000)]).buffer);
  }
  for (const f of formats) {
    it(`${f.name}: the fast variant, bit for bit, under the default projection and every deterministic rounding × saturation`, () => {
      const rhos = [resolveProjection(f, undefined)];
      for (const rounding of DETERMINISTIC) for (const saturation of SATURATIONS) rhos.push(resolveProjection(f, { rounding, saturation }));
      for (const rho of rhos) {
        const where = `${f.name} ${rho.rounding}/${rho.saturation}/${rho.vendor}`;
        expect(encodeVariant(encodeBlock(f, rho, undefined)!), where).toBe(f.K > 8 ? "wide" : "bytes");
        expect(firstMismatches(noZeroInputs(f, rho), f, rho), where).toEqual([]);
      }
    });
  }
});

describe("encode kernel vs project(): stochastic rounding", () => {
  const formats = ["float8_e4m3fn", "Binary8p3se", "Binary8p1uf", "Binary8p5ue", "float16", "bfloat16", "Binary16p1se", "float4_e2m1fn", "Binary12p7se"].map(
    (n) => format(n),
  );
  for (const f of formats) {
    it(`${f.name}: A/B/C × N ∈ {1, 3, 8, 16} × seeded and u8/u16/u32 arrays × SatFinite/SatNone`, () => {
      const n = cases(f).bits.length;
      for (const rounding of STOCHASTIC) {
        for (const N of [1, 3, 8, 16]) {
          for (const saturation of ["SatFinite", "SatNone"] as const) {
            const rho = resolveProjection(f, { rounding, saturation, stochasticBits: N });
            const [k0, k1] = seedKeys(1234567);
            const seeded = mismatches(f, rho, { seed: 1234567 }, (i) => randomR(k0, k1, i, N));
            expect(seeded.slice(0, 5), `${f.name} ${rounding} N=${N} ${saturation} seeded: ${seeded.length} mismatches`).toEqual([]);
            for (const type of [Uint8Array, Uint16Array, Uint32Array]) {
              if (N > 8 * type.BYTES_PER_ELEMENT) continue;
              const array = new type(n);
              for (let i = 0; i < n; i++) array[i] = randomR(99, 7, i, N);
              const bad = mismatches(f, rho, { array }, (i) => array[i]!);
              expect(bad.slice(0, 5), `${f.name} ${rounding} N=${N} ${saturation} ${type.name}: ${bad.length} mismatches`).toEqual([]);
            }
          }
        }
      }
    });
  }

  it(`N = ${MAX_KERNEL_STOCHASTIC_BITS}, the kernel's largest, matches the reference (A/B/C, seeded)`, () => {
    for (const f of [format("float8_e4m3fn"), format("bfloat16"), format("Binary3p1ue")]) {
      for (const rounding of STOCHASTIC) {
        const N = MAX_KERNEL_STOCHASTIC_BITS;
        const rho = resolveProjection(f, { rounding, saturation: "SatFinite", stochasticBits: N });
        const [k0, k1] = seedKeys(8);
        const bad = mismatches(f, rho, { seed: 8 }, (i) => randomR(k0, k1, i, N));
        expect(bad.slice(0, 5), `${f.name} ${rounding} N=${N}: ${bad.length} mismatches`).toEqual([]);
      }
    }
  });

  it(`leaves N > ${MAX_KERNEL_STOCHASTIC_BITS} to the reference (quantize still answers exactly)`, () => {
    const f = format("float8_e4m3fn");
    const rho = resolveProjection(f, { rounding: "StochasticB", saturation: "SatFinite", stochasticBits: 32 });
    expect(encodeSupported(f, rho)).toBe(false);
    const src = new Float32Array([1.0625, -3.3, 1e-3]);
    const [k0, k1] = seedKeys(5);
    const want = Array.from(src, (_, i) => project(fromFloat32Bits(new Uint32Array(src.buffer)[i]!), f, rho, randomR(k0, k1, i, 32)));
    expect(Array.from(quantize(src, f, { rounding: "StochasticB", saturation: "SatFinite", stochasticBits: 32, seed: 5 }))).toEqual(want);
  });
});

describe("seeded stream layout, stream offsets and the kernel's blocks", () => {
  it("every field of the stream serves exactly one element, and the words of a block are used up", () => {
    for (const N of [1, 7, 8, 9, 16, 17, 30, 32]) {
      const count = 16 * 64;
      const seen = new Set<string>();
      let words = 0;
      for (let i = 0; i < count; i++) {
        const { word, field, width } = streamField(i, N);
        expect(width).toBeGreaterThanOrEqual(N);
        expect(field * width + width).toBeLessThanOrEqual(32);
        seen.add(`${word}/${field}`);
        words = Math.max(words, word + 1);
      }
      expect(seen.size, `N=${N}: distinct fields`).toBe(count);
      expect(words * (32 / streamField(0, N).width), `N=${N}: fields of the words used`).toBe(count);
    }
  });

  it("R is close to uniform for every N (chi-square over 2^16 elements)", () => {
    const [k0, k1] = seedKeys(2024);
    for (const N of [4, 8, 12, 16, 24]) {
      const bins = 16;
      const counts = new Array<number>(bins).fill(0);
      const n = 1 << 16;
      for (let i = 0; i < n; i++) counts[Math.floor(randomR(k0, k1, i, N) / 2 ** (N - 4))]!++;
      const chi2 = counts.reduce((acc, c) => acc + (c - n / bins) ** 2 / (n / bins), 0);
      // 15 degrees of freedom: P(χ² > 37.7) = 0.001.
      expect(chi2, `N=${N}: ${counts}`).toBeLessThan(37.7);
    }
  });

  /** Normal values with subnormal-range ones (and zeros, ties, specials) at the given positions. */
  function mixed(n: number, f: Format, below: number[]): Float32Array {
    const a = spread(n);
    const min = 2 ** (f.minQuantumExponent + f.P - 1);
    for (let i = 0; i < n; i++) a[i] = Math.abs(a[i]!) < min ? min * (1 + (i % 5)) * (i % 2 ? -1 : 1) : a[i]!;
    for (const [j, p] of below.entries()) if (p < n) a[p] = [0.3, -0.75, 0.5, 1e-30, 0, -0][j % 6]! * min;
    return a;
  }

  const cases: [string, number][] = [
    ["float8_e4m3fn", 8], // fast path, bytes of the stream words
    ["Binary8p3se", 12], // fast path, halves
    ["Binary8p3se", 20], // whole words: the generic kernel
    ["float16", 8], // wide fast path, bytes
    ["bfloat16", 16], // wide fast path, halves
    ["Binary16p1se", 5], // generic kernel, bytes at any offset
  ];
  for (const [name, N] of cases) {
    it(`${name} N=${N}: any stream offset, length and subnormal placement matches the reference (A/B/C)`, () => {
      const f = format(name);
      const firsts = [0, 1, 5, 15, 16, 17, 2 ** 32 - 700];
      const lengths = [1, 3, 16, 33, 16 * 8 + 1, 16 * 8 * 3 + 7];
      for (const rounding of STOCHASTIC) {
        const rho = resolveProjection(f, { rounding, saturation: "SatFinite", stochasticBits: N });
        const [k0, k1] = seedKeys(77);
        for (const first of firsts) {
          for (const n of lengths) {
            // Subnormal-range lanes only in some groups of 8 blocks, at block and group edges.
            const src = mixed(
              n,
              f,
              [0, 15, 127, 128, 16 * 8 * 2 + 31, n - 1].filter((p) => p !== 0 || n < 100),
            );
            const bits = new Uint32Array(src.buffer);
            const out = quantizeWasm(src, f, rho, new (codeArrayType(f) as typeof Uint8Array)(n), { seed: 77 }, first);
            expect(out).toBeDefined();
            for (let i = 0; i < n; i++) {
              const want = project(fromFloat32Bits(bits[i]!), f, rho, randomR(k0, k1, first + i, N));
              if (out![i] !== want) expect.fail(`${rounding} first=${first} n=${n} i=${i} x=${src[i]}: ${out![i]} ≠ ${want}`);
            }
          }
        }
      }
    });
  }
});

/** Values spread over many binades (both signs, some exact ties), deterministic. */
function spread(n: number): Float32Array {
  const a = new Float32Array(n);
  let s = 17;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    a[i] = ((s >>> 8) / 2 ** 24 - 0.5) * 2 ** ((s & 31) - 16);
  }
  return a;
}

describe("chunking, offsets and zero-copy", () => {
  const n = 2 * CHUNK + 45;

  it("seeded results depend only on (seed, element index): one call = pieces at odd offsets = zero-copy = reference", () => {
    const f = format("Binary8p3se");
    const options = { rounding: "StochasticC", saturation: "SatFinite", stochasticBits: 8, seed: 42 } as const;
    const src = spread(n);
    const whole = quantize(src, f, options) as Uint8Array;
    const bits = new Uint32Array(src.buffer);
    const rho = resolveProjection(f, { rounding: "StochasticC", saturation: "SatFinite", stochasticBits: 8 });
    const [k0, k1] = seedKeys(42);
    let bad = 0;
    for (let i = 0; i < n; i++) if (whole[i] !== project(fromFloat32Bits(bits[i]!), f, rho, randomR(k0, k1, i, 8))) bad++;
    expect(bad).toBe(0);
    // A subarray starts at element 0 of its own call: R comes from its own indices 0, 1, …
    const piece = quantize(src.subarray(CHUNK - 7), f, options) as Uint8Array;
    for (let i = 0; i < 100; i++) expect(piece[i]).toBe(project(fromFloat32Bits(bits[CHUNK - 7 + i]!), f, rho, randomR(k0, k1, i, 8)));
    const a = allocFloat32(n);
    const o = allocCodes(f, n);
    try {
      a.array.set(src);
      const zero = quantize(a.array, f, { ...options, out: o.array });
      expect(Buffer.from(zero.buffer, zero.byteOffset, n).equals(Buffer.from(whole.buffer, whole.byteOffset, n))).toBe(true);
      // Unaligned zero-copy views (v128 loads at any address) and an odd tail.
      const shifted = quantize(a.array.subarray(3), f, { ...options, out: o.array.subarray(3) });
      for (let i = 0; i < 64; i++) expect(shifted[i]).toBe(project(fromFloat32Bits(bits[3 + i]!), f, rho, randomR(k0, k1, i, 8)));
    } finally {
      a.free();
      o.free();
    }
  });

  it("caller R arrays stream alongside the input (JS arrays, several chunks, 16-bit codes)", () => {
    const f = format("float16");
    const src = spread(n);
    const random = new Uint16Array(n);
    for (let i = 0; i < n; i++) random[i] = randomR(3, 4, i, 11);
    const out = quantize(src, f, { rounding: "StochasticA", saturation: "SatNone", stochasticBits: 11, random }) as Uint16Array;
    const rho = resolveProjection(f, { rounding: "StochasticA", saturation: "SatNone", stochasticBits: 11 });
    const bits = new Uint32Array(src.buffer);
    let bad = 0;
    for (let i = 0; i < n; i++) if (out[i] !== project(fromFloat32Bits(bits[i]!), f, rho, random[i]!)) bad++;
    expect(bad).toBe(0);
  });

  it("quantize(Float32Array) through the kernel equals the TypeScript reference path", () => {
    const src = spread(5000);
    for (const name of ["float8_e4m3fn", "Binary8p4se", "bfloat16", "Binary16p8ue"]) {
      const fast = quantize(src, name, { rounding: "TowardNegative", saturation: "SatPropagate" });
      useKernels(false);
      const slow = quantize(src, name, { rounding: "TowardNegative", saturation: "SatPropagate" });
      useKernels(true);
      expect(Array.from(fast)).toEqual(Array.from(slow));
    }
  });
});

describe("ml_dtypes golden casts through the kernel", () => {
  const manifest = JSON.parse(readFileSync(sharedPath("golden", "ml_dtypes", "manifest.json"), "utf8"));
  for (const dtype of Object.keys(manifest.dtypes) as string[]) {
    it(`${dtype}: every golden float32 → code record (default projection)`, () => {
      const f = format(dtype);
      const buf = readFileSync(sharedPath("golden", "ml_dtypes", `${dtype}.encode.bin`));
      const size = f.K <= 8 ? 5 : 6;
      const count = buf.length / size;
      const src = new Float32Array(count);
      const bits = new Uint32Array(src.buffer);
      for (let i = 0; i < count; i++) bits[i] = buf.readUInt32LE(i * size);
      const out = quantizeWasm(src, f, resolveProjection(f, undefined), new (codeArrayType(f) as typeof Uint8Array | typeof Uint16Array)(count), undefined);
      expect(out).toBeDefined();
      let bad = 0;
      for (let i = 0; i < count; i++) if (out![i] !== (size === 5 ? buf[i * 5 + 4] : buf.readUInt16LE(i * 6 + 4))) bad++;
      expect(bad, `${dtype}: ${count} records`).toBe(0);
    });
  }
});
