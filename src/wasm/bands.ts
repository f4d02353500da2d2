// Host side of assembly/bands.ts: the checkpoint producers' per-block amax and scaling passes over a band of rows in
// Wasm memory. src/checkpoint/bands.ts holds the TypeScript loops they agree with and chooses between the two.
import { kernels } from "./instance.js";
import { allocBytesRaw, freeBytesRaw, inWasm, keep, memoryBuffer } from "./memory.js";

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

/** Runs `call` with `small` (float32, one per block) copied into Wasm memory, and back when `back`. */
function withBlocks<T>(small: Float32Array, back: boolean, call: (ptr: number) => T): T {
  const ptr = allocBytesRaw(small.byteLength, "blocks");
  try {
    new Float32Array(memoryBuffer(), ptr, small.length).set(small);
    const result = call(ptr);
    if (back) small.set(new Float32Array(memoryBuffer(), ptr, small.length));
    return result;
  } finally {
    freeBytesRaw(ptr, small.byteLength);
  }
}

/** amax per block in Wasm (see BandExports.amaxBlocks); undefined when x is not in Wasm memory or the kernels are off. */
export function amaxBlocksWasm(x: Float32Array, g: BlockGrid, amax: Float32Array): number | undefined {
  const k = kernels();
  if (!k || !inWasm(x)) return undefined;
  const xs = keep(x);
  return withBlocks(amax, true, (ptr) => k.amaxBlocks(xs().byteOffset, g.rows, g.K, g.width, g.bh, ptr));
}

/** y = x ÷ or × factor per block in Wasm; false when x or y is not in Wasm memory or the kernels are off. */
export function scaleBlocksWasm(x: Float32Array, y: Float32Array, g: BlockGrid, factor: Float32Array, mode: number): boolean {
  const k = kernels();
  if (!k || !inWasm(x) || !inWasm(y)) return false;
  const [xs, ys] = [keep(x), keep(y)];
  withBlocks(factor, false, (ptr) => k.scaleBlocks(xs().byteOffset, ys().byteOffset, g.rows, g.K, g.width, g.bh, ptr, mode));
  return true;
}
