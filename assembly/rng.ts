// Counter-based random bits in SIMD lanes, bit-identical to src/random.ts: R_i = mix32(mix32(i ^ k0) ^ k1), so
// a lane's bits depend only on (seed, absolute element index), never on chunking.

// lowbias32 multipliers and the lane offsets 0…3, kept in memory: V8 11.3 rebuilds v128 constants in every
// loop iteration (docs/wasm-kernels.md §2).
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

/** 32 random bits for the element indices in `index` under keys k0, k1 (src/random.ts randomBits32). */
// @ts-ignore: decorator
@inline
export function randomBits32x4(index: v128, k0: v128, k1: v128, m1: v128, m2: v128): v128 {
  return mix32x4(v128.xor(mix32x4(v128.xor(index, k0), m1, m2), k1), m1, m2);
}
