// Tesla CFloat8 / CFloat16 (Tesla's CFloat specification; docs/semantics.md "Tesla CFloat"): the semantics this library chose for the
// ambiguities of §3.4, documented by test.
//  1. Denormals are IEEE-style, 2^(1−bias)·0.m (not the text's literal 2^(−bias)·0.m), so spacing is uniform.
//  2. Round-to-nearest is ties-to-even; round first, then compare with MaxFinite (IEEE order).
//  3. CFloat8/SHP have no Inf/NaN: overflow, ±Inf and NaN clamp (default saturation SatFinite); NaN → +MaxFinite.
//  4. Code 1.0000.000 is −0.
//  6. UHP: 6-bit exponent, 10-bit mantissa, bias 31; Inf = exponent all ones and mantissa 0, NaN otherwise,
//     canonical NaN has the mantissa MSB set.
//  8. UHP flushes: subnormal codes decode to 0 and results below MinNormal become 0.
// 12. Flags are counts per bulk call (quantize options.flags), added to across calls.
import { describe, expect, it } from "vitest";
import { decode, dequantize, encode, format, newFlags, quantize } from "../src/index.js";

const t8 = (E: 4 | 5, bias: number) => format(`cfloat8_1_${E}_${7 - E}`, { bias });

describe("Tesla ranges (IEEE-style denormals, docs/semantics.md)", () => {
  // [format, max, min normal, min denormal (IEEE-style)] from the table of §3.2.
  const rows: [string, ReturnType<typeof format>, number, number, number][] = [
    ["1_4_3 b=0", t8(4, 0), 61440, 2, 2 ** -2],
    ["1_4_3 b=7", t8(4, 7), 480, 2 ** -6, 2 ** -9],
    ["1_4_3 b=15", t8(4, 15), 1.875, 2 ** -14, 2 ** -17],
    ["1_4_3 b=63", t8(4, 63), 1.875 * 2 ** -48, 2 ** -62, 2 ** -65],
    ["1_5_2 b=0", t8(5, 0), 3758096384, 2, 2 ** -1],
    ["1_5_2 b=15", t8(5, 15), 114688, 2 ** -14, 2 ** -16],
    ["1_5_2 b=31", t8(5, 31), 1.75, 2 ** -30, 2 ** -32],
    ["1_5_2 b=63", t8(5, 63), 1.75 * 2 ** -32, 2 ** -62, 2 ** -64],
    ["SHP b=0", format("cfloat16_shp", { bias: 0 }), (2 - 2 ** -10) * 2 ** 31, 2, 2 ** -9],
    ["SHP b=15", format("cfloat16_shp", { bias: 15 }), 131008, 2 ** -14, 2 ** -24],
    ["SHP b=63", format("cfloat16_shp", { bias: 63 }), (2 - 2 ** -10) * 2 ** -32, 2 ** -62, 2 ** -72],
  ];
  for (const [label, f, max, minNormal, minDenormal] of rows) {
    it(`${label}: max ${max}, min normal ${minNormal}, min denormal ${minDenormal}; every exponent code is normal`, () => {
      expect(f.family).toBe("Tesla");
      expect(f.infinity).toBe(false);
      expect(f.hasNaN).toBe(false);
      // The all-ones exponent is an ordinary binade: the top code is MaxFinite.
      expect(f.maxFiniteCode).toBe(f.signBit - 1);
      expect(decode(f.maxFiniteCode, f)).toBe(max);
      expect(decode(f.minFiniteCode, f)).toBe(-max);
      expect(decode(f.minNormalCode, f)).toBe(minNormal);
      expect(decode(f.minPositiveCode, f)).toBe(minDenormal);
      // Uniform spacing across the denormal/normal boundary (the IEEE-style choice, §3.4 item 1).
      expect(decode(f.minNormalCode, f) - decode(f.minNormalCode - 1, f)).toBe(minDenormal);
      // dequantize gives the same values (all exact in float32).
      const Codes = f.K <= 8 ? Uint8Array : Uint16Array;
      const all = new Codes(f.codeCount);
      for (let c = 0; c < f.codeCount; c++) all[c] = c;
      const values = dequantize(all, f);
      const bad: number[] = [];
      for (let c = 0; c < f.codeCount; c++) if (!Object.is(values[c], Math.fround(decode(c, f)))) bad.push(c);
      expect(bad).toEqual([]);
    });
  }

  it("code 0x80 (sign bit, magnitude 0) is −0 and −0 encodes to it; +0 is code 0", () => {
    const f = t8(4, 7);
    expect(Object.is(decode(0x80, f), -0)).toBe(true);
    expect(encode(-0, f)).toBe(0x80);
    expect(encode(0, f)).toBe(0);
  });

  it("UHP: unsigned 6+10 bits, bias 31, Inf 0xFC00, NaN above it (canonical 0xFE00), max (2 − 2^−10)·2^31, min normal 2^−30", () => {
    const f = format("cfloat16_uhp");
    expect([f.K, f.P, f.bias, f.signed, f.infinity]).toEqual([16, 11, 31, false, true]);
    expect(decode(0xfc00, f)).toBe(Infinity);
    for (const c of [0xfc01, 0xfe00, 0xffff]) expect(decode(c, f)).toBeNaN();
    expect(f.nanCode).toBe(0xfe00);
    expect(decode(0xfbff, f)).toBe((2 - 2 ** -10) * 2 ** 31);
    expect(decode(0x0400, f)).toBe(2 ** -30);
    expect(decode(0x7c00, f)).toBe(1); // exponent field 31 = bias
    expect(decode(0x8000, f)).toBe(2);
  });
});

