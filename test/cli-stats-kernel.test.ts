// The quantize report's error sums: the Wasm kernel (assembly/stats.ts) against the TypeScript reference that
// defines them (same lanes, same order), field by field with Object.is; and the reference against hand-computed values.
import { describe, expect, it } from "vitest";
import { dequantize, quantize } from "../src/api/bulk.js";
import { ErrorStats } from "../src/cli/stats.js";
import { errorSumsReference } from "../src/io/error-sums.js";
import { overflowLimit } from "../src/cli/overflow.js";
import { format } from "../src/format/registry.js";
import { type Threshold, errorSumsWasm, float32Threshold } from "../src/wasm/stats.js";

let seed = 12345;
const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);

/**
 * Float32 patterns of every kind: random bits (NaN, ±∞, subnormals, ±0 included), and values near 448 and 464; or
 * (`tame`) finite values of moderate size only, whose sums stay finite and so show their order.
 */
function inputs(n: number, tame = false): Float32Array {
  const bits = new Uint32Array(n);
  const x = new Float32Array(bits.buffer);
  const special = [0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 1, 0x807fffff, 0x00800000, 0x7f7fffff];
  for (let i = 0; i < n; i++) {
    const r = tame ? 4 : next() % 8;
    if (r === 0) bits[i] = special[next() % special.length]!;
    else if (r === 1) x[i] = (next() % 2 ? -1 : 1) * [448, 464, 480, 464.00003, 463.99997, 57344, 61440][next() % 7]!;
    else if (r <= 3) bits[i] = next();
    else x[i] = ((next() / 2 ** 32 - 0.5) * 2 ** ((next() % 40) - 20)) as number;
  }
  return x;
}

/** Results of every kind: the E4M3 round trip of x (flushes, saturations, NaN), or random patterns. */
function results(x: Float32Array, mixed: boolean): Float32Array {
  const y = dequantize(quantize(x, "float8_e4m3fn", { saturation: mixed ? "SatPropagate" : "SatFinite" }), "float8_e4m3fn");
  if (mixed) for (let i = 0; i < y.length; i += 7) y[i] = inputs(1)[0]!;
  return y;
}

const THRESHOLDS: [Threshold, Threshold][] = [
  [
    { limit: 464, inclusive: false },
    { limit: 464, inclusive: true },
  ],
  [
    { limit: 448, inclusive: true },
    { limit: 480, inclusive: false },
  ],
  // Not float32 numbers: the kernel's float32 thresholds must decide as these do.
  [
    { limit: 464 + 2 ** -30, inclusive: true },
    { limit: 464 - 2 ** -30, inclusive: true },
  ],
  [
    { limit: 1e39, inclusive: true },
    { limit: 2 ** -140 * 1.1, inclusive: false },
  ],
  [
    { limit: Infinity, inclusive: false },
    { limit: Infinity, inclusive: false },
  ],
];

function expectSame(x: Float32Array, y: Float32Array, [pos, neg]: [Threshold, Threshold]): void {
  const want = errorSumsReference(x, y, pos, neg);
  const got = errorSumsWasm(x, y, pos, neg);
  expect(got).toBeDefined();
  for (const key of Object.keys(want) as (keyof typeof want)[]) {
    expect(Object.is(got![key], want[key]), `${key} of ${x.length} elements: kernel ${got![key]}, reference ${want[key]}`).toBe(true);
  }
}

