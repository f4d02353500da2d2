// Fuzzing the Wasm kernels against the TypeScript reference, bit for bit: quantize (every format family, every
// projection, seeded and caller-supplied random bits, NaN payloads, subnormals, ±0, extremes, odd lengths and
// unaligned views), dequantize against the decode table, and the packed FP4/FP6 round trips.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quantizeReference } from "../src/api/bulk.js";
import { decodeTable32 } from "../src/exact/tables.js";
import { planQuantize } from "../src/api/plan.js";
import { codeArrayType } from "../src/api/validate.js";
import {
  type CodeArray,
  type Format,
  dequantize,
  encode,
  dequantizePacked,
  format,
  packCodes,
  packedLength,
  quantize,
  quantizePacked,
  unpackCodes,
} from "../src/index.js";
import { randomR, seedKeys } from "../src/random.js";
import { float32Array, formats, fuzzParameters, projections } from "./fuzz-arbitraries.js";

/** The reference result of quantize(src, f, options), computed with exact arithmetic element by element. */
function reference(src: Float32Array, f: Format, options: Parameters<typeof quantize>[2]): CodeArray {
  const { rho, random } = planQuantize(src, f, options);
  const out = new (codeArrayType(f))(src.length);
  quantizeReference(src, f, rho, out, random?.at);
  return out;
}

/** A case: format, input, and options; stochastic projections get a seed or a caller array of R < 2^N (u8/u16/u32). */
function quantizeCases<T extends Float32Array | Float64Array>(input: (f: Format) => fc.Arbitrary<T>) {
  return fc
    .tuple(formats, projections)
    .chain(([f, projection]) =>
      fc.tuple(fc.constant(f), fc.constant(projection), input(f), fc.nat(0xffffffff), fc.boolean(), fc.constantFrom(Uint8Array, Uint16Array, Uint32Array)),
    )
    .map(([f, projection, src, seed, seeded, randomType]) => {
      const N = projection.stochasticBits;
      if (N === undefined) return { f, src, options: { ...projection } };
      if (seeded) return { f, src, options: { ...projection, seed } };
      const random = new randomType(src.length).map((_, i) => (Math.imul(seed ^ i, 0x9e3779b1) >>> 0) % 2 ** Math.min(N, randomType.BYTES_PER_ELEMENT * 8));
      return { f, src, options: { ...projection, random } };
    });
}
const quantizeCase = quantizeCases((f) => float32Array(f, 160));

describe("fuzz: Wasm kernels equal the TypeScript reference", () => {
  it("quantize(Float32Array) equals quantizeReference for random formats, projections and inputs", () => {
    fc.assert(
      fc.property(quantizeCase, ({ f, src, options }) => {
        const got = quantize(src, f, options);
        const want = reference(src, f, options);
        expect(got.constructor).toBe(want.constructor);
        const i = got.findIndex((c, j) => c !== want[j]);
        expect(
          i,
          `${f.name} ${JSON.stringify({ ...options, random: undefined })} element ${i}: input bits 0x${new Uint32Array(src.buffer, src.byteOffset, src.length)[i]?.toString(16)}`,
        ).toBe(-1);
      }),
      fuzzParameters(400),
    );
  });

  it("quantize(Float64Array) equals the scalar encode of each element with its R_i", () => {
    const wide = fc.oneof(
      fc.double(),
      fc.double({ min: -1e-300, max: 1e-300 }),
      fc.tuple(fc.boolean(), fc.bigInt({ min: 1n, max: (1n << 51n) - 1n })).map(([negative, payload]) => {
        const v = new Float64Array(1);
        new BigUint64Array(v.buffer)[0] = (negative ? 0xfff0000000000000n : 0x7ff0000000000000n) | payload;
        return v[0]!;
      }),
    );
    const cases = quantizeCases(() => fc.array(wide, { maxLength: 40, size: "max" }).map((values) => Float64Array.from(values)));
    fc.assert(
      fc.property(cases, ({ f, src: values, options }) => {
        const o = options as { seed?: number; random?: ArrayLike<number>; stochasticBits?: number };
        const got = quantize(values, f, options);
        const [k0, k1] = seedKeys(o.seed ?? 0);
        const R = (i: number) => (o.stochasticBits === undefined ? undefined : o.random ? o.random[i] : randomR(k0, k1, i, o.stochasticBits));
        const { seed: _s, random: _r, ...projection } = options as Record<string, unknown>;
        for (let i = 0; i < values.length; i++) {
          expect(got[i], `${f.name} ${values[i]} (element ${i})`).toBe(encode(values[i]!, f, { ...projection, random: R(i) }));
        }
      }),
      fuzzParameters(300),
    );
  });

  it("quantize streams inputs longer than the scratch region identically (chunk boundaries, seeded R by absolute index)", () => {
    const f = format("Binary8p3se");
    fc.assert(
      fc.property(
        fc.integer({ min: 32768, max: 70000 }),
        fc.nat(0xffffffff),
        fc.constantFrom("StochasticA", "StochasticB", "StochasticC"),
        (n, seed, rounding) => {
          const src = new Float32Array(n).map((_, i) => Math.sin(i * 0.37) * 2 ** ((i % 23) - 12));
          const options = { rounding, stochasticBits: 7, seed } as const;
          const got = quantize(src, f, options);
          const want = reference(src, f, options);
          expect(got.findIndex((c, j) => c !== want[j])).toBe(-1);
        },
      ),
      fuzzParameters(3),
    );
  });

  it("dequantize equals the decode table for random in-range codes of every format of up to 16 bits", () => {
    const small = formats.filter((f) => f.K <= 16);
    fc.assert(
      fc.property(
        small.chain((f) => fc.tuple(fc.constant(f), fc.array(fc.nat(f.codeCount - 1), { maxLength: 200, size: "max" }), fc.integer({ min: 0, max: 3 }))),
        ([f, list, offset]) => {
          const type = codeArrayType(f) as typeof Uint8Array | typeof Uint16Array;
          const codes = new type(new ArrayBuffer((list.length + offset) * type.BYTES_PER_ELEMENT), offset * type.BYTES_PER_ELEMENT, list.length);
          codes.set(list);
          const got = new Uint32Array(dequantize(codes, f).buffer);
          const table = decodeTable32(f);
          expect(got.findIndex((b, i) => b !== table[codes[i]!])).toBe(-1);
        },
      ),
      fuzzParameters(300),
    );
  });

  it("pack/unpack round trips and the packed conversions agree with the unpacked ones (FP4, FP6)", () => {
    const packable = fc.constantFrom(...["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "Binary4p2se", "Binary6p3sf", "Binary6p1ue"].map((n) => format(n)));
    fc.assert(
      fc.property(
        packable.chain((f) => fc.tuple(fc.constant(f), float32Array(f, 150))),
        ([f, src]) => {
          const bits = f.K as 4 | 6;
          const codes = quantize(src, f) as Uint8Array;
          const packed = packCodes(codes, bits);
          expect(packed.length).toBe(packedLength(codes.length, bits));
          expect(Array.from(unpackCodes(packed, bits, codes.length))).toEqual(Array.from(codes));
          expect(Array.from(quantizePacked(src, f))).toEqual(Array.from(packed));
          const values = new Uint32Array(dequantizePacked(packed, f, codes.length).buffer);
          expect(Array.from(values)).toEqual(Array.from(new Uint32Array(dequantize(codes, f).buffer)));
        },
      ),
      fuzzParameters(200),
    );
  });
});
