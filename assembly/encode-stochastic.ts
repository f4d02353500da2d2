// Encode kernel, fast stochastic magnitudes: StochasticA/B/C with R' added at the fraction bits (P3109 §4.7.4).
import { F_ABS, F_TWO23, k } from "./encode-common";
import { RandomSource } from "./encode-layout";

/**
 * Magnitude code of four lanes under StochasticA/B/C with R' = R (A, C) or 2R + 1 (B) and NS = N (A, C) or N + 1 (B)
 * fraction bits: round away iff ⌊ν·2^NS⌋ + R' ≥ 2^NS (§4.7.4), C after RNITE(ν·2^N). Each lane is moved
 * so that its code starts at bit c0 (23 for bytes, 16 for wide codes) with ν's top NS bits below it, where R' (the
 * top NS bits of w) lands after the constant shift 32 − c0 and the carry flows into the code.
 * Normal results: the float32 bits rebiased, the bits below ν's NS cleared, clamped at the overflow code (no
 * fraction there, so no carry), times 2^(c0 − 24 + P). Subnormal results (`subnormal`: some lane of the group is
 * below MinNormal ≥ 2^−126): ⌊|x|·2^(NS − minQ)⌋, exact and capped at MinNormal's, times 2^(c0 − NS); the larger
 * of the two is the right one, as read as a normal number a subnormal is at most half its value (or negative).
 * Shifts by constants only: V8 moves every variable shift count through a general register (measured 2× slower).
 */
// @ts-ignore: decorator
@inline
export function stochasticMagnitude(x: v128, w: v128, subnormal: bool, wide: bool, stageC: bool, rebias: v128, fractionMask: v128, cBit: v128, clamp: v128, up: v128, scale: v128, scale2: v128, yCap: v128, subUp: v128): v128 {
  const a = v128.and(x, k(F_ABS));
  // StochasticC: `rebias` includes 2^(d−1) − 1, and the kept bit d of |x| (rebias is a multiple of 2^23) adds 1
  // (cBit is 2^31, never set in |x|, when there is nothing to round).
  let b = i32x4.add(a, rebias);
  if (stageC) b = i32x4.sub(b, i32x4.eq(v128.and(a, cBit), cBit));
  b = v128.and(b, fractionMask);
  let t: v128;
  if (subnormal) {
    t = i32x4.mul(i32x4.min_u(i32x4.max_s(b, i32x4.splat(0)), clamp), up);
    // One scaling step for byte formats (host-checked), two for wide ones (2^(NS − minQ) may pass 2^127).
    let y = f32x4.pmin(yCap, wide ? f32x4.mul(f32x4.mul(a, scale), scale2) : f32x4.mul(a, scale));
    y = stageC ? f32x4.nearest(y) : f32x4.floor(y);
    // y ≤ yCap ≤ 2^23 (host-checked), so adding 2^23 reads it as an integer.
    t = i32x4.max_u(t, i32x4.mul(i32x4.sub(f32x4.add(y, k(F_TWO23)), k(F_TWO23)), subUp));
  } else {
    t = i32x4.mul(i32x4.min_u(b, clamp), up);
  }
  const c0 = wide ? 16 : 23;
  return i32x4.shr_u(i32x4.add(t, i32x4.shr_u(w, 32 - c0)), c0);
}

/** Whether any of the 16·blocks float32 at s lies below `normalBits` in magnitude. */
// @ts-ignore: decorator
@inline
export function anyBelow(s: usize, blocks: usize, normalBits: v128): bool {
  const abs = k(F_ABS);
  let below = i32x4.splat(0);
  for (const end = s + (blocks << 6); s < end; s += 64) {
    const b01 = v128.or(i32x4.lt_s(v128.and(v128.load(s, 0), abs), normalBits), i32x4.lt_s(v128.and(v128.load(s, 16), abs), normalBits));
    const b23 = v128.or(i32x4.lt_s(v128.and(v128.load(s, 32), abs), normalBits), i32x4.lt_s(v128.and(v128.load(s, 48), abs), normalBits));
    below = v128.or(below, v128.or(b01, b23));
  }
  return v128.any_true(below);
}

/**
 * R' in the top NS bits of vector j of a block (bits below are ignored; B's + 1 is the bit under R): the top of
 * field j of the words h0 (bytes; halves: fields j mod 2 of h0, then h1) for a seed, else a caller array's values
 * (u8/u16/u32 per `kind`) shifted up.
 */
// @ts-ignore: decorator
@inline
export function blockRandom(j: i32, seeded: bool, fields: i32, h0: v128, h1: v128, kind: i32, rnd: usize, toTop: i32, oneAt: v128): v128 {
  let r: v128;
  if (seeded) {
    const h = fields == 2 || j < 2 ? h0 : h1;
    const up = fields == 2 ? 24 - 8 * j : 16 - 16 * (j & 1);
    return v128.or(up == 0 ? h : i32x4.shl(h, up), oneAt);
  }
  if (kind == RandomSource.u8) r = i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(rnd + (<usize>j << 2))));
  else if (kind == RandomSource.u16) r = i32x4.extend_low_i16x8_u(v128.load64_zero(rnd + (<usize>j << 3)));
  else r = v128.load(rnd + (<usize>j << 4));
  return v128.or(i32x4.shl(r, toTop), oneAt);
}

