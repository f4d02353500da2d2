// Counter-based random bits for stochastic rounding: R_i depends only on (seed, i), so results never depend on
// how an array is chunked or split across threads. The Wasm kernels implement the same function in SIMD lanes.
import { ArgumentTypeError, CodeRangeError, ProjectionError, describe, requireInteger } from "./errors.js";
import { type ResolvedProjection, isStochastic } from "./exact/projection.js";

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

export type RandomArray = Uint8Array | Uint16Array | Uint32Array;

/** Where the random bits R_i (P3109 §4.7.4) of a call with a stochastic rounding come from. */
export interface RandomOptions {
  /** Seed of the counter-based generator: R_i depends on (seed, seedIndex + i) alone. Integer in [0, 2^32). */
  seed?: number;
  /**
   * With `seed`: the stream index of element 0 (default 0), so a tensor converted in parts gives the same result as
   * in one call (part k passes the index of its first element). seedIndex + length ≤ 2^32.
   */
  seedIndex?: number;
  /** Caller-supplied R_i: a Uint8Array, Uint16Array or Uint32Array with one R per element, each < 2^N. */
  random?: RandomArray;
}

/** A validated random source: R_i of element i is `at(i)`. */
export type RandomSource =
  | { readonly kind: "seed"; readonly seed: number; readonly seedIndex: number; readonly at: (i: number) => number }
  | { readonly kind: "array"; readonly array: RandomArray; readonly at: (i: number) => number };

/**
 * The one validator of random bits for every API that takes them: exactly one of `seed` (with optional
 * `seedIndex`) or `random` (a typed array of `n` values R < 2^N) for a stochastic rounding, neither otherwise.
 * Returns undefined for a deterministic rounding. `where` prefixes the argument names of errors.
 */
export function resolveRandom(rho: ResolvedProjection, n: number, source: RandomOptions, where = "options"): RandomSource | undefined {
  const { seed, seedIndex, random } = source;
  if (seedIndex !== undefined && seed === undefined) throw new ProjectionError(`${where}.seedIndex`, `only allowed together with ${where}.seed`);
  if (!isStochastic(rho.rounding)) {
    if (seed !== undefined || random !== undefined) {
      throw new ProjectionError(`${where}.${seed !== undefined ? "seed" : "random"}`, `only allowed with a stochastic rounding (rounding is ${rho.rounding})`);
    }
    return undefined;
  }
  if ((seed === undefined) === (random === undefined)) {
    throw new ProjectionError(where, `${rho.rounding} needs exactly one of ${where}.seed (an integer in [0, 2^32)) or ${where}.random (one R per element)`);
  }
  const N = rho.stochasticBits;
  if (seed !== undefined) {
    if (typeof seed !== "number" || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new ProjectionError(`${where}.seed`, `got ${describe(seed)}; allowed: an integer in [0, 2^32)`);
    }
    const first = seedIndex ?? 0;
    if (typeof first !== "number" || !Number.isInteger(first) || first < 0 || first + n > 2 ** 32) {
      throw new ProjectionError(`${where}.seedIndex`, `got ${describe(seedIndex)}; allowed: an integer ≥ 0 with seedIndex + length (${n}) ≤ 2^32`);
    }
    const [k0, k1] = seedKeys(seed);
    return { kind: "seed", seed, seedIndex: first, at: (i) => randomR(k0, k1, first + i, N) };
  }
  if (!(random instanceof Uint8Array || random instanceof Uint16Array || random instanceof Uint32Array)) {
    throw new ArgumentTypeError(`${where}.random`, `got ${describe(random)}; allowed: a Uint8Array, Uint16Array or Uint32Array with one R per element`);
  }
  if (random.length !== n) throw new CodeRangeError(`${where}.random`, `has length ${random.length}; allowed: the input length ${n}`);
  const limit = 2 ** N;
  for (let i = 0; i < n; i++) {
    if (random[i]! >= limit) throw new ProjectionError(`${where}.random`, `element ${i} is ${random[i]}; allowed: 0 ≤ R < 2^N = ${limit}`);
  }
  return { kind: "array", array: random, at: (i) => random[i]! };
}
