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

/**
 * Small blocks whose scales are codes (E4M3, E8M0): an element's result depends only on its code and its block's
 * scale code, so one table per scale code (at tables + s·tableBytes, indexed by element code) serves every block.
 * Elements as in scaledValues (rows of K, blocks of bh rows × width columns, the first at `column` of row `phase` of
 * its block row, whose ⌈K / width⌉ scale codes come first at scaleCodes); codes one per byte or, with `nibbles`, two
 * per byte, the even element in the low nibble, the first element even.
 */
// @ts-ignore: decorator
@inline
function gatherCoded<D>(codes: usize, nibbles: bool, n: usize, column: usize, phase: usize, K: usize, width: usize, bh: usize, scaleCodes: usize, tables: usize, tableBytes: usize, dst: usize): void {
  const ds = alignof<D>();
  const cols = (K + width - 1) / width;
  let i: usize = 0;
  for (let r = phase; i < n; r++) {
    const rowScales = scaleCodes + (r / bh) * cols;
    const rowEnd = min(n, i + K - column);
    while (i < rowEnd) {
      const b = column / width;
      const table = tables + <usize>load<u8>(rowScales + b) * tableBytes;
      const end = min(rowEnd, i + (b + 1) * width - column);
      if (nibbles) gatherNibbles<D>(codes, i, end, table, dst);
      else gather<u8, D>(codes + i, dst + (i << ds), end - i, table);
      column = (b + 1) * width;
      i = end;
    }
    column = 0;
  }
}

/** dst[e] = table[nibble e of codes] for e in [from, to). */
// @ts-ignore: decorator
@inline
function gatherNibbles<D>(codes: usize, from: usize, to: usize, table: usize, dst: usize): void {
  const ds = alignof<D>();
  let e = from;
  if (e & 1 && e < to) {
    store<D>(dst + (e << ds), load<D>(table + ((<usize>load<u8>(codes + (e >> 1)) >> 4) << ds)));
    e++;
  }
  // Eight elements from four bytes per step.
  for (; e + 8 <= to; e += 8) {
    const w = load<u32>(codes + (e >> 1));
    const o = dst + (e << ds);
    nibbleAt<D>(o, 0, w, table);
    nibbleAt<D>(o, 1, w, table);
    nibbleAt<D>(o, 2, w, table);
    nibbleAt<D>(o, 3, w, table);
    nibbleAt<D>(o, 4, w, table);
    nibbleAt<D>(o, 5, w, table);
    nibbleAt<D>(o, 6, w, table);
    nibbleAt<D>(o, 7, w, table);
  }
  for (; e < to; e++) store<D>(dst + (e << ds), load<D>(table + (<usize>((load<u8>(codes + (e >> 1)) >> (<u32>(e & 1) << 2)) & 15) << ds)));
}

/** dst[k] = table[nibble k of w]. */
// @ts-ignore: decorator
@inline
function nibbleAt<D>(dst: usize, k: u32, w: u32, table: usize): void {
  const ds = alignof<D>();
  store<D>(dst + (<usize>k << ds), load<D>(table + (<usize>((w >> (k << 2)) & 15) << ds)));
}

/** Byte or nibble codes under coded scales → binary16/bfloat16 bits through tables of `entries` each (see gatherCoded). */
export function gatherCodedTo16(codes: usize, nibbles: bool, n: usize, column: usize, phase: usize, K: usize, width: usize, bh: usize, scaleCodes: usize, tables: usize, entries: usize, dst: usize): void {
  if (nibbles) gatherCoded<u16>(codes, true, n, column, phase, K, width, bh, scaleCodes, tables, entries << 1, dst);
  else gatherCoded<u16>(codes, false, n, column, phase, K, width, bh, scaleCodes, tables, entries << 1, dst);
}

/** Byte or nibble codes under coded scales → float32 bits through tables of `entries` each (see gatherCoded). */
export function gatherCodedTo32(codes: usize, nibbles: bool, n: usize, column: usize, phase: usize, K: usize, width: usize, bh: usize, scaleCodes: usize, tables: usize, entries: usize, dst: usize): void {
  if (nibbles) gatherCoded<u32>(codes, true, n, column, phase, K, width, bh, scaleCodes, tables, entries << 2, dst);
  else gatherCoded<u32>(codes, false, n, column, phase, K, width, bh, scaleCodes, tables, entries << 2, dst);
}
