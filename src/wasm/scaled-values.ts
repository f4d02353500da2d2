// Host side of assembly/scaled-values.ts: exact float64 values of block-scaled byte codes (src/checkpoint/decode.ts
// readRange's loop is the reference).
import { kernels } from "./instance.js";
import { allocBytesRaw, freeBytesRaw, memoryBuffer, stream } from "./memory.js";

/** Where a range of elements sits in its tensor: the first element's index, the row length, the block shape. */
export interface RangeGrid {
  readonly start: number;
  readonly K: number;
  readonly width: number;
  readonly bh: number;
}

/**
 * out[i] = table[codes[i]] · factors[block of element start + i] (÷ g when g ≠ 0), factors holding ⌈K / width⌉ per
 * block row from the range's first; false when the kernels are off.
 */
export function scaledValuesWasm(codes: Uint8Array, grid: RangeGrid, factors: Float64Array, table: Float64Array, g: number, out: Float64Array): boolean {
  const k = kernels();
  if (!k) return false;
  const { start, K, width, bh } = grid;
  const cols = Math.ceil(K / width);
  const firstBlockRow = Math.floor(Math.floor(start / K) / bh);
  const bytes = factors.byteLength + 256 * 8;
  const ptr = allocBytesRaw(bytes, "factors");
  try {
    new Float64Array(memoryBuffer(), ptr, factors.length).set(factors);
    const tablePtr = ptr + factors.byteLength;
    new Float64Array(memoryBuffer(), tablePtr, 256).set(table.subarray(0, 256));
    stream(codes, out, (src, dst, count, first) => {
      const row = Math.floor((start + first) / K);
      const blockRow = Math.floor(row / bh) - firstBlockRow;
      k.scaledValues64(src, count, start + first - row * K, row % bh, K, width, bh, ptr + blockRow * cols * 8, tablePtr, g, dst);
    });
  } finally {
    freeBytesRaw(ptr, bytes);
  }
  return true;
}
