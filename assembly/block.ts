// OCP MX quantization of whole blocks (power-of-two scales, round to nearest even, saturation): per block a SIMD
// amax over the float32 bit patterns, the shared exponent from its exponent bits, then every element scaled by
// 2^−e and rounded into the element format without branches (one float addition of 2^23 times the element's
// quantum, taken from its exponent bits, rounds it RNE; see quant4), the sign ORed in (two's complement for
// MXINT8), 4-bit codes packed two per byte (first element in the low nibble). The common layouts run their own
// copies of the loop with constant shifts and signs (mxQuantize).
// Blocks of B = 16·j elements; the host runs a trailing partial block through the reference.

// Per-call vector constants (splatted by the host into this table, loaded into locals before the loops).
const K = memory.data(16 * 10, 16);
const ABS = 0, MAXB = 16, EXPMASK = 48, STEP = 64, CBITS = 80, SIGN = 112, LOWBYTE = 128, NIBBLE = 144;

/** Fills the constant table: element M (P − 1), bias, f32 bits of MaxFinite, of MinNormal, of 2^(minQ+23), sign bit (bias is implied by MinNormal). */
export function mxParams(M: i32, bias: i32, maxBits: i32, minNormalBits: i32, cBits: i32, signBit: i32): void {
  const shift = 23 - M;
  v128.store(K + ABS, i32x4.splat(0x7fffffff));
  v128.store(K + MAXB, i32x4.splat(maxBits));
  v128.store(K + EXPMASK, i32x4.splat(0x7f800000));
  v128.store(K + STEP, i32x4.splat(shift << 23));
  v128.store(K + CBITS, i32x4.splat(cBits));
  v128.store(K + SIGN, i32x4.splat(signBit));
  v128.store(K + LOWBYTE, i32x4.splat(0xff));
  v128.store(K + NIBBLE, i16x8.splat(0x0f));
}

// @ts-ignore: decorator
@inline function quant4(x: v128, scale: v128, shift: i32, kAbs: v128, kMax: v128, kExp: v128, kStep: v128, kC: v128, kSign: v128, kByte: v128, twos: bool, negZero: bool): v128 {
  const negative = i32x4.shr_s(x, 31);
  // y is a finite or +∞ non-negative float32 (blocks holding NaN/∞ never get here), so signed integer compares
  // order its bits like the values (one instruction each on x86, where unsigned compares take four).
  const y = i32x4.min_s(f32x4.mul(v128.and(x, kAbs), scale), kMax);
  // One float addition rounds y to its quantum q (RNE): q = 2^(E − M) in y's binade E, 2^minQ below MinNormal.
  // C = 2^23·q (float32 bits: max(exponent bits of y + (23 − M)·2^23, those of C_min = 2^(minQ + 23))), so y + C
  // lies in [C, 2C) whose ulp is q, and bits(y + C) − bits(C) = RNE(y / q) (2^(M+1) when it rounds up into the
  // next binade). The code is that count plus 2^M per binade above MinNormal's: (bits(C) − bits(C_min)) >> (23 − M).
  const c = i32x4.max_s(i32x4.add(v128.and(y, kExp), kStep), kC);
  let mag = i32x4.add(i32x4.sub(f32x4.add(y, c), c), i32x4.shr_u(i32x4.sub(c, kC), shift));
  if (twos) return v128.and(v128.bitselect(i32x4.sub(i32x4.splat(0), mag), mag, negative), kByte);
  let sign = v128.and(negative, kSign);
  if (!negZero) sign = v128.andnot(sign, i32x4.eq(mag, i32x4.splat(0)));
  return v128.or(mag, sign);
}

/**
 * Quantizes `blocks` blocks of B floats (B a multiple of 16) at src. Scale codes go to scales (code0 + e; the
 * NaN code for a block holding NaN or ±∞, whose elements are then 0), elements to elems (packed: B/2 bytes per
 * block, else B). fixedExp ≥ −1000 replaces the amax rule; e is clamped to [minExp, maxExp].
 */
export function mxQuantize(
  src: usize, blocks: i32, B: i32, scales: usize, elems: usize,
  emax: i32, fixedExp: i32, minExp: i32, maxExp: i32, code0: i32, nanCode: i32,
  M: i32, packed: bool, twos: bool, negZero: bool,
): void {
  // The element layouts of the OCP schemes get their own copies of the loop, with M, packing and signs as constants
  // (immediate shifts, no per-vector branches: about twice as fast); any other layout runs the generic copy.
  if (twos) {
    if (M == 6 && !packed) quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, 6, false, true, false);
    else quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, M, packed, twos, negZero);
  } else if (M == 1 && packed) {
    if (negZero) quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, 1, true, false, true);
    else quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, 1, true, false, false);
  } else if (M == 3 && !packed) {
    if (negZero) quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, 3, false, false, true);
    else quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, 3, false, false, false);
  } else if (M == 2 && !packed) {
    if (negZero) quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, 2, false, false, true);
    else quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, 2, false, false, false);
  } else {
    quantizeBlocks(src, blocks, B, scales, elems, emax, fixedExp, minExp, maxExp, code0, nanCode, M, packed, twos, negZero);
  }
}

