// Host side of assembly/scaled.ts: byte codes of one row of scale blocks → results through per-block tables the
// caller rounded with the exact core (src/checkpoint/decode.ts builds them; its loop is the reference).
import { ArgumentTypeError, CodeRangeError } from "../errors.js";
import { kernels } from "./instance.js";
import { type WasmView, inWasm, keep, stream, withUploaded } from "./memory.js";
import { type RangeGrid, gridPosition } from "./scaled-values.js";

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
  inPlace(tables, gather);
  return true;
}

/**
 * out[i] = tables[s(i)·entries + code i] for a range of a tensor whose small blocks have coded scales (E4M3, E8M0):
 * s(i) the scale code of element start + i's block, `entries` results per scale code (more than any code); codes one
 * per byte, or with `nibbles` two per byte, the even element in the low nibble, from an even start. scaleCodes hold
 * ⌈K / width⌉ codes per block row from the range's first. Returns false, writing nothing, when the kernels are
 * unavailable. Arrays in Wasm memory are used in place; the others are copied in (and out).
 */
export function gatherCodedWasm(
  codes: Uint8Array,
  nibbles: boolean,
  grid: RangeGrid,
  scaleCodes: Uint8Array,
  tables: Uint16Array | Uint32Array,
  entries: number,
  out: Uint16Array | Uint32Array,
): boolean {
  const k = kernels();
  if (!k) return false;
  const { start, K, width, bh } = grid;
  if (nibbles && start % 2 !== 0) throw new ArgumentTypeError("grid.start", `is ${start}; allowed: an even element for nibble codes`);
  const run = out instanceof Uint16Array ? k.gatherCodedTo16 : k.gatherCodedTo32;
  const [cs, os] = [keep(codes), keep(out)];
  const options = nibbles ? { n: out.length, group: 2, srcGroupBytes: 1, whole: true } : { whole: true };
  inPlace(scaleCodes, (scalesPtr) =>
    inPlace(tables, (tablesPtr) =>
      stream(
        cs(),
        os(),
        (src, dst, count, first) => {
          const { column, phase, scale } = gridPosition(grid, first);
          run(src, nibbles, count, column, phase, K, width, bh, scalesPtr + scale, tablesPtr, entries, dst);
        },
        options,
      ),
    ),
  );
  return true;
}

/** call with the address of `a`: where it is when in Wasm memory, else of a copy for the call. */
function inPlace<T>(a: WasmView, call: (ptr: number) => T): T {
  return inWasm(a) ? call(a.byteOffset) : withUploaded(a, call);
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
