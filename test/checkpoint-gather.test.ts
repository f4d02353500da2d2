// Block-scaled dequantization by per-block tables: the Wasm gather (assembly/scaled.ts) against its TypeScript
// reference (gatherRows), and Checkpoint.readRounded's table path against rounding readExact's exact values once,
// over every E4M3 code under subnormal, huge, zero, power-of-two and odd scales, partial blocks and unaligned ranges.
import { describe, expect, it } from "vitest";
import { gatherRows, roundTo, type Target } from "../src/checkpoint/decode.js";
import { dequantize, quantize } from "../src/index.js";
import { CheckpointError, openCheckpoint } from "../src/io/index.js";
import { gatherCodedWasm, gatherScaledWasm } from "../src/wasm/scaled.js";
import { onReference } from "./kernel-switch.js";

const bitsOf = (a: Float32Array | Uint16Array) => (a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a);

/** Deterministic bytes (a linear congruential sequence). */
function pseudoRandom(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0, x = seed; i < n; i++) out[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  return out;
}

describe("gatherCodedWasm: one table per scale code", () => {
  // Grids with odd row lengths and widths (nibble blocks starting at odd elements), blocks of several rows, a range
  // starting mid-block-row, and more than one stream chunk.
  const grids = [
    { start: 0, K: 64, width: 16, bh: 1, n: 64 * 40 },
    { start: 2 * 1000 + 6, K: 1000, width: 32, bh: 1, n: 150_000 },
    { start: 10, K: 7, width: 3, bh: 2, n: 1001 },
    { start: 7 * 9 + 5, K: 9, width: 5, bh: 4, n: 333 },
    { start: 2, K: 11, width: 11, bh: 3, n: 1 },
  ];
  for (const { n, ...grid } of grids) {
    for (const nibbles of [true, false]) {
      for (const type of [Uint16Array, Uint32Array]) {
        it(`${type.name}, ${nibbles ? "nibbles" : "bytes"}, rows of ${grid.K} from element ${grid.start}, blocks of ${grid.bh} × ${grid.width}, ${n} elements`, () => {
          const entries = nibbles ? 16 : 256;
          const bytes = pseudoRandom(nibbles ? Math.ceil(n / 2) : n, n + grid.K);
          const code = (i: number) => (nibbles ? (bytes[i >> 1]! >> ((i & 1) * 4)) & 15 : bytes[i]!);
          const cols = Math.ceil(grid.K / grid.width);
          const firstBlockRow = Math.floor(Math.floor(grid.start / grid.K) / grid.bh);
          const lastBlockRow = Math.floor(Math.floor((grid.start + n - 1) / grid.K) / grid.bh);
          const scaleCodes = pseudoRandom((lastBlockRow - firstBlockRow + 1) * cols, 3);
          const tables = new type(pseudoRandom(256 * entries * type.BYTES_PER_ELEMENT, 11).buffer);
          const want = new type(n);
          for (let i = 0; i < n; i++) {
            const e = grid.start + i;
            const row = Math.floor(e / grid.K);
            const s = scaleCodes[(Math.floor(row / grid.bh) - firstBlockRow) * cols + Math.floor((e - row * grid.K) / grid.width)]!;
            want[i] = tables[s * entries + code(i)]!;
          }
          const got = new type(n).fill(1);
          expect(gatherCodedWasm(bytes, nibbles, grid, scaleCodes, tables, entries, got)).toBe(true);
          expect(got).toEqual(want);
        });
      }
    }
  }

  it("nibbles from an odd element: ArgumentTypeError naming grid.start", () => {
    const run = () =>
      gatherCodedWasm(new Uint8Array(4), true, { start: 1, K: 8, width: 4, bh: 1 }, new Uint8Array(2), new Uint16Array(512), 16, new Uint16Array(7));
    expect(run).toThrow(/grid.start.*even/);
  });
});

describe("gatherScaledWasm equals gatherRows", () => {
  const spans = [
    { column: 0, rowLength: 4096, width: 128, n: 3 * 4096 },
    { column: 17, rowLength: 1000, width: 128, n: 150_000 }, // partial first row and last block, more than one stream chunk
    { column: 999, rowLength: 1000, width: 1000, n: 2001 },
    { column: 5, rowLength: 7, width: 1, n: 100 },
    { column: 3, rowLength: 130, width: 64, n: 1 },
  ];
  for (const { n, ...span } of spans) {
    for (const type of [Uint16Array, Uint32Array]) {
      it(`${type.name}, column ${span.column} of rows of ${span.rowLength}, blocks of ${span.width}, ${n} elements`, () => {
        const blocks = Math.ceil(span.rowLength / span.width);
        const codes = pseudoRandom(n, n + span.column);
        const raw = pseudoRandom(blocks * 256 * type.BYTES_PER_ELEMENT, 7);
        const tables = new type(raw.buffer);
        const want = new type(n);
        gatherRows(codes, want, span, tables, 256);
        const got = new type(n).fill(1);
        expect(gatherScaledWasm(codes, got, span, tables, 256)).toBe(true);
        expect(got).toEqual(want);
        // Spot checks of the reference itself: element i reads its block's table at its code.
        for (const i of [0, n - 1, Math.floor(n / 2)]) {
          const block = Math.floor(((span.column + i) % span.rowLength) / span.width);
          expect(want[i]).toBe(tables[block * 256 + codes[i]!]);
        }
      });
    }
  }
});