describe("Tesla rounding and clamping (default projection: NearestTiesToEven, SatFinite)", () => {
  const f = t8(4, 7); // max 480 = 1.875·2^8, ulp at the top 32

  it("round to nearest, ties to even", () => {
    expect(encode(1 + 1 / 16, f)).toBe(encode(1, f)); // tie between 1 (even code) and 1.125
    expect(encode(1 + 3 / 16, f)).toBe(encode(1.25, f)); // tie between 1.125 (odd) and 1.25 (even)
    expect(decode(encode(1 + 1 / 16 + 2 ** -20, f), f)).toBe(1.125);
  });

  it("round first, then clamp: (max, max + ½ulp) rounds to max without overflow; beyond clamps to ±max", () => {
    const flags = newFlags();
    const got = quantize(new Float32Array([490, 495.99, 496, 1e30, -1e30, -496]), f, { flags });
    expect([...got]).toEqual([0x7f, 0x7f, 0x7f, 0x7f, 0xff, 0xff]);
    expect(flags.overflow).toBe(4); // 496 ties up past max (480 is the odd code 0x7F), ±1e30 and −496
  });

  it("±Inf clamp to ±max and NaN (either sign) to +max, raising invalid", () => {
    const flags = newFlags();
    const got = quantize(new Float32Array([Infinity, -Infinity, NaN, -NaN]), f, { flags });
    expect([...got]).toEqual([0x7f, 0xff, 0x7f, 0x7f]);
    expect(flags).toEqual({ invalid: 4, denormal: 0, overflow: 0, underflow: 0 });
    // A NaN bit pattern with the sign bit set also clamps to +max.
    const negNaN = new Float32Array(new Uint32Array([0xffc00001]).buffer);
    expect(quantize(negNaN, f)[0]).toBe(0x7f);
    expect(encode(NaN, format("cfloat16_shp", { bias: 15 }))).toBe(0x7fff); // SHP has no reserved exponent
  });

  it("every saturation mode clamps in CFloat8/SHP (no Inf or NaN code exists)", () => {
    for (const saturation of ["SatFinite", "SatPropagate", "SatNone"] as const) {
      for (const rounding of ["NearestTiesToEven", "TowardZero", "TowardPositive"] as const) {
        expect(encode(1e30, f, { rounding, saturation }), `${rounding}/${saturation}`).toBe(0x7f);
        expect(encode(Infinity, f, { rounding, saturation }), `${rounding}/${saturation}`).toBe(0x7f);
        expect(encode(-Infinity, f, { rounding, saturation }), `${rounding}/${saturation}`).toBe(0xff);
      }
    }
  });

  it("stochastic rounding is reproducible per seed and always picks one of the two neighbours", () => {
    const src = Float32Array.from({ length: 4096 }, (_, i) => 1 + (i % 64) / 512);
    const a = quantize(src, f, { rounding: "StochasticA", stochasticBits: 8, seed: 42 });
    const b = quantize(src, f, { rounding: "StochasticA", stochasticBits: 8, seed: 42 });
    const c = quantize(src, f, { rounding: "StochasticA", stochasticBits: 8, seed: 43 });
    expect([...a]).toEqual([...b]);
    expect([...a]).not.toEqual([...c]);
    for (let i = 0; i < src.length; i++) {
      const lo = encode(src[i]!, f, { rounding: "TowardZero" });
      const hi = encode(src[i]!, f, { rounding: "TowardPositive" });
      expect(a[i] === lo || a[i] === hi, `element ${i}`).toBe(true);
    }
  });
});

