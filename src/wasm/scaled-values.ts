// Host side of assembly/scaled-values.ts: exact float64 values of block-scaled byte codes (src/checkpoint/decode.ts
// readRange's loop is the reference).
import { kernels } from "./instance.js";
import { keep, stream, withUploaded } from "./memory.js";

/** Where a range of elements sits in its tensor: the first element's index, the row length, the block shape. */
export interface RangeGrid {
  readonly start: number;
  readonly K: number;
  readonly width: number;
  readonly bh: number;
}

/**
 * Where element start + first of a range sits in its grid: its column, its row's place in its block row (phase), and
 * the index of its block's first scale among the range's (block rows counted from the range's first, ⌈K / width⌉
 * scales each). The kernels take a chunk's position in these terms.
 */
export function gridPosition(grid: RangeGrid, first: number): { column: number; phase: number; scale: number } {
  const { start, K, width, bh } = grid;
  const row = Math.floor((start + first) / K);
  const blockRow = Math.floor(row / bh) - Math.floor(Math.floor(start / K) / bh);
  return { column: start + first - row * K, phase: row % bh, scale: blockRow * Math.ceil(K / width) };
}

/** The forms scaledValuesWasm writes: the exact float64 values, or float32 rounded to nearest even or to odd. */
export type ValuesForm = "float64" | "float32" | "float32-odd";
const FORMS: Record<ValuesForm, number> = { float64: 0, float32: 1, "float32-odd": 2 };

/**
 * out[i] = table[codes[i]] · factors[block of element start + i] (÷ g when g ≠ 0) in `form`, factors holding
 * ⌈K / width⌉ per block row from the range's first. Returns how many values are NaN or ≥ 2^128 in magnitude, or
 * undefined when the kernels are off.
 */
export function scaledValuesWasm(
  codes: Uint8Array,
  grid: RangeGrid,
  factors: Float64Array,
  table: Float64Array,
  g: number,
  out: Float64Array | Float32Array,
  form: ValuesForm,
): number | undefined {
  const k = kernels();
  if (!k) return undefined;
  const { K, width, bh } = grid;
  const [cs, os] = [keep(codes), keep(out)];
  // 256 entries: a byte code beyond the format's codes reads NaN, as the reference's table lookup does.
  const entries = new Float64Array(256).fill(Number.NaN);
  entries.set(table.subarray(0, 256));
  let beyond = 0;
  withUploaded(factors, (ptr) =>
    withUploaded(entries, (tablePtr) =>
      stream(cs(), os(), (src, dst, count, first) => {
        const { column, phase, scale } = gridPosition(grid, first);
        beyond += k.scaledValues(src, count, column, phase, K, width, bh, ptr + scale * 8, tablePtr, g, dst, FORMS[form]);
      }),
    ),
  );
  return beyond;
}