/** A DeepSeek-style checkpoint as a Blob: F8_E4M3 [rows, K] with F32 scales per block, and its config. */
function checkpointBlob(rows: number, K: number, block: [number, number], scales: Float32Array): { blob: Blob; config: unknown } {
  const grid = [Math.ceil(rows / block[0]), Math.ceil(K / block[1])];
  expect(scales.length).toBe(grid[0]! * grid[1]!);
  const codes = new Uint8Array(rows * K);
  for (let i = 0; i < codes.length; i++) codes[i] = (i * 7 + Math.floor(i / K)) & 255; // every code in every block
  const header = {
    "w.weight": { dtype: "F8_E4M3", shape: [rows, K], data_offsets: [0, codes.length] },
    "w.weight_scale_inv": { dtype: "F32", shape: grid, data_offsets: [codes.length, codes.length + scales.byteLength] },
  };
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(json.length), true);
  const blob = new Blob([length, new TextEncoder().encode(json), codes, new Uint8Array(scales.buffer)]);
  const config = { quantization_config: { quant_method: "fp8", fmt: "e4m3", activation_scheme: "dynamic", weight_block_size: block } };
  return { blob, config };
}

describe("readRounded by tables equals readExact rounded once", () => {
  const f32 = (x: number) => Math.fround(x);
  // 4 × 4 blocks of 32 × 64 (2048 elements: the table path) over 100 × 200 elements: the last block row has 4 rows,
  // the last block column 8 columns.
  const scales = Float32Array.of(
    2 ** -149, // subnormal: most products underflow
    3 * 2 ** -149,
    f32(1.5e-39),
    0,
    1,
    2 ** -10,
    2 ** 20,
    f32(1 / 3),
    f32(0.1),
    f32(1.234e-4),
    f32(3e38), // huge: most products overflow
    f32(65504 / 448),
    f32(7 * 2 ** -20), // odd significand near the float16 subnormal range
    f32(2 ** -24 / 3),
    f32(255 / 7),
    3.4028234663852886e38,
  );
  const { blob, config } = checkpointBlob(100, 200, [32, 64], scales);
  const ranges: [number, number][] = [
    [0, 20000],
    [137, 6400], // starts mid-row, crosses block rows
    [6399, 2], // across a block-row boundary
    [19999, 1],
    [201, 199], // within one row
  ];
  for (const to of ["BF16", "F16", "F32"] as Target[]) {
    it(`${to}: Wasm tables, reference tables and per-element rounding agree bit for bit`, async () => {
      const c = await openCheckpoint(blob, { config });
      try {
        expect(c.tensor("w.weight").scheme).toBe("deepseek-fp8");
        for (const [start, count] of ranges) {
          const want = bitsOf(roundTo(await c.readExact("w.weight", start, count), to));
          const got = await c.readRounded("w.weight", to, start, count);
          expect(bitsOf(got)).toEqual(want);
          const reference = await onReference(() => c.readRounded("w.weight", to, start, count));
          expect(bitsOf(reference)).toEqual(want);
          const out = to === "F32" ? new Float32Array(count) : new Uint16Array(count);
          expect(await c.readRounded("w.weight", to, start, count, out)).toBe(out);
          expect(bitsOf(out)).toEqual(want);
        }
      } finally {
        await c.close();
      }
    });
  }

  it("refuses a NaN scale and an out array of the wrong type or length", async () => {
    const bad = scales.slice();
    bad[5] = Number.NaN;
    const { blob: nan } = checkpointBlob(100, 200, [32, 64], bad);
    const c = await openCheckpoint(nan, { config });
    try {
      await expect(c.readRounded("w.weight", "BF16", 0, 20000)).rejects.toThrow(CheckpointError);
      await expect(c.readRounded("w.weight", "BF16", 0, 20000)).rejects.toThrow(/element 5 is NaN; allowed: a finite non-negative scale/);
      await expect(c.readRounded("w.weight", "BF16", 0, 10, new Uint16Array(9))).rejects.toThrow(/out.*has 9 elements; allowed: a Uint16Array of 10/);
      await expect(c.readRounded("w.weight", "F32", 0, 10, new Uint16Array(10) as never)).rejects.toThrow(/allowed: a Float32Array of 10/);
    } finally {
      await c.close();
    }
  });
});

describe("unscaled narrow tensors through one table", () => {
  it("F8_E4M3 → BF16, F16 and F32 equal the kernels' dequantize rounded once, whole and in ranges", async () => {
    const codes = new Uint8Array(3 * 1000);
    for (let i = 0; i < codes.length; i++) codes[i] = (i * 13 + 5) & 255;
    const json = JSON.stringify({ w: { dtype: "F8_E4M3", shape: [3, 1000], data_offsets: [0, codes.length] } }).padEnd(56);
    const length = new Uint8Array(8);
    new DataView(length.buffer).setBigUint64(0, BigInt(json.length), true);
    const c = await openCheckpoint(new Blob([length, new TextEncoder().encode(json), codes]));
    try {
      const values = dequantize(codes, "float8_e4m3fn"); // exact in float32
      for (const [start, count] of [
        [0, 3000],
        [999, 2],
        [1500, 1],
      ] as const) {
        const part = values.subarray(start, start + count);
        expect(await c.readRounded("w", "BF16", start, count)).toEqual(quantize(part, "bfloat16"));
        expect(await c.readRounded("w", "F16", start, count)).toEqual(quantize(part, "binary16"));
        expect(bitsOf(await c.readRounded("w", "F32", start, count))).toEqual(bitsOf(part));
      }
    } finally {
      await c.close();
    }
  });
});
