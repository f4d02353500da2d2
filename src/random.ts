// Counter-based random bits for stochastic rounding: R_i depends only on (seed, i), so results never depend on
// how an array is chunked or split across threads. The Wasm kernels implement the same function in SIMD lanes.
import { requireInteger } from "./errors.js";

/** lowbias32 (a 32-bit integer hash with low avalanche bias): two xor-shift-multiply rounds. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The two per-seed keys of the generator (seed: an integer in [0, 2^32)). */
export function seedKeys(seed: number): [number, number] {
  requireInteger("seed", seed, 0, 0xffffffff);
  return [mix32(seed >>> 0), mix32((seed + 0x9e3779b9) >>> 0)];
}

/** 32 random bits for element `index` (0 ≤ index < 2^32) under the given keys. */
export function randomBits32(k0: number, k1: number, index: number): number {
  return mix32((mix32((index ^ k0) >>> 0) ^ k1) >>> 0);
}

/** R for element `index`: the top N bits of its 32 random bits (1 ≤ N ≤ 32). */
export function randomR(k0: number, k1: number, index: number, N: number): number {
  requireInteger("index", index, 0, 0xffffffff);
  requireInteger("N", N, 1, 32);
  const bits = randomBits32(k0, k1, index);
  return N === 32 ? bits : bits >>> (32 - N);
}
