// Block-scaled dequantization by table: every element's result depends only on its byte code and its block's scale,
// so the host rounds each block's results once (the exact core) into a table per block and these kernels gather.
// The elements of one call lie in one row of blocks: a run of rows (the first may start mid-row) whose block b
// (columns [b·width, (b + 1)·width)) reads the table at tables + b·tableBytes.
import { gather } from "./decode";

// @ts-ignore: decorator
@inline
function gatherScaled<D>(src: usize, dst: usize, n: usize, column: usize, rowLength: usize, width: usize, tables: usize, tableBytes: usize): void {
  const ds = alignof<D>();
  let i: usize = 0;
  let j = column;
  while (i < n) {
    const rowEnd = min(n, i + rowLength - j);
    while (i < rowEnd) {
      const block = j / width;
      const end = min(rowEnd, i + (block + 1) * width - j);
      gather<u8, D>(src + i, dst + (i << ds), end - i, tables + block * tableBytes);
      j += end - i;
      i = end;
    }
    j = 0;
  }
}

/** Byte codes → binary16/bfloat16 bits through per-block u16 tables (see the file comment). */
export function gatherScaled8To16(src: usize, dst: usize, n: usize, column: usize, rowLength: usize, width: usize, tables: usize, tableBytes: usize): void {
  gatherScaled<u16>(src, dst, n, column, rowLength, width, tables, tableBytes);
}

/** Byte codes → float32 bits through per-block u32 tables. */
export function gatherScaled8To32(src: usize, dst: usize, n: usize, column: usize, rowLength: usize, width: usize, tables: usize, tableBytes: usize): void {
  gatherScaled<u32>(src, dst, n, column, rowLength, width, tables, tableBytes);
}
