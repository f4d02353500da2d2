// Fast path: the same algorithm specialised per rounding family for formats whose finite overflow has one code per
// sign (host-checked). NearestTiesToEven rounds every magnitude by one float addition at its quantum (nearestEight);
// the directed and stochastic families round normal results with an addend on the float32 bits and subnormal results
// after an exact scaling. The magnitude is clamped and the sign/±∞/NaN rules run on narrowed lanes (8 or 16 per op
// instead of 4). The generic kernel measured ~0.25 G/s, this path 0.5–1.9 G/s by rounding family (16M elements,
// loaded 2-core machine).
import { carryEight, directedMagnitude, nearestEight, noZeroCodes } from "./encode-deterministic";
import { F_ABS, F_FOUR, F_INF, F_MAXFINITE, F_PAYLOAD, c, k, scalar } from "./encode-common";
import { Fields, RandomSource, Scalar, Slot, TAIL_AT, Variant } from "./encode-layout";

/** Whether a kernel keeps NaN payloads (numpy float16) or writes the NaN codes. */
export const enum Payload {
  drop = 0,
  keep = 1,
}
import { anyBelow, blockRandom, stochasticMagnitude } from "./encode-stochastic";
import { laneOffsets, randomBits32x4, rngMul1, rngMul2 } from "./rng";
import { select } from "./simd";

// select: the masks are comparison results narrowed with signed saturation (still 0 or all ones) or ANDed with the
// all-ones/zero slot narrowUnsigned, so each byte is 0x00 or 0xFF.

/** All ones where a magnitude (below 2^31) is ∞ or NaN's. */
// @ts-ignore: decorator
@inline
function specialMask(a: v128): v128 {
  return i32x4.gt_s(a, k(F_MAXFINITE));
}

/** Codes of 8 (wide) or 16 finite lanes from their clamped magnitudes and sign masks, in narrow lanes. */
// @ts-ignore: decorator
@inline
function fastCodes(p: usize, m: v128, neg: v128, wide: bool): v128 {
  const zero = i32x4.splat(0);
  const atZero = wide ? i16x8.eq(m, zero) : i8x16.eq(m, zero);
  // Sign: cleared at zero where the format has no −0. Unsigned formats: a negative input gives 0 when it rounds to
  // zero, otherwise the below-MinFinite code (§4.7.5 rules 5, 11, 20, 22).
  const code = v128.or(m, v128.andnot(v128.and(neg, c(p, Slot.narrowSignBit)), v128.and(atZero, c(p, Slot.narrowZeroClear))));
  return select(v128.andnot(c(p, Slot.narrowBelowNegative), atZero), code, v128.and(neg, c(p, Slot.narrowUnsigned)));
}

/** ±∞ and NaN lanes of `code` replaced by their codes (by sign; NaN with the kept payload of numpy float16). */
// @ts-ignore: decorator
@inline
function fastSpecials(p: usize, code: v128, neg: v128, inf: v128, nan: v128, payload: v128, keepPayload: bool): v128 {
  let nanCode = select(c(p, Slot.narrowNaNNegative), c(p, Slot.narrowNaNPositive), neg);
  if (keepPayload) nanCode = i16x8.add(nanCode, i16x8.add(i16x8.max_u(payload, c(p, Slot.narrowOne)), c(p, Slot.narrowKeepOffset)));
  return select(nanCode, select(select(c(p, Slot.narrowInfNegative), c(p, Slot.narrowInfPositive), neg), code, inf), nan);
}

/** NaN (`nan`) or ±∞ masks of eight lanes, narrowed to i16x8. */
// @ts-ignore: decorator
@inline
function specials8(x0: v128, x1: v128, nan: bool): v128 {
  const a0 = v128.and(x0, k(F_ABS));
  const a1 = v128.and(x1, k(F_ABS));
  if (nan) return i16x8.narrow_i32x4_s(i32x4.gt_s(a0, k(F_INF)), i32x4.gt_s(a1, k(F_INF)));
  return i16x8.narrow_i32x4_s(i32x4.eq(a0, k(F_INF)), i32x4.eq(a1, k(F_INF)));
}

