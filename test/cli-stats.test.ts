// inspect's statistics: the standard deviation stays accurate when the spread is tiny next to the mean (norm gains
// near 1, large offsets), across chunks and merged tensors.
import { describe, expect, it } from "vitest";
import { ValueStats } from "../src/cli/stats.js";

/** Exact mean and population standard deviation (np.std's definition) of values that are multiples of 2^−64. */
function exact(x: ArrayLike<number>): { mean: number; std: number } {
  const n = BigInt(x.length);
  let sum = 0n;
  let squares = 0n;
  for (let i = 0; i < x.length; i++) {
    const v = BigInt(x[i]! * 2 ** 64);
    sum += v;
    squares += v * v;
  }
  // n²·variance·2^128 = n·Σv² − (Σv)², exactly; then one float64 division and square root.
  const variance = Number(n * squares - sum * sum) / Number(n * n) / 2 ** 128;
  return { mean: Number(sum) / Number(n) / 2 ** 64, std: Math.sqrt(variance) };
}

describe("ValueStats", () => {
  it.each([
    ["gains near 1 (float32)", Float32Array.from({ length: 5000 }, (_, i) => 1 + ((i * 7919) % 13) * 2 ** -23)],
    ["values near 3000 (float32)", Float32Array.from({ length: 5000 }, (_, i) => 3000 + ((i * 31) % 17) * 2 ** -12)],
    // A float64 mean near 1e10 is itself only good to 2^−20, so the spread here is a thousand times that.
    ["values near 1e10 (float64)", Float64Array.from({ length: 5000 }, (_, i) => 1e10 + ((i * 13) % 11) * 2 ** -10)],
  ])("%s: mean and std equal their exact values, in chunks and merged", (_, x) => {
    const expected = exact(x);
    const whole = new ValueStats();
    whole.add(x);
    const merged = new ValueStats();
    for (const [a, b] of [
      [0, 1234],
      [1234, 1235],
      [1235, 4000],
      [4000, 5000],
    ] as const) {
      const part = new ValueStats();
      part.add(x.subarray(a, b));
      merged.merge(part);
    }
    for (const s of [whole, merged]) {
      expect(Math.abs(s.std - expected.std) / expected.std).toBeLessThan(1e-6);
      expect(Math.abs(s.mean - expected.mean) / expected.mean).toBeLessThan(1e-15);
      expect(s.finite).toBe(5000);
    }
  });

  it("leaves NaN and ±∞ out of the moments and counts them", () => {
    const s = new ValueStats();
    s.add(Float32Array.of(1, Number.NaN, 3, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY));
    expect([s.mean, s.std, s.nan, s.infinite, s.finite, s.count]).toEqual([2, 1, 1, 2, 2, 5]);
    const empty = new ValueStats();
    empty.add(new Float32Array(0));
    expect([empty.mean, empty.std]).toEqual([Number.NaN, Number.NaN]);
  });
});
