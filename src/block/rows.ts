// Block-scaled rows: `rows` rows of L elements, blocks along each row that never cross it, a partial last block
// per row when L is not a multiple of the block size. The rows are zero-padded to whole blocks and go through
// quantizeBlocks / dequantizeBlocks in one call: a zero changes no block's amax and encodes as code 0, so every
// scale and code equals the row-by-row result, at the speed of whole blocks.
import { packCodes, unpackCodes } from "../api/packed.js";
import { type BlockScheme, type BlockTensor, dequantizeBlocks, quantizeBlocks } from "./index.js";
import type { Rounding } from "../exact/projection.js";

/** Element codes as a tensor stores them (unpacked; MXINT8: its two's complement bytes) and scale codes per row. */
export interface BlockRows {
  readonly codes: Uint8Array;
  /** ceil(L / blockSize) scale codes per row. */
  readonly scales: Uint8Array;
}

function padRows<T extends Float32Array | Uint8Array>(x: T, rows: number, L: number, Lp: number, make: (n: number) => T): T {
  if (L === Lp) return x;
  const out = make(rows * Lp);
  for (let r = 0; r < rows; r++) out.set(x.subarray(r * L, (r + 1) * L), r * Lp);
  return out;
}

function unpadRows<T extends Float32Array | Uint8Array>(x: T, rows: number, L: number, Lp: number, out: T): T {
  for (let r = 0; r < rows; r++) out.set(x.subarray(r * Lp, r * Lp + L), r * L);
  return out;
}

/** Quantizes rows × L float32 values (row-major) with blocks along each row. */
export function quantizeBlockRows(
  x: Float32Array,
  rows: number,
  L: number,
  scheme: BlockScheme,
  options: { rounding: Rounding; tensorScale?: number },
): BlockRows {
  const B = scheme.blockSize;
  const Lp = Math.ceil(L / B) * B;
  const q = quantizeBlocks(
    padRows(x, rows, L, Lp, (n) => new Float32Array(n)),
    scheme,
    options,
  );
  const codes = scheme.packed ? unpackCodes(q.elements, 4, rows * Lp) : q.elements;
  return { codes: L === Lp ? codes : unpadRows(codes, rows, L, Lp, new Uint8Array(rows * L)), scales: q.scales };
}

/** Decodes rows written by quantizeBlockRows into `out` (rows × L float32). */
export function dequantizeBlockRows(b: BlockRows, rows: number, L: number, scheme: BlockScheme, tensorScale: number, out: Float32Array): Float32Array {
  const B = scheme.blockSize;
  const Lp = Math.ceil(L / B) * B;
  const codes = padRows(b.codes, rows, L, Lp, (n) => new Uint8Array(n));
  const q: BlockTensor = {
    scheme,
    length: rows * Lp,
    blockSize: B,
    scales: b.scales,
    elements: scheme.packed ? packCodes(codes, 4) : codes,
    tensorScale,
  };
  if (L === Lp) return dequantizeBlocks(q, { out });
  return unpadRows(dequantizeBlocks(q), rows, L, Lp, out);
}
