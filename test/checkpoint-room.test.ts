// Block-scaled FP8 dequantization through a GatherRoom (src/checkpoint/room.ts): tables rounded with roundInto
// against roundTo, the reference, bit for bit (every E4M3 code under tiny, subnormal, huge, power-of-two and odd
// 24-bit scales, NaNs of both signs); the table kernel (scaledTablesOdd) against scaledTable's entries rounded to odd;
// readRounded with the room against readRounded without it; and
// dequantizeCheckpoint over tensors of several chunks (a chunk spanning several block rows, a chunk starting
// mid-block-row, K not a multiple of 128) against the same conversion on the TypeScript reference.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { type Target, roundInto, roundTo } from "../src/checkpoint/decode.js";
import { GatherRoom } from "../src/checkpoint/room.js";
import { beyondOdd32, roundToOddFloat32 } from "../src/exact/round-to-odd.js";
import { valueTableOrNaN } from "../src/exact/tables.js";
import { format } from "../src/format/registry.js";
import { dequantizeCheckpoint, openCheckpoint } from "../src/io/index.js";
import { useKernels } from "../src/wasm/instance.js";
import { WasmArray } from "../src/wasm/memory.js";
import { scaledTablesOddWasm } from "../src/wasm/scaled.js";

const TARGETS: Target[] = ["BF16", "F16", "F32"];
const bitsOf = (a: Float32Array | Uint16Array) => (a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a);
const f32 = Math.fround;
/** The first index where a and b differ (lengths included), or -1: toEqual is slow on arrays of a million elements. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** Scales that reach every rounding case of E4M3 products: underflow, subnormal results, overflow, ties, odd significands. */
const SCALES = [
  2 ** -149,
  3 * 2 ** -149,
  f32(1.5e-39),
  2 ** -126,
  0,
  1,
  2 ** -10,
  2 ** 20,
  2 ** 127,
  f32(1 / 3),
  f32(0.1),
  f32(1.234e-4),
  f32(3e38),
  f32(65504 / 448),
  f32(7 * 2 ** -20),
  f32(2 ** -24 / 3),
  f32(255 / 7),
  (2 ** 24 - 1) * 2 ** -30, // odd 24-bit significand
  (2 ** 23 + 1) * 2 ** -40,
  3.4028234663852886e38,
];

/** Every E4M3 code's value (NaN codes included) times each scale: the exact entries of one table per scale. */
function exactTables(): Float64Array {
  const table = valueTableOrNaN(format("float8_e4m3fn"));
  const out = new Float64Array(SCALES.length * 256);
  SCALES.forEach((s, k) => {
    for (let c = 0; c < 256; c++) out[k * 256 + c] = table[c]! * s;
  });
  return out;
}

describe("roundInto equals roundTo", () => {
  const exact = exactTables();
  const extra = Float64Array.of(Number.NaN, -Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 2 ** 128, -(2 ** 200), 2 ** -1074);
  const values = new Float64Array(exact.length + extra.length);
  values.set(exact);
  values.set(extra, exact.length);
  // A NaN of the other sign, as bits (JavaScript may not keep the sign of -NaN).
  new DataView(values.buffer).setBigUint64(8 * (exact.length + 1), 0xfff8000000000000n, true);

  for (const to of TARGETS) {
    it(`${to}: JavaScript buffers, Wasm buffers and the reference kernels`, () => {
      const want = bitsOf(roundTo(values, to));
      const type = to === "F32" ? Float32Array : Uint16Array;
      const out = new type(values.length);
      roundInto(values, to, out, new Float32Array(values.length));
      expect(bitsOf(out)).toEqual(want);
      const wasmOut = new WasmArray<Float32Array | Uint16Array>(type, values.length);
      const odd = new WasmArray(Float32Array, values.length);
      try {
        roundInto(values, to, wasmOut.array, odd.array);
        expect(bitsOf(wasmOut.array)).toEqual(want);
      } finally {
        wasmOut.free();
        odd.free();
      }
      useKernels(false);
      try {
        const reference = new type(values.length);
        roundInto(values, to, reference, new Float32Array(values.length));
        expect(bitsOf(reference)).toEqual(want);
      } finally {
        useKernels(true);
      }
      // The cases are there: NaNs, infinities and finite results.
      if (out instanceof Float32Array) {
        expect(out.some(Number.isNaN)).toBe(true);
        expect(out.includes(Number.POSITIVE_INFINITY)).toBe(true);
        expect(out.some((x) => x > 0 && x < 2 ** -126)).toBe(true);
      }
    });
  }
});

