// The encode kernel's shared pieces: the parameter block's accessors (layout in encode-layout.ts, generated from
// scripts/encode-layout.mjs) and the format-independent constants every variant loads.
import { SCALARS_AT, Scalar, Slot } from "./encode-layout";

// Format-independent constants, kept in memory: V8 rebuilds v128 constants in every loop iteration.
const FIXED = memory.data<u32>([
  0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff, // |x| mask
  0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, // +∞ bits
  0x00800000, 0x00800000, 0x00800000, 0x00800000, // smallest normal float32
  0x4a800000, 0x4a800000, 0x4a800000, 0x4a800000, // 149 << 23: rebias of a renormalised float32 subnormal
  0x4f000000, 0x4f000000, 0x4f000000, 0x4f000000, // f32 2^31
  0x007fffff, 0x007fffff, 0x007fffff, 0x007fffff, // float32 trailing significand (NaN payload)
  1, 1, 1, 1,
  0x4b000000, 0x4b000000, 0x4b000000, 0x4b000000, // f32 2^23: x + 2^23 − 2^23 reads an integer x < 2^23 exactly
  0x7f7fffff, 0x7f7fffff, 0x7f7fffff, 0x7f7fffff, // largest finite float32
  4, 4, 4, 4,
], 16);
export const F_ABS = 0;
export const F_INF = 16;
export const F_MINNORMAL = 32;
export const F_REBIAS = 48;
export const F_TWO31 = 64;
export const F_PAYLOAD = 80;
export const F_ONE = 96;
export const F_TWO23 = 112;
export const F_MAXFINITE = 128;
export const F_FOUR = 144;

/** The splatted value of a slot of the block at p. */
// @ts-ignore: decorator
@inline
export function c(p: usize, slot: Slot): v128 {
  return v128.load(p + (<usize>slot << 4));
}

/** A scalar word of the block at p. */
// @ts-ignore: decorator
@inline
export function scalar(p: usize, word: Scalar): i32 {
  return load<i32>(p + SCALARS_AT + (<usize>word << 2));
}

/** A format-independent constant (F_*). */
// @ts-ignore: decorator
@inline
export function k(offset: i32): v128 {
  return v128.load(FIXED + <usize>offset);
}
