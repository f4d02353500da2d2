// quantize of float64 input on the float32 encode kernel through rounding to odd (src/exact/round-to-odd.ts) equals
// the exact reference (useKernels(false)) for values around every rounding boundary of the target: its codes' values,
// the midpoints between them and their float64 neighbours, values beyond float32's range and below its subnormals,
// under every deterministic rounding and saturation.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { planQuantize } from "../src/api/plan.js";
import { roundToOddFloat32 } from "../src/exact/round-to-odd.js";
import { allocFloat32, decode, format, quantize, useKernels } from "../src/index.js";
import { roundToOddWasm } from "../src/wasm/odd.js";

afterEach(() => useKernels(true));

const ROUNDINGS = ["NearestTiesToEven", "NearestTiesToAway", "TowardZero", "TowardPositive", "TowardNegative", "ToOdd"] as const;
const SATURATIONS = ["SatFinite", "SatPropagate", "SatNone"] as const;
const FORMATS = [
  "float8_e4m3fn",
  "float8_e5m2",
  "float8_e4m3fnuz",
  "Binary8p3se",
  "Binary8p1ue",
  "float6_e3m2fn",
  "float4_e2m1fn",
  "bfloat16",
  "float16",
  "Binary16p11se",
  "Binary12p7sf",
  "cfloat16_uhp",
];

/** float64 neighbours of v: one ulp each side. */
function neighbours(v: number): number[] {
  const b = new Float64Array([v]);
  const u = new BigInt64Array(b.buffer);
  const out: number[] = [];
  for (const d of [-1n, 1n]) {
    u[0] = u[0]! + d;
    out.push(b[0]!);
    u[0] = u[0]! - d;
  }
  return out;
}

/** Values around every boundary of f: each finite value, each midpoint, their neighbours and their negatives, plus extremes. */
function boundaryValues(name: string): Float64Array {
  const f = format(name);
  // 16-bit formats: every 61st code (the boundaries of a few hundred binade positions), to keep the reference quick.
  const step = f.K > 8 ? 61 : 1;
  const edges = [1, 2, f.minNormalCode - 1, f.minNormalCode, f.minNormalCode + 1, f.maxFiniteCode - 1, f.maxFiniteCode];
  const codes = [...Array.from({ length: Math.ceil(f.codeCount / step) }, (_, c) => c * step), ...edges.filter((c) => c >= 0 && c < f.codeCount)];
  const values = [...new Set(codes.map((c) => decode(c, f)))].filter(Number.isFinite).sort((a, b) => a - b);
  const out = [0, -0, Infinity, -Infinity, NaN, 1e300, -1e300, 3.4e38, 3.5e38, 2 ** 128, 2 ** 128 - 2 ** 100, 2 ** -149, 2 ** -150, 3 * 2 ** -151, 1e-300];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const mid = i + 1 < values.length ? (v + values[i + 1]!) / 2 : v * 1.0625;
    for (const x of [v, mid, ...neighbours(v), ...neighbours(mid)]) out.push(x, -x);
  }
  return Float64Array.from(out);
}

function reference(x: Float64Array, name: string, options: object): number[] {
  useKernels(false);
  try {
    return Array.from(quantize(x, name, options));
  } finally {
    useKernels(true);
  }
}

describe("quantize(Float64Array) on the float32 kernel through rounding to odd", () => {
  it("takes the kernel path for these formats (so the comparisons below test it)", () => {
    for (const name of FORMATS) expect(planQuantize(new Float64Array(1), name, { rounding: "TowardZero" }).run.kernel).toBe("encodeF64");
  });

  for (const name of FORMATS) {
    it(`${name}: every deterministic projection of the values around every boundary equals the exact reference`, () => {
      const x = boundaryValues(name);
      for (const rounding of ROUNDINGS) {
        for (const saturation of SATURATIONS) {
          const options = { rounding, saturation };
          expect({ name, options, codes: Array.from(quantize(x, name, options)) }).toEqual({ name, options, codes: reference(x, name, options) });
        }
      }
    });
  }

  it("random float64 values of every magnitude agree with the reference (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...FORMATS), fc.constantFrom(...ROUNDINGS), fc.float64Array({ minLength: 1, maxLength: 64 }), (name, rounding, x) => {
        const options = { rounding, saturation: "SatFinite" as const };
        expect(Array.from(quantize(x, name, options))).toEqual(reference(x, name, options));
      }),
      { numRuns: 300, seed: 20261126 },
    );
  });

  it("rounds to odd: exact values kept, others to the odd neighbour toward x", () => {
    const x = Float64Array.of(1, 1 + 2 ** -30, 1 - 2 ** -30, -(1 + 2 ** -30), 2 ** 200, -(2 ** 200), 2 ** -160, -(2 ** -160), 0, -0);
    const bits = Array.from(new Uint32Array(roundToOddFloat32(x).buffer));
    expect(bits).toEqual([0x3f800000, 0x3f800001, 0x3f7fffff, 0xbf800001, 0x7f7fffff, 0xff7fffff, 0x00000001, 0x80000001, 0, 0x80000000]);
  });
});

describe("roundToOddWasm equals roundToOddFloat32", () => {
  it("around float32 rounding boundaries, beyond its range, below its subnormals, signed zeros; counts NaN and ≥ 2^128", () => {
    const values: number[] = [0, -0, 2 ** 128, -(2 ** 129), Number.POSITIVE_INFINITY, Number.NaN, 2 ** 128 * (1 - 2 ** -53)];
    for (let e = -160; e <= 130; e += 3) {
      for (const m of [1, 1 + 2 ** -24, 1 + 2 ** -23, 1 + 3 * 2 ** -24, 1.5, 2 - 2 ** -24, 1 + 2 ** -30, 1 + 2 ** -52]) {
        const v = m * 2 ** e;
        values.push(v, -v, v * (1 + 2 ** -52), v * (1 - 2 ** -53));
      }
    }
    const x = Float64Array.from(values);
    const fromWasm = allocFloat32(x.length);
    try {
      const beyond = roundToOddWasm(x, fromWasm.array);
      expect(beyond).toBe(x.filter((v) => !(Math.abs(v) < 2 ** 128)).length);
      const want = new Uint32Array(roundToOddFloat32(x).buffer);
      const got = new Uint32Array(fromWasm.array.buffer, fromWasm.array.byteOffset, x.length);
      const mismatch = [...x.keys()].filter((i) => !Number.isNaN(x[i]) && got[i] !== want[i]);
      expect(mismatch).toEqual([]);
      // Through a JavaScript output array too (copied out of Wasm memory), with a length not a multiple of 4.
      const out = new Float32Array(x.length - 1);
      roundToOddWasm(x.subarray(1), out);
      expect(new Uint32Array(out.buffer).filter((b, i) => !Number.isNaN(x[i + 1]) && b !== want[i + 1]).length).toBe(0);
    } finally {
      fromWasm.free();
    }
  });
});
