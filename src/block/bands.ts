// Per-block passes over a band of rows cut into blocks (src/wasm/bands.ts BlockGrid): a checkpoint producer's band
// of a [N, K] weight, or GGUF blocks as rows of one block each. The largest |x| of every block, and every element
// divided (or multiplied) by its block's float32 factor. These loops are the specification; the Wasm kernels run
// them (the amax on any array, streamed through Wasm memory; the scaling on bands that lie in Wasm memory).
import { type BlockGrid, MULTIPLY, PLUS_ZERO, amaxBlocksWasm, scaleBlocksWasm } from "../wasm/bands.js";

/** amax[block] = max(amax[block], |x|) over the band; returns the index of the first ±∞ or NaN element, or −1. */
export function blockAmax(x: Float32Array, g: BlockGrid, amax: Float32Array): number {
  const wasm = amaxBlocksWasm(x, g, amax);
  if (wasm !== undefined) return wasm;
  const cols = Math.ceil(g.K / g.width);
  for (let r = 0; r < g.rows; r++) {
    for (let b = 0, k = Math.floor(r / g.bh) * cols; b < cols; b++, k++) {
      let m = amax[k]!;
      for (let i = r * g.K + b * g.width, end = r * g.K + Math.min(g.K, (b + 1) * g.width); i < end; i++) {
        const a = Math.abs(x[i]!);
        if (!(a <= 3.4028234663852886e38)) return i;
        if (a > m) m = a;
      }
      amax[k] = m;
    }
  }
  return -1;
}

/**
 * y = x / factor (x · factor when `multiply`) per block, each rounded once to float32, then + 0 when `plusZero` (−0
 * becomes +0; nothing else changes). y may be x. The kernel takes only finite nonzero factors: a NaN quotient (0 / 0)
 * gets an engine-chosen sign in Wasm, and the TypeScript loop keeps such a band deterministic.
 */
export function blockScale(x: Float32Array, y: Float32Array, g: BlockGrid, factor: Float32Array, multiply: boolean, plusZero: boolean): void {
  if (scaleBlocksWasm(x, y, g, factor, (multiply ? MULTIPLY : 0) | (plusZero ? PLUS_ZERO : 0))) return;
  const cols = Math.ceil(g.K / g.width);
  const zero = plusZero ? 0 : -0; // v + −0 is v for every v
  for (let r = 0; r < g.rows; r++) {
    for (let b = 0, k = Math.floor(r / g.bh) * cols; b < cols; b++, k++) {
      const f = factor[k]!;
      const end = r * g.K + Math.min(g.K, (b + 1) * g.width);
      // float64 quotients of float32 operands round to the float32 quotient (53 ≥ 2·24 + 2); products are exact.
      // The + 0 applies to the float32 result: a tiny float64 quotient that rounds to −0 becomes +0 too.
      if (multiply) for (let i = r * g.K + b * g.width; i < end; i++) y[i] = Math.fround(x[i]! * f) + zero;
      else for (let i = r * g.K + b * g.width; i < end; i++) y[i] = Math.fround(x[i]! / f) + zero;
    }
  }
}
