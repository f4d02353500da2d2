// Block-scaled dequantization by table: every element's result depends only on its byte code and its block's scale,
// so the host rounds each block's results once (the exact core) into a table per block and these kernels gather.
// The elements of one call lie in one row of blocks: a run of rows (the first may start mid-row) whose block b
// (columns [b·width, (b + 1)·width)) reads the table at tables + b·tableBytes.
import { gather } from "./decode";
import { ODD_LIMIT, toOdd32 } from "./odd";

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

/**
 * The exact entries of per-block tables rounded to float32 to odd, as the host's reference computes and rounds them
 * (src/checkpoint/decode.ts scaledTable, src/exact/round-to-odd.ts): entry k·n + c is values[c] × (scales[k] × m),
 * divided by g when `divide`, an exact float64 product (a code value times a float32 scale) or a once-rounded
 * quotient. Entries rounding to odd does not carry (NaN, |v| ≥ 2^128) are written as NaN for the host to project
 * exactly; returns their number.
 */
export function scaledTablesOdd(values: usize, n: usize, scales: usize, count: usize, m: f64, g: f64, divide: bool, out: usize): u32 {
  let beyond: u32 = 0;
  for (let k: usize = 0; k < count; k++) {
    const x = load<f64>(scales + (k << 3)) * m;
    const o = out + ((k * n) << 2);
    for (let c: usize = 0; c < n; c++) {
      let v = load<f64>(values + (c << 3)) * x;
      if (divide) v /= g;
      let bits: u32 = 0x7fc00000;
      if (abs<f64>(v) < ODD_LIMIT) bits = <u32>toOdd32(v);
      else beyond++;
      store<u32>(o + (c << 2), bits);
    }
  }
  return beyond;
}
