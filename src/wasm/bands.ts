// Host side of assembly/bands.ts: per-block amax and scaling passes over a band of rows (the checkpoint producers'
// bands, GGUF blocks). src/block/bands.ts holds the TypeScript loops they agree with and chooses between the two.
import { kernels } from "./instance.js";
import { inWasm, keep, stream, withUploaded } from "./memory.js";

/** Rows of K elements cut into blocks of bh rows × width columns (the last block of a row may be partial). */
export interface BlockGrid {
  readonly rows: number;
  readonly K: number;
  readonly width: number;
  readonly bh: number;
}

/** The kernel's mode bits: multiply instead of divide; then + 0 (−0 → +0). */
export const MULTIPLY = 1;
export const PLUS_ZERO = 2;

/**
 * amax per block in Wasm (see BandExports.amaxBlocks), x streamed through Wasm memory by whole block rows when it
 * lies outside; undefined when the kernels are off.
 */
export function amaxBlocksWasm(x: Float32Array, g: BlockGrid, amax: Float32Array): number | undefined {
  const k = kernels();
  if (!k) return undefined;
  const xs = keep(x);
  const cols = Math.ceil(g.K / g.width);
  const blockRow = g.bh * g.K;
  let found = -1;
  withUploaded(
    amax,
    (ptr) =>
      stream(
        xs(),
        null,
        (src, _, count, first) => {
          if (found >= 0) return;
          const at = k.amaxBlocks(src, count / g.K, g.K, g.width, g.bh, ptr + (first / blockRow) * cols * 4);
          if (at >= 0) found = first + at;
        },
        { n: g.rows * g.K, group: blockRow },
      ),
    true,
  );
  return found;
}

/**
 * y = x ÷ or × factor per block in Wasm; false (nothing written) when x or y is not in Wasm memory, the kernels are
 * off, or a factor is 0, ±∞ or NaN.
 */
export function scaleBlocksWasm(x: Float32Array, y: Float32Array, g: BlockGrid, factor: Float32Array, mode: number): boolean {
  const k = kernels();
  if (!k || !inWasm(x) || !inWasm(y)) return false;
  const [xs, ys] = [keep(x), keep(y)];
  return withUploaded(factor, (ptr) => k.scaleBlocks(xs().byteOffset, ys().byteOffset, g.rows, g.K, g.width, g.bh, ptr, mode) !== 0);
}
