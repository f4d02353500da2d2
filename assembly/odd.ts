// float64 → float32 rounded to odd (src/exact/round-to-odd.ts roundToOddFloat32 is the reference and holds the
// argument): the float32 nearest, and where that is inexact with an even last bit, one unit toward the float64 value.
// Four elements per step: two float64x2 demoted and joined, the float64 masks narrowed to 32-bit lanes.

/** 2^128: float64 values at least this large (and NaN) are not carried by rounding to float32 to odd. */
export const ODD_LIMIT: f64 = reinterpret<f64>(0x47f0000000000000);

/**
 * The float32 bits of x rounded to odd: the nearest, and where that is inexact with an even last bit, one unit toward
 * x (sign-magnitude bits: −1 beyond x, +1 short of it; selects, as the direction follows the data).
 */
// @ts-ignore: decorator
@inline
export function toOdd32(x: f64): i32 {
  const y = <f32>x;
  const bits = reinterpret<i32>(y);
  return bits + select<i32>(select<i32>(-1, 1, abs<f64>(<f64>y) > abs<f64>(x)), 0, <f64>y != x && (bits & 1) == 0);
}

/** The 32-bit lanes 0 and 2 of a and of b (the low halves of four 64-bit mask lanes, all ones or zero). */
// @ts-ignore: decorator
@inline
function low32(a: v128, b: v128): v128 {
  return i8x16.shuffle(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
}

/** The float32 bits of the four float64 lanes of v0, v1 rounded to nearest even (demoted and joined). */
// @ts-ignore: decorator
@inline
export function nearest32x4(v0: v128, v1: v128): v128 {
  return i8x16.shuffle(f32x4.demote_f64x2_zero(v0), f32x4.demote_f64x2_zero(v1), 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
}

/** toOdd32 of the four float64 lanes of v0, v1 (NaN lanes: some NaN). */
// @ts-ignore: decorator
@inline
export function toOdd32x4(v0: v128, v1: v128): v128 {
  const one = i32x4.splat(1);
  const f0 = f32x4.demote_f64x2_zero(v0);
  const f1 = f32x4.demote_f64x2_zero(v1);
  const f = i8x16.shuffle(f0, f1, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const b0 = f64x2.promote_low_f32x4(f0);
  const b1 = f64x2.promote_low_f32x4(f1);
  const inexact = low32(f64x2.ne(b0, v0), f64x2.ne(b1, v1));
  // −1 where the float32 lies beyond v in magnitude (±∞ included), else +1.
  const beyondV = low32(f64x2.gt(f64x2.abs(b0), f64x2.abs(v0)), f64x2.gt(f64x2.abs(b1), f64x2.abs(v1)));
  const even = i32x4.eq(v128.and(f, one), i32x4.splat(0));
  const step = v128.and(v128.and(inexact, even), v128.or(beyondV, one));
  return i32x4.add(f, step);
}

/** All ones in the 32-bit lanes whose float64 (of v0, v1) is NaN or at least ODD_LIMIT in magnitude. */
// @ts-ignore: decorator
@inline
export function beyondOdd32x4(v0: v128, v1: v128): v128 {
  const limit = f64x2.splat(ODD_LIMIT);
  // !(|v| < limit): true for NaN too.
  return v128.not(low32(f64x2.lt(f64x2.abs(v0), limit), f64x2.lt(f64x2.abs(v1), limit)));
}

/** The sum of the four 32-bit lanes of v. */
// @ts-ignore: decorator
@inline
export function laneTotal(v: v128): i32 {
  return i32x4.extract_lane(v, 0) + i32x4.extract_lane(v, 1) + i32x4.extract_lane(v, 2) + i32x4.extract_lane(v, 3);
}

/**
 * dst[i] = src[i] rounded to float32 to odd for n float64 at src (NaN lanes: some NaN). Returns how many elements are
 * NaN or at least 2^128 in magnitude: the ones whose projection the host completes by the reference.
 */
export function roundToOdd32(src: usize, dst: usize, n: usize): i32 {
  let beyond = i32x4.splat(0);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) {
    const v0 = v128.load(src + (i << 3));
    const v1 = v128.load(src + (i << 3), 16);
    v128.store(dst + (i << 2), toOdd32x4(v0, v1));
    beyond = i32x4.sub(beyond, beyondOdd32x4(v0, v1));
  }
  let count = laneTotal(beyond);
  for (; i < n; i++) {
    const v = load<f64>(src + (i << 3));
    store<i32>(dst + (i << 2), toOdd32(v));
    if (!(abs<f64>(v) < ODD_LIMIT)) count++;
  }
  return count;
}
