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

/** Word `index` (0 ≤ index < 2^32) of the stream under the given keys: 32 random bits. */
export function randomBits32(k0: number, k1: number, index: number): number {
  return mix32((mix32((index ^ k0) >>> 0) ^ k1) >>> 0);
}

/** log2 of the fields per stream word for N random bits: four bytes (N ≤ 8), two halves (N ≤ 16) or the word. */
export function fieldsLog2(N: number): number {
  return N <= 8 ? 2 : N <= 16 ? 1 : 0;
}

/**
 * Where element `index` takes its N random bits: field `field` (bits width·field … width·field + width − 1) of stream
 * word `word`, width = 32 / F with F = 2^fieldsLog2(N) fields per word. Elements go in blocks of 16
 * (index = 16b + 4j + l): element (b, j, l) takes field j mod F of word 16b/F + 4⌊j/F⌋ + l. Each field serves
 * exactly one element, one word serves F of them, and a SIMD kernel reads the fields of a block's four vectors
 * from the same hashed words with constant shifts.
 */
export function streamField(index: number, N: number): { word: number; field: number; width: number } {
  const log = fieldsLog2(N);
  const j = (index % 16) >> 2;
  return { word: Math.floor(index / 16) * (16 >> log) + ((j >> log) << 2) + (index % 4), field: j & ((1 << log) - 1), width: 32 >> log };
}

/** R for element `index` (0 ≤ index < 2^32): the top N bits (1 ≤ N ≤ 32) of its field (streamField). */
export function randomR(k0: number, k1: number, index: number, N: number): number {
  requireInteger("index", index, 0, 0xffffffff);
  requireInteger("N", N, 1, 32);
  const { word, field, width } = streamField(index, N);
  const bits = randomBits32(k0, k1, word);
  return (width === 32 ? bits : (bits >>> (field * width)) & (2 ** width - 1)) >>> (width - N);
}