describe("scaledTablesOddWasm equals scaledTable's entries rounded to odd", () => {
  const values = valueTableOrNaN(format("float8_e4m3fn"));
  const cases = [
    { m: 1, g: 1, divide: false },
    { m: f32(0.7), g: 1, divide: false }, // a second-level scale
    { m: 1, g: f32(448 * 6), divide: true }, // a divisor: once-rounded quotients
  ];
  for (const { m, g, divide } of cases) {
    it(`× ${m}${divide ? `, ÷ ${g}` : ""}: every code under every scale, NaN where the reference takes over`, () => {
      const v = new WasmArray(Float64Array, 256);
      const s = new WasmArray(Float64Array, SCALES.length);
      const out = new WasmArray(Float32Array, 256 * SCALES.length);
      try {
        v.array.set(values);
        s.array.set(SCALES);
        const beyond = scaledTablesOddWasm(v.array, s.array, m, g, divide, out.array);
        const exact = Float64Array.from({ length: out.length }, (_, i) => {
          const x = SCALES[Math.floor(i / 256)]! * m;
          return divide ? (values[i % 256]! * x) / g : values[i % 256]! * x;
        });
        const want = new Uint32Array(roundToOddFloat32(exact).buffer);
        const got = new Uint32Array(out.array.buffer, out.array.byteOffset, out.length);
        const marked = exact.map((x) => (beyondOdd32(x) ? 1 : 0));
        expect(beyond).toBe(marked.reduce((a, b) => a + b, 0));
        expect(beyond).toBeGreaterThan(2 * SCALES.length - 1); // the NaN codes, and overflowing products
        for (let i = 0; i < exact.length; i++) {
          if (marked[i]) expect(Number.isNaN(out.array[i]), `entry ${i}`).toBe(true);
          else if (got[i] !== want[i]) expect([i, got[i]]).toEqual([i, want[i]]);
        }
      } finally {
        for (const a of [v, s, out]) a.free();
      }
    });
  }
  it("refuses arrays outside Wasm memory and a short out", () => {
    const v = new WasmArray(Float64Array, 256);
    const out = new WasmArray(Float32Array, 255);
    try {
      expect(() => scaledTablesOddWasm(new Float64Array(256), v.array.subarray(0, 1), 1, 1, false, out.array)).toThrow(/values: is not in Wasm memory/);
      expect(() => scaledTablesOddWasm(v.array, v.array.subarray(0, 1), 1, 1, false, out.array)).toThrow(/out: has 255 elements; allowed: at least 256/);
    } finally {
      v.free();
      out.free();
    }
  });
});

