// The exact-values kernel of small scale blocks (assembly/scaled-values.ts through src/wasm/scaled-values.ts) on
// ranges longer than a stream chunk (65 536 elements), starting mid-row, with blocks of several rows, a partial last
// block per row and a divisor: against the formula itself (value(code) · scale · m, ÷ g), computed here in float64,
// and its float32 and round-to-odd forms against Math.fround and roundToOddFloat32 of those values.
import { describe, expect, it } from "vitest";
import { roundToOddFloat32 } from "../src/exact/round-to-odd.js";
import { type ValuesForm, scaledValuesWasm } from "../src/wasm/scaled-values.js";

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe("scaledValuesWasm", () => {
  // E2M1-like values with a NaN code (15) and codes beyond the table (> 15) that read NaN.
  const table = Float64Array.from([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0, -0.5, -1, -1.5, -2, -3, -4, Number.NaN]);
  for (const { K, width, bh, start, n, g } of [
    { K: 1000, width: 16, bh: 1, start: 37, n: 150_000, g: 0 },
    { K: 4096, width: 32, bh: 3, start: 4096 * 2 + 5, n: 200_003, g: 448 * 6 },
    { K: 70, width: 32, bh: 2, start: 69, n: 70_000, g: 0 },
  ]) {
    it(`rows of ${K}, blocks ${bh}×${width}, from element ${start}, ${n} elements${g ? `, ÷ ${g}` : ""}`, () => {
      const r = lcg(K + n);
      const codes = Uint8Array.from({ length: n }, () => (r() < 0.001 ? 200 : Math.floor(r() * 16)));
      const cols = Math.ceil(K / width);
      const firstBlockRow = Math.floor(Math.floor(start / K) / bh);
      const lastBlockRow = Math.floor(Math.floor((start + n - 1) / K) / bh);
      // Factors: a float32 scale times a float32 multiplier (exact in float64), from float32 subnormals to
      // beyond its range (values of 2^128 and more, which rounding to odd leaves to the host).
      const factors = Float64Array.from(
        { length: (lastBlockRow - firstBlockRow + 1) * cols },
        () => Math.fround(2 ** (r() * 270 - 135)) * Math.fround(1 + r()),
      );
      const want = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const e = start + i;
        const row = Math.floor(e / K);
        const f = factors[(Math.floor(row / bh) - firstBlockRow) * cols + Math.floor((e % K) / width)]!;
        const v = codes[i]! < table.length ? table[codes[i]!]! : Number.NaN;
        want[i] = Number.isNaN(v) ? v : g ? (v * f) / g : v * f;
      }
      const grid = { start, K, width, bh };
      const check = (form: ValuesForm, out: Float64Array | Float32Array, expected: Float64Array | Float32Array) => {
        scaledValuesWasm(codes, grid, factors, table, g, out, form);
        const mismatch = expected.findIndex((w, i) => !Object.is(w, out[i]) && !(Number.isNaN(w) && Number.isNaN(out[i])));
        expect(mismatch).toBe(-1);
      };
      check("float64", new Float64Array(n), want);
      check("float32", new Float32Array(n), Float32Array.from(want));
      const odd = roundToOddFloat32(want);
      const out = new Float32Array(n);
      const beyond = scaledValuesWasm(codes, grid, factors, table, g, out, "float32-odd");
      const large = want.filter((v) => Math.abs(v) >= 2 ** 128).length;
      expect(large).toBeGreaterThan(0);
      expect(beyond).toBe(want.filter((v) => !(Math.abs(v) < 2 ** 128)).length);
      expect(want.some((v) => v !== 0 && Math.abs(v) < 2 ** -126)).toBe(true);
      const bits = [new Uint32Array(odd.buffer), new Uint32Array(out.buffer)] as const;
      expect(bits[0].findIndex((b, i) => !(Math.abs(want[i]!) >= 2 ** 128) && !Number.isNaN(want[i]) && b !== bits[1][i])).toBe(-1);
    });
  }
});