// @ts-ignore: decorator
@inline function quantizeBlocks(
  src: usize, blocks: i32, B: i32, scales: usize, elems: usize,
  emax: i32, fixedExp: i32, minExp: i32, maxExp: i32, code0: i32, nanCode: i32,
  M: i32, packed: bool, twos: bool, negZero: bool,
): void {
  const kAbs = v128.load(K + ABS);
  const kMax = v128.load(K + MAXB);
  const kExp = v128.load(K + EXPMASK);
  const kStep = v128.load(K + STEP);
  const kC = v128.load(K + CBITS);
  const kSign = v128.load(K + SIGN);
  const kLow = v128.load(K + LOWBYTE);
  const kNib = v128.load(K + NIBBLE);
  const shift = 23 - M;
  const bytesPerBlock = packed ? B >> 1 : B;
  for (let k = 0; k < blocks; k++) {
    const p = src + (<usize>k * <usize>B << 2);
    const out = elems + <usize>k * <usize>bytesPerBlock;
    let m0 = v128.and(v128.load(p), kAbs);
    let m1 = v128.and(v128.load(p, 16), kAbs);
    let m2 = v128.and(v128.load(p, 32), kAbs);
    let m3 = v128.and(v128.load(p, 48), kAbs);
    for (let g = 16; g < B; g += 16) {
      const q = p + (<usize>g << 2);
      m0 = i32x4.max_u(m0, v128.and(v128.load(q), kAbs));
      m1 = i32x4.max_u(m1, v128.and(v128.load(q, 16), kAbs));
      m2 = i32x4.max_u(m2, v128.and(v128.load(q, 32), kAbs));
      m3 = i32x4.max_u(m3, v128.and(v128.load(q, 48), kAbs));
    }
    const m = i32x4.max_u(i32x4.max_u(m0, m1), i32x4.max_u(m2, m3));
    const amax = max(max(<u32>i32x4.extract_lane(m, 0), <u32>i32x4.extract_lane(m, 1)), max(<u32>i32x4.extract_lane(m, 2), <u32>i32x4.extract_lane(m, 3)));
    if (amax > 0x7f7fffff) {
      store<u8>(scales + <usize>k, nanCode);
      memory.fill(out, 0, bytesPerBlock);
      continue;
    }
    let e = fixedExp >= -1000 ? fixedExp : <i32>(amax >> 23) - 127 - emax;
    e = min(maxExp, max(minExp, e));
    store<u8>(scales + <usize>k, code0 + e);
    // 2^−e as a float32 (2^−127 … 2^127; 2^−127 itself is the subnormal 0x00400000).
    const inv = f32x4.splat(e == 127 ? reinterpret<f32>(0x00400000) : reinterpret<f32>((127 - e) << 23));
    if (B == 32) {
      // The OCP block size, unrolled.
      quant16(p, out, inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, kNib, packed, twos, negZero);
      quant16(p + 64, out + (packed ? 8 : 16), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, kNib, packed, twos, negZero);
    } else {
      for (let g = 0; g < B; g += 16) {
        quant16(p + (<usize>g << 2), out + (packed ? <usize>g >> 1 : <usize>g), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, kNib, packed, twos, negZero);
      }
    }
  }
}

/** Quantizes the 16 floats at q (scaled by inv) into 16 codes (8 bytes when packed) at out. */
// @ts-ignore: decorator
@inline function quant16(q: usize, out: usize, inv: v128, shift: i32, kAbs: v128, kMax: v128, kExp: v128, kStep: v128, kC: v128, kSign: v128, kLow: v128, kNib: v128, packed: bool, twos: bool, negZero: bool): void {
  const c0 = quant4(v128.load(q), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, twos, negZero);
  const c1 = quant4(v128.load(q, 16), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, twos, negZero);
  const c2 = quant4(v128.load(q, 32), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, twos, negZero);
  const c3 = quant4(v128.load(q, 48), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, twos, negZero);
  // Codes are 0…255 in i32 lanes, so the (signed-input, unsigned-saturating) narrows keep them exactly.
  const bytes = i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_u(c0, c1), i16x8.narrow_i32x4_u(c2, c3));
  if (packed) {
    // As i16 lanes, lane j = code(2j) + 256·code(2j+1) with codes < 16: (lane & 15) | (lane >> 4) is the byte
    // code(2j) | code(2j+1) << 4 (a 16-bit shift: no byte shifts on x86).
    const pairs = v128.or(v128.and(bytes, kNib), i16x8.shr_u(bytes, 4));
    store<u64>(out, i64x2.extract_lane(i8x16.narrow_i16x8_u(pairs, pairs), 0));
  } else {
    v128.store(out, bytes);
  }
}