// @ts-ignore: decorator
@inline
function fastPayload(x0: v128, x1: v128, shift: i32): v128 {
  return i16x8.narrow_i32x4_u(i32x4.shr_u(v128.and(x0, k(F_PAYLOAD)), shift), i32x4.shr_u(v128.and(x1, k(F_PAYLOAD)), shift));
}

// @ts-ignore: decorator
@inline
export function runFast(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize, variant: i32, fields: Fields, payload: Payload): void {
  // The arguments after rnd are constants at every call: each caller's copy keeps only its own branches. (Fields and
  // payload derived from the flag word here let Binaryen merge the copies into one loop testing them at run time.)
  const keepPayload = payload == Payload.keep;
  const wide = (variant & Variant.wide) != 0;
  const stochastic = (variant & Variant.stochastic) != 0;
  const seeded = (variant & Variant.seeded) != 0;
  const directed = (variant & Variant.directed) != 0;
  const stageC = (variant & Variant.stageC) != 0;
  const noZero = (variant & Variant.noZero) != 0;
  const carry = (variant & Variant.carry) != 0;
  const shift = scalar(p, Scalar.shift);
  const rebias = c(p, Slot.fastRebias);
  const normalBits = c(p, Slot.fastNormalBits);
  const limit = c(p, Slot.fastLimit);
  const scale1 = c(p, Slot.scale1);
  const scale2 = c(p, Slot.scale2);
  const limitNeg = c(p, Slot.directedLimitNegative);
  // The round bit (carryEight, noZeroCodes); for carryEight's byte codes the rest of the shift after 16, and LIMIT in
  // i16 lanes.
  const bit = i32x4.splat(1 << shift);
  const down = shift - 16;
  const limit16 = i16x8.splat(<i16>i32x4.extract_lane(limit, 0));
  // Signed formats with −0 (no zero clear, not unsigned): a code is its magnitude with the sign bit ORed in. A scalar
  // word: derived from the slots here, Binaryen sank the test into the loop.
  const plainSign = scalar(p, Scalar.plainSign) != 0;
  const signBit = c(p, Slot.narrowSignBit);
  // Constants of the other variants too: each instantiation uses its own, the rest are dead loads before the loop.
  const kind = scalar(p, Scalar.random);
  const toTop = scalar(p, Scalar.randomShift);
  const key0 = c(p, Slot.key0);
  const key1 = c(p, Slot.key1);
  const fractionMask = c(p, Slot.stochasticMask);
  const srRebias = stageC ? c(p, Slot.stochasticCRebias) : rebias;
  const cBit = c(p, Slot.stochasticCBit);
  const clamp = c(p, Slot.stochasticClamp);
  const up = c(p, Slot.stochasticUp);
  const subUp = c(p, Slot.stochasticSubnormalUp);
  const yCap = c(p, Slot.stochasticYCap);
  const scale = c(p, Slot.stochasticScale);
  const srScale2 = c(p, Slot.stochasticScale2);
  const oneAt = c(p, Slot.stochasticOneAt);
  const rBytes: usize = kind == RandomSource.u8 ? 1 : kind == RandomSource.u16 ? 2 : 4;
  // Blocks of 16 elements; a part block (the last < 16 elements, and with a seed a start inside a block of the
  // stream) runs through the zero-padded scratch with its elements (and R) at their lanes. A seeded block starts at
  // a multiple of 16 of the stream, so its R fields come from whole hashed words (src/random.ts randomR).
  // Stochastic modes take the subnormal path in groups of up to 8 blocks that hold a lane below MinNormal: one
  // predictable branch per group instead of one per block (measured faster on data with and without such lanes).
  let lead: usize = seeded ? <usize>(first & 15) : 0;
  let index = first - <u32>lead;
  let i: usize = 0;
  let group: usize = 0;
  let subnormals = true;
  while (i < n) {
    const take = min<usize>(16 - lead, n - i);
    let s = src + (i << 2);
    let d = dst + (wide ? i << 1 : i);
    let r = rnd + i * rBytes;
    if (stochastic && take == 16) {
      if (group == 0) {
        group = min<usize>((n - i) >> 4, 8);
        subnormals = anyBelow(s, group, normalBits);
      }
      group--;
    }
    if (take < 16) {
      subnormals = true;
      memory.fill((p + TAIL_AT), 0, 128);
      memory.copy((p + TAIL_AT) + (lead << 2), s, take << 2);
      if (stochastic && !seeded) memory.copy((p + TAIL_AT + 64), r, take * rBytes);
      s = (p + TAIL_AT);
      d = (p + TAIL_AT + 128);
      r = (p + TAIL_AT + 64);
    }
    const x0 = v128.load(s, 0);
    const x1 = v128.load(s, 16);
    const x2 = v128.load(s, 32);
    const x3 = v128.load(s, 48);
    const a0 = v128.and(x0, k(F_ABS));
    const a1 = v128.and(x1, k(F_ABS));
    const a2 = v128.and(x2, k(F_ABS));
    const a3 = v128.and(x3, k(F_ABS));
    let m0 = i32x4.splat(0);
    let m1 = m0;
    let m2 = m0;
    let m3 = m0;
    // NearestTiesToEven by the exponent count: magnitudes computed in i16 lanes.
    const nearest = !stochastic && !noZero && !directed && !carry;
    if (stochastic) {
      // Seeded: the block's stream words (src/random.ts randomR), one vector of them for bytes, two for halves.
      let h0 = i32x4.splat(0);
      let h1 = h0;
      if (seeded) {
        const words = i32x4.add(i32x4.splat(index >> <u32>fields), laneOffsets());
        h0 = randomBits32x4(words, key0, key1, rngMul1(), rngMul2());
        if (fields == 1) h1 = randomBits32x4(i32x4.add(words, k(F_FOUR)), key0, key1, rngMul1(), rngMul2());
      }
      if (subnormals) {
        m0 = stochasticMagnitude(x0, blockRandom(0, seeded, fields, h0, h1, kind, r, toTop, oneAt), true, wide, stageC, srRebias, fractionMask, cBit, clamp, up, scale, srScale2, yCap, subUp);
        m1 = stochasticMagnitude(x1, blockRandom(1, seeded, fields, h0, h1, kind, r, toTop, oneAt), true, wide, stageC, srRebias, fractionMask, cBit, clamp, up, scale, srScale2, yCap, subUp);
        m2 = stochasticMagnitude(x2, blockRandom(2, seeded, fields, h0, h1, kind, r, toTop, oneAt), true, wide, stageC, srRebias, fractionMask, cBit, clamp, up, scale, srScale2, yCap, subUp);
        m3 = stochasticMagnitude(x3, blockRandom(3, seeded, fields, h0, h1, kind, r, toTop, oneAt), true, wide, stageC, srRebias, fractionMask, cBit, clamp, up, scale, srScale2, yCap, subUp);
      } else {
        m0 = stochasticMagnitude(x0, blockRandom(0, seeded, fields, h0, h1, kind, r, toTop, oneAt), false, wide, stageC, srRebias, fractionMask, cBit, clamp, up, scale, srScale2, yCap, subUp);
        m1 = stochasticMagnitude(x1, blockRandom(1, seeded, fields, h0, h1, kind, r, toTop, oneAt), false, wide, stageC, srRebias, fractionMask, cBit, clamp, up, scale, srScale2, yCap, subUp);
        m2 = stochasticMagnitude(x2, blockRandom(2, seeded, fields, h0, h1, kind, r, toTop, oneAt), false, wide, stageC, srRebias, fractionMask, cBit, clamp, up, scale, srScale2, yCap, subUp);
        m3 = stochasticMagnitude(x3, blockRandom(3, seeded, fields, h0, h1, kind, r, toTop, oneAt), false, wide, stageC, srRebias, fractionMask, cBit, clamp, up, scale, srScale2, yCap, subUp);
      }
    } else if (noZero) {
      m0 = noZeroCodes(p, x0, bit, normalBits, limit);
      m1 = noZeroCodes(p, x1, bit, normalBits, limit);
      m2 = noZeroCodes(p, x2, bit, normalBits, limit);
      m3 = noZeroCodes(p, x3, bit, normalBits, limit);
    } else if (directed) {
      m0 = directedMagnitude(p, x0, shift, rebias, scale1, scale2, normalBits, limit, limitNeg);
      m1 = directedMagnitude(p, x1, shift, rebias, scale1, scale2, normalBits, limit, limitNeg);
      m2 = directedMagnitude(p, x2, shift, rebias, scale1, scale2, normalBits, limit, limitNeg);
      m3 = directedMagnitude(p, x3, shift, rebias, scale1, scale2, normalBits, limit, limitNeg);
    }
    // Codes are ≤ LIMIT < 2^K, so the unsigned narrows are exact; the signed narrows keep the sign of x (and the
    // all-ones masks).
    let m01 = i16x8.narrow_i32x4_u(m0, m1);
    let m23 = i16x8.narrow_i32x4_u(m2, m3);
    if (nearest) {
      m01 = nearestEight(p, a0, a1, !wide, shift);
      m23 = nearestEight(p, a2, a3, !wide, shift);
    } else if (carry) {
      m01 = carryEight(p, a0, a1, !wide, wide ? shift : down, bit, limit16);
      m23 = carryEight(p, a2, a3, !wide, wide ? shift : down, bit, limit16);
    }
    const s01 = i16x8.narrow_i32x4_s(x0, x1);
    const s23 = i16x8.narrow_i32x4_s(x2, x3);
    // ±∞ and NaN inputs are rare: their codes are patched only in blocks that hold one (a predictable branch).
    const anySpecial = v128.any_true(specialMask(i32x4.max_s(i32x4.max_s(a0, a1), i32x4.max_s(a2, a3))));
    if (wide) {
      const zero = i32x4.splat(0);
      const neg01 = i16x8.lt_s(s01, zero);
      const neg23 = i16x8.lt_s(s23, zero);
      // noZero lanes hold their codes already (negative ones the below-MinFinite code).
      let c01 = m01;
      let c23 = m23;
      if (plainSign) {
        c01 = v128.or(m01, v128.and(neg01, signBit));
        c23 = v128.or(m23, v128.and(neg23, signBit));
      } else if (!noZero) {
        c01 = fastCodes(p, m01, neg01, true);
        c23 = fastCodes(p, m23, neg23, true);
      }
      if (anySpecial) {
        c01 = fastSpecials(p, c01, neg01, specials8(x0, x1, false), specials8(x0, x1, true), keepPayload ? fastPayload(x0, x1, shift) : zero, keepPayload);
        c23 = fastSpecials(p, c23, neg23, specials8(x2, x3, false), specials8(x2, x3, true), keepPayload ? fastPayload(x2, x3, shift) : zero, keepPayload);
      }
      v128.store(d, c01, 0);
      v128.store(d, c23, 16);
    } else {
      const neg = i8x16.lt_s(i8x16.narrow_i16x8_s(s01, s23), i32x4.splat(0));
      let m = i8x16.narrow_i16x8_u(m01, m23);
      if (nearest) m = i8x16.min_u(m, c(p, Slot.narrowLimit));
      let codes = m;
      if (plainSign) codes = v128.or(m, v128.and(neg, signBit));
      else if (!noZero) codes = fastCodes(p, m, neg, false);
      if (anySpecial) {
        const inf = i8x16.narrow_i16x8_s(specials8(x0, x1, false), specials8(x2, x3, false));
        const nan = i8x16.narrow_i16x8_s(specials8(x0, x1, true), specials8(x2, x3, true));
        codes = fastSpecials(p, codes, neg, inf, nan, neg, false);
      }
      v128.store(d, codes);
    }
    if (take < 16) memory.copy(dst + (wide ? i << 1 : i), (p + TAIL_AT + 128) + (wide ? lead << 1 : lead), wide ? take << 1 : take);
    i += take;
    index += 16;
    lead = 0;
  }
}
