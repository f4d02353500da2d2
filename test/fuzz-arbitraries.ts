// Shared fast-check arbitraries and settings of the fuzz tests (test/fuzz-*.test.ts). The run count and seed come
// from FUZZ_RUNS / FUZZ_SEED (scripts/fuzz.mjs sets them for long runs); failures print the seed and path to replay.
import fc from "fast-check";
import { decodeTable32 } from "../src/exact/tables.js";
import { type Format, type Projection, ROUNDINGS, SATURATIONS, format, registeredNames } from "../src/index.js";

/** fast-check parameters: `scale` × FUZZ_RUNS runs (default 1 for the short run inside npm test). */
export function fuzzParameters(runs: number): fc.Parameters<unknown> {
  const factor = Number(process.env.FUZZ_RUNS ?? "1");
  const seed = process.env.FUZZ_SEED === undefined ? 20261122 : Number(process.env.FUZZ_SEED);
  return { numRuns: Math.max(1, Math.round(runs * factor)), seed, verbose: 1, endOnFailure: true };
}

/** Every registered vendor/IEEE format up to 32 bits (each once, under its canonical name). */
const VENDOR = [...new Set(registeredNames().map((n) => format(n)))].filter((f) => f.K <= 32);

/** P3109 Binary{K}p{P}{s|u}{e|f} with 3 ≤ K ≤ 16, every registered format, Tesla CFloat8/CFloat16 with a random bias. */
export const formats: fc.Arbitrary<Format> = fc.oneof(
  fc
    .record({ K: fc.integer({ min: 3, max: 16 }), signed: fc.boolean(), extended: fc.boolean(), p: fc.double({ min: 0, max: 1, noNaN: true }) })
    .map(({ K, signed, extended, p }) => {
      const P = 1 + Math.min(Math.floor(p * (signed ? K - 1 : K)), (signed ? K - 1 : K) - 1);
      return format(`Binary${K}p${P}${signed ? "s" : "u"}${extended ? "e" : "f"}`);
    }),
  fc.constantFrom(...VENDOR),
  fc.tuple(fc.constantFrom("cfloat8_1_4_3", "cfloat8_1_5_2", "cfloat16_shp"), fc.integer({ min: 0, max: 63 })).map(([name, bias]) => format(name, { bias })),
);

/** A projection: the format default, or any rounding × saturation (stochastic with N in [1, 32]). */
export const projections: fc.Arbitrary<Projection> = fc.oneof(
  fc.constant({}),
  fc
    .record({ rounding: fc.constantFrom(...ROUNDINGS), saturation: fc.constantFrom(...SATURATIONS), N: fc.integer({ min: 1, max: 32 }) })
    .map(({ rounding, saturation, N }) => (rounding.startsWith("Stochastic") ? { rounding, saturation, stochasticBits: N } : { rounding, saturation })),
);

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
export function bitsToFloat(bits: number): number {
  u32[0] = bits;
  return f32[0]!;
}
export function floatToBits(x: number): number {
  f32[0] = x;
  return u32[0]!;
}

/**
 * float32 bit patterns for f: any pattern, specials (±0, ±Inf, NaNs of both signs with payloads, subnormals, the
 * extremes) and values within a few ulps of f's codes and of the midpoints between neighbouring codes.
 */
export function float32Bits(f: Format): fc.Arbitrary<number> {
  const table = f.K <= 16 ? decodeTable32(f) : undefined;
  const near = table
    ? fc.tuple(fc.nat(table.length - 1), fc.integer({ min: -3, max: 3 }), fc.boolean()).map(([c, d, midpoint]) => {
        const v = bitsToFloat(table[c]!);
        const w = c + 1 < table.length ? bitsToFloat(table[c + 1]!) : v;
        const base = midpoint && Number.isFinite(v + w) ? floatToBits((v + w) / 2) : table[c]!;
        return (base + d) >>> 0;
      })
    : fc.nat(0xffffffff);
  return fc.oneof(
    { weight: 3, arbitrary: fc.nat(0xffffffff) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000, 1, 0x80000001),
    },
    { weight: 1, arbitrary: fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 0x7fffff })).map(([s, p]) => ((s ? 0xff800000 : 0x7f800000) | p) >>> 0) },
    { weight: 1, arbitrary: fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 0x7fffff })).map(([s, p]) => ((s ? 0x80000000 : 0) | p) >>> 0) },
    { weight: 4, arbitrary: near },
  );
}

/** A Float32Array of the given bit patterns at a random element offset inside a larger buffer (unaligned starts). */
export function float32Array(f: Format, maxLength: number): fc.Arbitrary<Float32Array> {
  return fc.tuple(fc.array(float32Bits(f), { maxLength, size: "max" }), fc.integer({ min: 0, max: 5 })).map(([bits, offset]) => {
    const a = new Float32Array(new ArrayBuffer((bits.length + offset) * 4), offset * 4, bits.length);
    new Uint32Array(a.buffer, a.byteOffset, a.length).set(bits);
    return a;
  });
}
