// Per-block passes over bands of rows (src/block/bands.ts): the Wasm kernels (assembly/bands.ts; the amax also on
// JavaScript arrays, streamed) against the TypeScript loops (kernels off), bit for bit, over grids with partial blocks
// and blocks narrower than a vector, values from subnormal to near overflow with signed zeros, and the first ±∞/NaN.
import { describe, expect, it } from "vitest";
import { blockAmax, blockScale } from "../src/block/bands.js";
import { allocFloat32 } from "../src/index.js";
import { type BlockGrid, MULTIPLY, scaleBlocksWasm } from "../src/wasm/bands.js";
import { transposeWasm } from "../src/wasm/transpose.js";
import { onReference } from "./kernel-switch.js";

/** Deterministic float32 values: random signs, significands and exponents over ±2^−149 … 2^127, some ±0. */
function values(n: number, seed: number): Float32Array {
  const bits = new Uint32Array(n);
  for (let i = 0, s = seed; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const t = (Math.imul(s, 2654435761) >>> 0) ^ (s >>> 13);
    bits[i] = s % 29 === 0 ? (s & 0x80000000) >>> 0 : ((s & 0x80000000) | (((t >>> 7) % 0xfe) << 23) | (t & 0x7fffff)) >>> 0;
  }
  return new Float32Array(bits.buffer);
}

const u32 = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

/** The first index where the bits of a and b differ, or −1 (a quick report for long arrays). */
function firstDifference(a: Float32Array, b: Float32Array): number {
  const [x, y] = [u32(a), u32(b)];
  expect(x.length).toBe(y.length);
  return x.findIndex((v, i) => v !== y[i]);
}

/** x in Wasm memory and in a JavaScript array. */
function both(x: Float32Array): { wasm: Float32Array; js: Float32Array; free: () => void } {
  const a = allocFloat32(x.length);
  a.array.set(x);
  return { wasm: a.array, js: x.slice(), free: () => a.free() };
}

const GRIDS: (BlockGrid & { label: string })[] = [
  { label: "128×128 blocks, whole", rows: 256, K: 512, width: 128, bh: 128 },
  { label: "blocks of 16, rows of 100 (partial last block)", rows: 5, K: 100, width: 16, bh: 1 },
  { label: "blocks of 32, K = 70", rows: 3, K: 70, width: 32, bh: 1 },
  { label: "blocks of 3 (narrower than a vector), 2 rows high, odd rows", rows: 7, K: 10, width: 3, bh: 2 },
  { label: "128×128 blocks, partial in both directions", rows: 130, K: 131, width: 128, bh: 128 },
  { label: "one block (a whole-tensor scale)", rows: 9, K: 37, width: 37, bh: 9 },
];

const blocksOf = (g: BlockGrid) => Math.ceil(g.rows / g.bh) * Math.ceil(g.K / g.width);

describe("blockAmax: kernel equals loop", () => {
  for (const g of GRIDS) {
    it(g.label, () => {
      const x = values(g.rows * g.K, g.K + g.rows);
      const { wasm, js, free } = both(x);
      try {
        const start = Float32Array.from({ length: blocksOf(g) }, (_, i) => (i % 3 === 0 ? 2 ** -100 : 0));
        const [a, b] = [start.slice(), start.slice()];
        const c = start.slice();
        expect(blockAmax(wasm, g, a)).toBe(-1);
        expect(onReference(() => blockAmax(js, g, b))).toBe(-1);
        expect(blockAmax(js, g, c)).toBe(-1); // streamed through Wasm memory
        expect(u32(a)).toEqual(u32(b));
        expect(u32(c)).toEqual(u32(b));
        // The loop itself: block 0's amax is the largest |x| of its elements.
        let m = start[0]!;
        for (let r = 0; r < Math.min(g.bh, g.rows); r++) for (let c = 0; c < Math.min(g.width, g.K); c++) m = Math.max(m, Math.abs(x[r * g.K + c]!));
        expect(b[0]).toBe(m);
      } finally {
        free();
      }
    });
  }

  it("returns the index of the first ±∞ or NaN in element order", () => {
    const g = GRIDS[4]!;
    for (const [at, v] of [
      [0, Number.POSITIVE_INFINITY],
      [131 * 5 + 129, Number.NaN],
      [131 * 129 + 130, Number.NEGATIVE_INFINITY],
    ] as const) {
      const x = values(g.rows * g.K, 3);
      x[at] = v;
      x[g.rows * g.K - 1] = Number.NaN; // a later one is not reported
      const { wasm, js, free } = both(x);
      try {
        expect(blockAmax(wasm, g, new Float32Array(blocksOf(g)))).toBe(at);
        expect(onReference(() => blockAmax(js, g, new Float32Array(blocksOf(g))))).toBe(at);
        expect(blockAmax(js, g, new Float32Array(blocksOf(g)))).toBe(at);
      } finally {
        free();
      }
    }
  });
});

