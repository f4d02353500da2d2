// Encode kernel, fast deterministic magnitudes: NearestTiesToEven (the float-add trick for subnormal results) and
// the directed family (an addend on the float32 bits, a threshold on the fraction of subnormal results).
import { F_ABS, F_ONE, F_TWO23, c, k } from "./encode-common";
import { Slot } from "./encode-layout";
import { select } from "./simd";

// select: every mask in this file is a comparison result or a sign spread, so each of its bytes is 0x00 or 0xFF.

/** Rounded, clamped magnitude code of four lanes (NearestTiesToEven). */
// @ts-ignore: decorator
@inline
export function fastMagnitude(x: v128, shift: i32, rebias: v128, half: v128, magic: v128, normalBits: v128, limit: v128): v128 {
  const a = v128.and(x, k(F_ABS));
  const b = i32x4.add(a, rebias); // exponent rebiased: b >> shift is the truncated magnitude code
  const n = i32x4.shr_s(i32x4.add(i32x4.add(b, half), v128.and(i32x4.shr_u(b, shift), k(F_ONE))), shift);
  const s = i32x4.sub(f32x4.add(a, magic), magic);
  // With bias 128 (rebias 2^23) ∞ and values near it wrap negative: the unsigned clamp still sends them to LIMIT.
  return i32x4.min_u(select(s, n, i32x4.lt_s(a, normalBits)), limit);
}

/**
 * fastMagnitude of eight lanes, in i16 lanes, with fewer operations: the round bit is tested by a compare (no shift
 * by a variable count for the parity; V8 spends three instructions on one), and select and clamp run on eight lanes.
 * Byte codes (K ≤ 8, `shift` ≥ 16) move the rounded bits down by a constant 16 before the narrow and by `count` =
 * shift − 16 once per eight lanes; 16-bit codes shift by `count` = shift, unsigned, per four lanes (the fast path has
 * B ≤ 128, so no lane at or above MinNormal passes 2^32), and a code too large for 16 bits saturates in the narrow.
 * A lane whose rebiased bits wrapped (a huge |x| with bias 128, a tiny one with a negative rebias) is clamped to
 * LIMIT or takes the subnormal result, as in fastMagnitude.
 */
// @ts-ignore: decorator
@inline
export function nearestEight(x0: v128, x1: v128, bytes: bool, count: i32, bit: v128, rebias: v128, half: v128, magic: v128, normalBits: v128, limit16: v128): v128 {
  const a0 = v128.and(x0, k(F_ABS));
  const a1 = v128.and(x1, k(F_ABS));
  const b0 = i32x4.add(a0, rebias);
  const b1 = i32x4.add(a1, rebias);
  const r0 = i32x4.sub(i32x4.add(b0, half), i32x4.eq(v128.and(b0, bit), bit));
  const r1 = i32x4.sub(i32x4.add(b1, half), i32x4.eq(v128.and(b1, bit), bit));
  const n = bytes
    ? i16x8.shr_u(i16x8.narrow_i32x4_u(i32x4.shr_u(r0, 16), i32x4.shr_u(r1, 16)), count)
    : i16x8.narrow_i32x4_u(i32x4.shr_u(r0, count), i32x4.shr_u(r1, count));
  // Subnormal codes are small; other lanes' values saturate and are not selected.
  const s = i16x8.narrow_i32x4_u(i32x4.sub(f32x4.add(a0, magic), magic), i32x4.sub(f32x4.add(a1, magic), magic));
  const below = i16x8.narrow_i32x4_s(i32x4.lt_s(a0, normalBits), i32x4.lt_s(a1, normalBits));
  return i16x8.min_u(select(s, n, below), limit16);
}

/**
 * Rounded, clamped magnitude code of four lanes under TowardZero/Positive/Negative, TowardMaxMagnitude, ToOdd or
 * NearestTiesToAway: normal results add T (by parity and sign) to the float32 bits before the shift; subnormal
 * results split y = |x|·2^−minQ (exact) into ⌊y⌋ and the fraction ν and round away iff bits(ν) > G.
 */
// @ts-ignore: decorator
@inline
export function directedMagnitude(p: usize, x: v128, shift: i32, rebias: v128, scale1: v128, scale2: v128, normalBits: v128, limit: v128, limitNeg: v128): v128 {
  const a = v128.and(x, k(F_ABS));
  const neg = i32x4.shr_s(x, 31);
  const one = k(F_ONE);
  const b = i32x4.add(a, rebias);
  const oddN = i32x4.neg(v128.and(i32x4.shr_u(b, shift), one));
  const t = i32x4.add(i32x4.add(c(p, Slot.directedTBase), v128.and(oddN, c(p, Slot.directedTOdd))), i32x4.add(v128.and(neg, c(p, Slot.directedTNegative)), v128.andnot(c(p, Slot.directedTPositive), neg)));
  const n = i32x4.shr_s(i32x4.add(b, t), shift);
  const y = f32x4.mul(f32x4.mul(a, scale1), scale2);
  const floor = f32x4.floor(y);
  const whole = i32x4.sub(f32x4.add(floor, k(F_TWO23)), k(F_TWO23));
  const oddS = i32x4.neg(v128.and(whole, one));
  const g = i32x4.add(i32x4.add(c(p, Slot.directedGBase), v128.and(oddS, c(p, Slot.directedGOdd))), i32x4.add(v128.and(neg, c(p, Slot.directedGNegative)), v128.andnot(c(p, Slot.directedGPositive), neg)));
  const s = i32x4.sub(whole, i32x4.gt_s(f32x4.sub(y, floor), g));
  return i32x4.min_u(select(s, n, i32x4.lt_s(a, normalBits)), select(limitNeg, limit, neg));
}


/**
 * Codes of four lanes of an unsigned P = 1 format without zero (E8M0) under any deterministic rounding or ml_dtypes'
 * E8M0 cast, clamped: normal results add T (with the rebias, by parity) to the float32 bits before the shift; below
 * fastNormalBits the code is 0 or 1 (|x| < 2·MinPositive), a threshold on the bits; lanes below a threshold on the
 * bits as i32 (negative, ±0, rounding to zero) take the below-MinFinite code. All integer, and on x itself: the
 * negative lanes' other results are discarded.
 */
// @ts-ignore: decorator
@inline
export function noZeroCodes(p: usize, x: v128, bit: v128, normalBits: v128, limit: v128): v128 {
  const odd = i32x4.eq(v128.and(x, bit), bit); // all ones where bit 23 of x is set
  // P = 1: the code is the exponent field, 23 bits up (a constant shift: one instruction, not three).
  const n = i32x4.shr_s(i32x4.add(i32x4.add(x, c(p, Slot.noZeroT)), v128.and(odd, c(p, Slot.noZeroTOdd))), 23);
  const low = i32x4.shr_u(i32x4.ge_s(x, c(p, Slot.noZeroOneBits)), 31);
  const m = select(low, i32x4.min_u(n, limit), i32x4.lt_s(x, normalBits));
  return select(c(p, Slot.noZeroBelow), m, i32x4.lt_s(x, c(p, Slot.noZeroBelowBits)));
}
