// Host side of assembly/scaled.ts: byte codes of one row of scale blocks → results through per-block tables the
// caller rounded with the exact core (src/checkpoint/decode.ts builds them; its loop is the reference).
import { ArgumentTypeError, CodeRangeError } from "../errors.js";
import { kernels } from "./instance.js";
import { inWasm, keep, stream, withUploaded } from "./memory.js";

/** Where elements sit in their row of blocks: the first one's column, the row length and the block width. */
export interface BlockRowSpan {
  readonly column: number;
  readonly rowLength: number;
  readonly width: number;
}

/**
 * out[i] = tables[b(i)·entries + codes[i]] (16- or 32-bit patterns) for one row of blocks, with `entries` results per block (b(i): the block
 * of element i's column). Returns false, writing nothing, when the kernels are unavailable. Codes, out and tables in
 * Wasm memory are used in place; the others are copied in (and out).
 */
export function gatherScaledWasm(
  codes: Uint8Array,
  out: Uint16Array | Uint32Array,
  span: BlockRowSpan,
  tables: Uint16Array | Uint32Array,
  entries: number,
): boolean {
  const k = kernels();
  if (!k) return false;
  const run = out instanceof Uint16Array ? k.gatherScaled8To16 : k.gatherScaled8To32;
  const tableBytes = entries * out.BYTES_PER_ELEMENT;
  const { column, rowLength, width } = span;
  const [cs, os] = [keep(codes), keep(out)];
  const gather = (tablesPtr: number) =>
    stream(cs(), os(), (s, d, n, first) => run(s, d, n, (column + first) % rowLength, rowLength, width, tablesPtr, tableBytes), { whole: true });
  if (inWasm(tables)) gather(tables.byteOffset);
  else withUploaded(tables, gather);
  return true;
}

/**
 * Per-block table entries rounded to float32 to odd into `out` (assembly/scaled.ts scaledTablesOdd): entry k·n + c
 * from values[c] and scales[k], × m, ÷ g when `divide`. Every array must be in Wasm memory, out of at least
 * scales.length × values.length elements. Returns the number of entries written as NaN for the exact reference, or
 * undefined (nothing written) when the kernels are unavailable.
 */
export function scaledTablesOddWasm(values: Float64Array, scales: Float64Array, m: number, g: number, divide: boolean, out: Float32Array): number | undefined {
  const k = kernels();
  if (!k) return undefined;
  const outside = Object.entries({ values, scales, out }).find(([, a]) => !inWasm(a));
  if (outside) throw new ArgumentTypeError(outside[0], "is not in Wasm memory; allowed: a view of Wasm memory (WasmArray)");
  if (out.length < scales.length * values.length)
    throw new CodeRangeError("out", `has ${out.length} elements; allowed: at least ${scales.length * values.length} (scales × values)`);
  return k.scaledTablesOdd(values.byteOffset, values.length, scales.byteOffset, scales.length, m, g, divide, out.byteOffset);
}