describe("blockScale: kernel equals loop", () => {
  for (const g of GRIDS) {
    for (const multiply of [false, true]) {
      for (const plusZero of [false, true]) {
        it(`${g.label}, ${multiply ? "×" : "÷"}${plusZero ? ", −0 → +0" : ""}`, () => {
          const x = values(g.rows * g.K, g.rows * 31 + g.K);
          // Factors from subnormal to huge, odd significands: quotients overflow, underflow and round.
          const factor = values(blocksOf(g), 77).map((f) => Math.abs(f) || 1);
          const { wasm, js, free } = both(x);
          try {
            const outJs = new Float32Array(x.length);
            blockScale(wasm, wasm, g, factor, multiply, plusZero);
            onReference(() => blockScale(js, outJs, g, factor, multiply, plusZero));
            expect(firstDifference(wasm, outJs)).toBe(-1);
            // The loop itself, on a few elements: one float32 rounding of the exact quotient (or product).
            const cols = Math.ceil(g.K / g.width);
            for (const i of [0, 1, x.length - 1]) {
              const r = Math.floor(i / g.K);
              const f = factor[Math.floor(r / g.bh) * cols + Math.floor((i % g.K) / g.width)]!;
              const want = Math.fround(multiply ? x[i]! * f : x[i]! / f);
              expect(Object.is(outJs[i], plusZero && want === 0 ? 0 : want)).toBe(true);
            }
            if (plusZero) expect(outJs.some((v) => Object.is(v, -0))).toBe(false);
            else expect(x.some((v, i) => Object.is(v, -0) && !Object.is(outJs[i], -0))).toBe(false);
          } finally {
            free();
          }
        });
      }
    }
  }

  it("a zero factor (a NaN quotient 0 / 0) takes the loop in Wasm memory too", () => {
    const g = GRIDS[1]!;
    const x = values(g.rows * g.K, 5);
    x[0] = 0;
    const factor = new Float32Array(blocksOf(g)).fill(0.5);
    factor[0] = 0;
    const { wasm, js, free } = both(x);
    try {
      const outJs = new Float32Array(x.length);
      blockScale(wasm, wasm, g, factor, false, false);
      onReference(() => blockScale(js, outJs, g, factor, false, false));
      expect(u32(wasm)).toEqual(u32(outJs));
      expect(outJs[0]).toBeNaN();
    } finally {
      free();
    }
  });

  it("the kernel refuses 0, −0, ±∞ and NaN factors, in the first or the last block, before writing anything", () => {
    const g = GRIDS[1]!;
    const x = values(g.rows * g.K, 9);
    for (const bad of [0, -0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN]) {
      for (const at of [0, blocksOf(g) - 1]) {
        const factor = new Float32Array(blocksOf(g)).fill(0.75);
        factor[at] = bad;
        const { wasm, free } = both(x);
        try {
          const before = u32(wasm);
          expect(scaleBlocksWasm(wasm, wasm, g, factor, 0)).toBe(false);
          expect(u32(wasm)).toEqual(before);
        } finally {
          free();
        }
      }
    }
    // The smallest and largest finite factors are taken.
    const factor = new Float32Array(blocksOf(g)).fill(2 ** -149);
    factor[1] = 3.4028234663852886e38;
    const { wasm, free } = both(x);
    try {
      expect(scaleBlocksWasm(wasm, wasm, g, factor, MULTIPLY)).toBe(true);
    } finally {
      free();
    }
  });
});

describe("transposeWasm (gpt-oss experts [K, N] → [N, K])", () => {
  for (const [K, N] of [
    [1, 1],
    [3, 5],
    [4, 4],
    [37, 70],
    [64, 96],
    [130, 67],
  ] as const) {
    it(`${K} × ${N}`, () => {
      const src = allocFloat32(K * N);
      const dst = allocFloat32(K * N);
      try {
        src.array.set(values(K * N, K * 100 + N));
        expect(transposeWasm(src.array, K, N, dst.array)).toBe(true);
        const [from, to] = [u32(src.array), u32(dst.array)];
        let bad = -1;
        for (let k = 0; k < K && bad < 0; k++) for (let n = 0; n < N; n++) if (to[n * K + k] !== from[k * N + n]) bad = n * K + k;
        expect(bad).toBe(-1);
      } finally {
        src.free();
        dst.free();
      }
    });
  }
});
