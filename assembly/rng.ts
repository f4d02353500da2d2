// Counter-based random bits in SIMD lanes, bit-identical to src/random.ts: stream word W_w = mix32(mix32(w ^ k0) ^ k1)
// and element i's field of a word fixed by i alone, so a lane's bits depend only on (seed, absolute element index),
// never on chunking.

// lowbias32 multipliers and the lane offsets 0…3, kept in memory: V8 11.3 rebuilds v128 constants in every
// loop iteration.
const RNG_CONSTANTS = memory.data<u32>([0x7feb352d, 0x7feb352d, 0x7feb352d, 0x7feb352d, 0x846ca68b, 0x846ca68b, 0x846ca68b, 0x846ca68b, 0, 1, 2, 3], 16);

/** Multiplier 1 of lowbias32, splatted. */
// @ts-ignore: decorator
@inline
export function rngMul1(): v128 {
  return v128.load(RNG_CONSTANTS, 0);
}

/** Multiplier 2 of lowbias32, splatted. */
// @ts-ignore: decorator
@inline
export function rngMul2(): v128 {
  return v128.load(RNG_CONSTANTS, 16);
}

/** Lane offsets [0, 1, 2, 3]: the element indices of a vector relative to its first element. */
// @ts-ignore: decorator
@inline
export function laneOffsets(): v128 {
  return v128.load(RNG_CONSTANTS, 32);
}

/** lowbias32 on four lanes (src/random.ts mix32). */
// @ts-ignore: decorator
@inline
export function mix32x4(x: v128, m1: v128, m2: v128): v128 {
  x = v128.xor(x, i32x4.shr_u(x, 16));
  x = i32x4.mul(x, m1);
  x = v128.xor(x, i32x4.shr_u(x, 15));
  x = i32x4.mul(x, m2);
  return v128.xor(x, i32x4.shr_u(x, 16));
}

/** Stream words W_w for the word indices in `index` under keys k0, k1 (src/random.ts randomBits32). */
// @ts-ignore: decorator
@inline
export function randomBits32x4(index: v128, k0: v128, k1: v128, m1: v128, m2: v128): v128 {
  return mix32x4(v128.xor(mix32x4(v128.xor(index, k0), m1, m2), k1), m1, m2);
}

/**
 * Lanes whose top bits hold the random field of the element indices in `index` (src/random.ts randomR): field
 * j mod F of word 16b/F + 4⌊j/F⌋ + l for index = 16b + 4j + l, with F = 2^fieldsLog2 fields per word. Any index
 * alignment; kernels reading whole aligned blocks take the same fields with constant shifts instead.
 */
// @ts-ignore: decorator
@inline
export function seededLanes(index: v128, fieldsLog2: i32, k0: v128, k1: v128): v128 {
  const j = v128.and(i32x4.shr_u(index, 2), i32x4.splat(3));
  const word = i32x4.add(i32x4.shl(i32x4.shr_u(index, 4), 4 - fieldsLog2), i32x4.add(i32x4.shl(i32x4.shr_u(j, fieldsLog2), 2), v128.and(index, i32x4.splat(3))));
  const field = v128.and(j, i32x4.splat((1 << fieldsLog2) - 1));
  // The field moves to the top under a multiply by 2^(32 − width·(field + 1)), built from float32 bits (127 + p) << 23.
  const p = i32x4.sub(i32x4.splat(32), i32x4.shl(i32x4.add(field, i32x4.splat(1)), 5 - fieldsLog2));
  const scale = i32x4.trunc_sat_f32x4_u(i32x4.shl(i32x4.add(p, i32x4.splat(127)), 23));
  return i32x4.mul(randomBits32x4(word, k0, k1, rngMul1(), rngMul2()), scale);
}
