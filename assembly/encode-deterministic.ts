// Encode kernel, fast deterministic magnitudes: NearestTiesToEven (one float addition at the quantum of each lane, or
// the integer carry on the float32 bits) and the directed family (an addend on the float32 bits, a threshold on the
// fraction of subnormal results).
import { F_ABS, F_INF, F_ONE, F_TWO23, c, k } from "./encode-common";
import { Slot } from "./encode-layout";
import { select } from "./simd";

// select: every mask in this file is a comparison result or a sign spread, so each of its bytes is 0x00 or 0xFF.

/**
 * 2^23 times the quantum of four magnitudes' results (NearestTiesToEven, exponent-count form): their exponent bits
 * plus (23 − M)·2^23, at least 2^(minQ+23) (below MinNormal). From binade 105 + M on the sum is +∞'s bits or wraps
 * negative (then 2^(minQ+23)): the host admits formats whose codes there are clamped anyway (nearestCountHolds;
 * the others take carryEight).
 */
// @ts-ignore: decorator
@inline
function quantumC(p: usize, a: v128): v128 {
  return i32x4.max_s(i32x4.add(v128.and(a, k(F_INF)), c(p, Slot.fastStep)), c(p, Slot.fastMagic));
}

/**
 * Magnitude codes of eight lanes |x| = a0, a1 under NearestTiesToEven, in i16 lanes: one float addition rounds |x| to
 * its quantum q (C = 2^23·q: |x| + C lies in [C, 2C), whose ulp is q, so bits(|x| + C) − bits(C) = RNE(|x|/q), 2^(M+1)
 * where it rounds up into the next binade), and the code adds 2^M per binade of C above 2^(minQ+23)'s. Byte codes (K ≤
 * 8) take the binades from the high halves of C (constant shifts only: V8 spends three extra instructions on a vector
 * shift by a variable) and are left unclamped below 2^15 for a byte clamp after the narrow; 16-bit codes are clamped
 * to fastLimit. A lane past the clamp counts at least to it (quantumC).
 */
// @ts-ignore: decorator
@inline
export function nearestEight(p: usize, a0: v128, a1: v128, bytes: bool, shift: i32): v128 {
  const c0 = quantumC(p, a0);
  const c1 = quantumC(p, a1);
  const n0 = i32x4.sub(f32x4.add(a0, c0), c0);
  const n1 = i32x4.sub(f32x4.add(a1, c1), c1);
  if (bytes) {
    // Binades above 2^(minQ+23)'s (≤ 255) times 2^M (M ≤ 7): below 2^15, and saturated counts stay below it too.
    const high = i8x16.shuffle(c0, c1, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
    const binades = i16x8.shr_u(i16x8.sub(high, c(p, Slot.fastMagicHigh)), 7);
    return i16x8.add_sat_s(i16x8.narrow_i32x4_s(n0, n1), i16x8.mul(binades, c(p, Slot.fastUnit)));
  }
  const e0 = i32x4.shr_u(i32x4.sub(c0, c(p, Slot.fastMagic)), shift);
  const e1 = i32x4.shr_u(i32x4.sub(c1, c(p, Slot.fastMagic)), shift);
  return i16x8.min_u(i16x8.narrow_i32x4_u(i32x4.add(n0, e0), i32x4.add(n1, e1)), c(p, Slot.narrowLimit));
}

/**
 * nearestEight's codes, clamped to LIMIT (limit16), by the integer carry on the float32 bits: for the formats whose
 * exponent-count form does not hold (P = 1, 8 exponent bits: the host's nearestCountHolds). Normal results: the bits
 * rebiased, half a code unit minus one added and the round bit (tested by a compare) for the ties, then shifted down
 * (byte codes: by a constant 16 before the narrow and by `count` = shift − 16 per eight lanes; 16-bit codes by
 * `count` = shift per four lanes; no lane at or above MinNormal passes 2^32 with B ≤ 128, and a code too large for 16
 * bits saturates in the narrow). Subnormal results: one float addition of 2^(minQ+23), selected below MinNormal. A
 * lane whose rebiased bits wrapped (a huge |x| with bias 128, a tiny one with a negative rebias) is clamped to LIMIT
 * or takes the subnormal result.
 */
// @ts-ignore: decorator
@inline
export function carryEight(p: usize, a0: v128, a1: v128, bytes: bool, count: i32, bit: v128, limit16: v128): v128 {
  const magic = c(p, Slot.fastMagic);
  const b0 = i32x4.add(a0, c(p, Slot.fastRebias));
  const b1 = i32x4.add(a1, c(p, Slot.fastRebias));
  const r0 = i32x4.sub(i32x4.add(b0, c(p, Slot.fastHalf)), i32x4.eq(v128.and(b0, bit), bit));
  const r1 = i32x4.sub(i32x4.add(b1, c(p, Slot.fastHalf)), i32x4.eq(v128.and(b1, bit), bit));
  const n = bytes
    ? i16x8.shr_u(i16x8.narrow_i32x4_u(i32x4.shr_u(r0, 16), i32x4.shr_u(r1, 16)), count)
    : i16x8.narrow_i32x4_u(i32x4.shr_u(r0, count), i32x4.shr_u(r1, count));
  // Subnormal codes are small; other lanes' values saturate and are not selected.
  const s = i16x8.narrow_i32x4_u(i32x4.sub(f32x4.add(a0, magic), magic), i32x4.sub(f32x4.add(a1, magic), magic));
  const below = i16x8.narrow_i32x4_s(i32x4.lt_s(a0, c(p, Slot.fastNormalBits)), i32x4.lt_s(a1, c(p, Slot.fastNormalBits)));
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