describe("UHP flush and specials", () => {
  const f = format("cfloat16_uhp");

  it("subnormal codes decode to 0; results below MinNormal (2^−30) flush to 0 under every rounding", () => {
    for (const c of [1, 0x200, 0x3ff]) expect(decode(c, f)).toBe(0);
    expect(dequantize(Uint16Array.from([1, 0x3ff, 0x400]), f)).toEqual(Float32Array.from([0, 0, 2 ** -30]));
    for (const rounding of ["NearestTiesToEven", "TowardPositive", "ToOdd", "NearestTiesToAway"] as const) {
      expect(encode(2 ** -31, f, { rounding }), rounding).toBe(0);
      expect(encode(2 ** -30 * (1 - 2 ** -12), f, { rounding: "TowardZero" })).toBe(0);
    }
    // Rounding up to MinNormal is not a subnormal result: it stays.
    expect(encode(2 ** -30 * (1 - 2 ** -12), f, { rounding: "TowardPositive" })).toBe(0x400);
  });

  it("default SatFinite clamps overflow, +Inf and negatives; SatPropagate keeps +Inf; NaN gives the canonical NaN 0xFE00", () => {
    expect(encode(1e30, f)).toBe(0xfbff);
    expect(encode(Infinity, f)).toBe(0xfbff);
    expect(encode(Infinity, f, { saturation: "SatPropagate" })).toBe(0xfc00);
    expect(encode(1e30, f, { saturation: "SatNone" })).toBe(0xfc00);
    expect(encode(-1, f)).toBe(0);
    expect(encode(-Infinity, f)).toBe(0);
    expect(encode(NaN, f)).toBe(0xfe00);
  });
});

describe("exception flags from quantize(…, { flags }) (counts, added to across calls)", () => {
  it("invalid, denormal, overflow and underflow for CFloat8 1_4_3 bias 7", () => {
    const f = t8(4, 7);
    const flags = newFlags();
    const f32Denormal = new Float32Array(new Uint32Array([1]).buffer)[0]!; // 2^−149
    const src = new Float32Array([1, 1e30, -1e30, Infinity, NaN, f32Denormal, 2 ** -8, 1.3 * 2 ** -8, 2 ** -12]);
    const got = quantize(src, f, { flags });
    expect([...got]).toEqual([0x38, 0x7f, 0xff, 0x7f, 0x7f, 0x00, 0x02, 0x03, 0x00]);
    // invalid: Inf, NaN. denormal: the float32 subnormal input. overflow: ±1e30.
    // underflow (inexact and below MinNormal): 2^−149 → 0, 1.3·2^−8 → 0x03, 2^−12 → 0; exact 2^−8 does not count.
    expect(flags).toEqual({ invalid: 2, denormal: 1, overflow: 2, underflow: 3 });
    quantize(src, f, { flags });
    expect(flags).toEqual({ invalid: 4, denormal: 2, overflow: 4, underflow: 6 });
  });

  it("float64 subnormal inputs raise denormal; UHP flushed results raise underflow", () => {
    const flags = newFlags();
    quantize(new Float64Array([5e-324, 2 ** -31, 1]), format("cfloat16_uhp"), { flags });
    expect(flags).toEqual({ invalid: 0, denormal: 1, overflow: 0, underflow: 2 });
  });
});