const dir = mkdtempSync(join(tmpdir(), "minifloat-room-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A DeepSeek-style file: F8_E4M3 [rows, K] with F32 scales per 128 × 128 block (from SCALES, in turn) and a
 * second, smaller weight; codes cover every byte in every block.
 */
function deepseekFile(rows: number, K: number, badScale?: number): string {
  const header: Record<string, unknown> = {};
  const parts: Uint8Array[] = [];
  let at = 0;
  const add = (name: string, dtype: string, shape: number[], bytes: Uint8Array) => {
    header[name] = { dtype, shape, data_offsets: [at, (at += bytes.length)] };
    parts.push(bytes);
  };
  for (const [name, n] of [
    ["a", rows],
    ["b", 300],
  ] as const) {
    const codes = new Uint8Array(n * K);
    for (let i = 0; i < codes.length; i++) codes[i] = (i * 7 + Math.floor(i / K) * 3) & 255;
    const grid = [Math.ceil(n / 128), Math.ceil(K / 128)];
    const scales = Float32Array.from({ length: grid[0]! * grid[1]! }, (_, i) => SCALES[i % SCALES.length]!);
    if (name === "a" && badScale !== undefined) scales[badScale] = Number.NaN;
    add(`${name}.weight`, "F8_E4M3", [n, K], codes);
    add(`${name}.weight_scale_inv`, "F32", grid, new Uint8Array(scales.buffer));
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(json.length), true);
  const path = join(dir, `deepseek-${rows}x${K}${badScale === undefined ? "" : `-bad${badScale}`}.safetensors`);
  writeFileSync(path, Buffer.concat([length, new TextEncoder().encode(json), ...parts]));
  const config = { quantization_config: { quant_method: "fp8", fmt: "e4m3", activation_scheme: "dynamic", weight_block_size: [128, 128] } };
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  return path;
}

describe("readRounded with a room equals readRounded without", () => {
  it("ranges starting mid-row and mid-block-row, across block rows, partial last blocks", async () => {
    const c = await openCheckpoint(deepseekFile(700, 1000));
    const room = GatherRoom.create(600_000, 6 * 8 * 256)!;
    expect(room).toBeDefined();
    try {
      for (const to of TARGETS) {
        const type = to === "F32" ? Float32Array : Uint16Array;
        for (const [start, count] of [
          [0, 500_000], // block rows 0…3
          [137, 128_000], // starts mid-row, ends mid-row
          [129_000, 1], // one element in block row 1
          [699_000, 1000], // the last row: a block row of 60 rows
        ] as const) {
          const want = bitsOf(await c.readRounded("a.weight", to, start, count)); // also the kernels' first allocations
          const out = new WasmArray<Float32Array | Uint16Array>(type, count);
          try {
            expect(await c.readRounded("a.weight", to, start, count, out.array, room)).toBe(out.array);
            expect(firstDifference(bitsOf(out.array), want)).toBe(-1);
          } finally {
            out.free();
          }
        }
      }
    } finally {
      await room.close();
      await c.close();
    }
  });
});

describe("dequantizeCheckpoint over several chunks equals the reference", () => {
  // 2300 rows of 1000: chunks of 1048 rows (9 block rows each), the second and third starting mid-block-row.
  const input = deepseekFile(2300, 1000);
  for (const to of TARGETS) {
    it(`${to}: the room path is taken, and the output is the TypeScript reference's byte for byte`, async () => {
      const codes = vi.spyOn(GatherRoom.prototype, "codes");
      const out = join(dir, `out-${to}.safetensors`);
      try {
        await dequantizeCheckpoint(input, { to, output: out, force: true });
        expect(codes).toHaveBeenCalled();
      } finally {
        codes.mockRestore();
      }
      const reference = join(dir, `reference-${to}.safetensors`);
      useKernels(false);
      try {
        await dequantizeCheckpoint(input, { to, output: reference, force: true });
      } finally {
        useKernels(true);
      }
      expect(readFileSync(out).equals(readFileSync(reference))).toBe(true);
      // And the reference is readExact rounded once, element by element, for the first rows of every chunk.
      const c = await openCheckpoint(out);
      const d = await openCheckpoint(input);
      try {
        for (const start of [0, 1048_000, 2096_000]) {
          const got = bitsOf(await c.readRounded("a.weight", to, start, 2000));
          expect(got).toEqual(bitsOf(roundTo(await d.readExact("a.weight", start, 2000), to)));
        }
      } finally {
        await c.close();
        await d.close();
      }
    });
  }
});

describe("an error in a chunk read ahead", () => {
  it("a NaN scale in the last block row: CheckpointError naming the element, no output left", async () => {
    // 2300 rows: block rows 0…17, 8 scales each; element 140 is in block row 17, read ahead with the third chunk.
    const input = deepseekFile(2300, 1000, 140);
    const out = join(dir, "bad.safetensors");
    await expect(dequantizeCheckpoint(input, { to: "BF16", output: out })).rejects.toThrow(/tensor "a.weight_scale_inv".*element 140 is NaN/);
    expect(existsSync(out)).toBe(false);
  });
});