describe("error sums kernel = reference, bit for bit", () => {
  it("every length 0…67 (the scalar tail in every lane), every threshold kind, with and without NaN results", () => {
    for (let n = 0; n <= 67; n++) {
      for (const mixed of [false, true]) {
        const x = inputs(n);
        const y = results(x, mixed);
        for (const t of THRESHOLDS) expectSame(x, y, t);
      }
    }
  });

  it("arrays longer than one stream chunk (lanes carried across chunks), offset views", () => {
    for (const n of [65536 * 3 + 5, 200_001, 100_002]) {
      const x = inputs(n + 3, n % 2 === 0);
      const y = results(x, n % 2 === 1);
      for (const t of THRESHOLDS) expectSame(x.subarray(3), y.subarray(3), t);
    }
  });

  it("blocks of 16 in-range inputs (summed in place) next to blocks holding NaN, ±∞ or an overflow, NaN results in both", () => {
    for (const n of [4096, 4096 + 9, 16 * 37 + 3]) {
      const x = inputs(n, true);
      const y = results(x, false);
      // One special input in some blocks of 16 (at every lane position across them), NaN results in others.
      const special = [Number.NaN, Infinity, -Infinity, 1e6, -1e6, 464, -464];
      for (let b = 0; b * 16 < n; b += 3) {
        const i = b * 16 + (b % 16);
        if (i < n) x[i] = special[b % special.length]!;
      }
      for (let i = 40; i < n; i += 97) y[i] = Number.NaN;
      for (const t of THRESHOLDS) expectSame(x, y, t);
      for (const t of THRESHOLDS) expectSame(x, results(x, false), t);
    }
  });

  it("the overflow thresholds of every deterministic rounding of E4M3 and E5M2 around their limits", () => {
    for (const name of ["float8_e4m3fn", "float8_e5m2"]) {
      const f = format(name);
      const x = inputs(4099);
      for (const rounding of ["NearestTiesToEven", "NearestTiesToAway", "TowardZero", "TowardPositive", "TowardNegative", "ToOdd"] as const) {
        const t: [Threshold, Threshold] = [overflowLimit(f, rounding, false), overflowLimit(f, rounding, true)];
        for (let i = 0; i < x.length; i += 5) x[i] = (i % 2 ? -1 : 1) * t[i % 2]!.limit;
        expectSame(x, results(x, false), t);
      }
    }
  });

  it("float32Threshold: the float32 limit at or below, inclusive only when exact", () => {
    expect(float32Threshold({ limit: 464, inclusive: true })).toEqual({ limit: 464, inclusive: true });
    expect(float32Threshold({ limit: 464 + 2 ** -30, inclusive: true })).toEqual({ limit: 464, inclusive: false });
    expect(float32Threshold({ limit: 464 - 2 ** -30, inclusive: true })).toEqual({ limit: 464 - 2 ** -15, inclusive: false });
    expect(float32Threshold({ limit: 1e39, inclusive: true })).toEqual({ limit: 3.4028234663852886e38, inclusive: false });
  });
});

describe("errorSumsReference and ErrorStats", () => {
  it("sums lanes i mod 4 as (s0 + s2) + (s1 + s3), leaves out NaN/±∞ inputs, counts flushes and overflows", () => {
    const x = Float32Array.of(1, 2, 3, 4, 5, NaN, -Infinity, 0.25, 500, -464);
    const y = Float32Array.of(1.5, 2, 2, 4, 6, 0, 0, 0, 448, -448);
    const s = errorSumsReference(x, y, { limit: 464, inclusive: false }, { limit: 464, inclusive: true });
    const e2 = [0.25, 0, 1, 0, 1, 0, 0, 0.0625, 52 * 52, 16 * 16];
    const lane = (k: number) => e2.filter((_, i) => i % 4 === k).reduce((a, b) => a + b, 0);
    expect(s.sumSquaredError).toBe(lane(0) + lane(2) + (lane(1) + lane(3)));
    expect(s.sumSquares).toBe(1 + 4 + 9 + 16 + 25 + 0.0625 + 250000 + 464 * 464);
    expect(s).toMatchObject({ measured: 8, maxAbsError: 52, flushed: 1, overflowed: 2 });
  });

  it("a NaN result makes the max NaN for good; chunks add up", () => {
    const stats = new ErrorStats();
    stats.add(Float32Array.of(1, 2), Float32Array.of(1, NaN));
    stats.add(Float32Array.of(1, 2), Float32Array.of(1, 3));
    expect(stats.maxAbsError).toBeNaN();
    expect(stats).toMatchObject({ elements: 4, measured: 4, overflowed: 0 });
  });
});
