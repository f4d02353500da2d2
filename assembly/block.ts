// OCP MX quantization of whole blocks (power-of-two scales, round to nearest even, saturation): per block a SIMD
// amax over the float32 bit patterns, the shared exponent from its exponent bits, then every element scaled by
// 2^−e and rounded into the element format without branches (one float addition of 2^23 times the element's
// quantum, taken from its exponent bits, rounds it RNE; see quant4), the sign ORed in (two's complement for
// MXINT8), 4-bit codes packed two per byte (first element in the low nibble). The common layouts run their own
// copies of the loop with constant shifts and signs (mxQuantize).
// Blocks of B = 16·j elements; the host runs a trailing partial block through the reference.

// A per-call parameter block written by the host (src/block/wasm.ts), so instances sharing one memory each use their
// own: splatted vector constants, then scalar words. Vectors: |x| mask, f32 bits of the element's MaxFinite, the
// exponent mask, (23 − M) << 23, f32 bits of 2^(minQ+23), the sign bit, 0xff, i16 lanes of 0x0f.
const ABS = 0, MAXB = 16, EXPMASK = 32, STEP = 48, CBITS = 64, SIGN = 80, LOWBYTE = 96, NIBBLE = 112;
// Scalars: block size B (a multiple of 16), emax of the element, the fixed scale exponent (≥ −1000 replaces the amax
// rule), the clamp [minExp, maxExp] of e, the scale code of e = 0 and the NaN scale code, element M (P − 1), and the
// layout flags (packed 4-bit pairs, two's complement MXINT8, −0 kept).
const S_B = 128, S_EMAX = 132, S_FIXED = 136, S_MINEXP = 140, S_MAXEXP = 144, S_CODE0 = 148, S_NAN = 152, S_M = 156;
const S_PACKED = 160, S_TWOS = 164, S_NEGZERO = 168;
const PARAMS_BYTES: usize = 176;

/** Bytes of an mxQuantize parameter block (16-byte aligned). */
export function mxParamsBytes(): usize {
  return PARAMS_BYTES;
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
 * Quantizes `blocks` blocks of B floats at src under the parameter block at p. Scale codes go to scales (code0 + e;
 * the NaN code for a block holding NaN or ±∞, whose elements are then 0), elements to elems (packed: B/2 bytes per
 * block, else B).
 */
export function mxQuantize(p: usize, src: usize, blocks: i32, scales: usize, elems: usize): void {
  const M = load<i32>(p + S_M);
  const packed = load<i32>(p + S_PACKED) != 0;
  const twos = load<i32>(p + S_TWOS) != 0;
  const negZero = load<i32>(p + S_NEGZERO) != 0;
  // The element layouts of the OCP schemes get their own copies of the loop, with M, packing and signs as constants
  // (immediate shifts, no per-vector branches: about twice as fast); any other layout runs the generic copy.
  if (twos) {
    if (M == 6 && !packed) quantizeBlocks(p, src, blocks, scales, elems, 6, false, true, false);
    else quantizeBlocks(p, src, blocks, scales, elems, M, packed, twos, negZero);
  } else if (M == 1 && packed) {
    if (negZero) quantizeBlocks(p, src, blocks, scales, elems, 1, true, false, true);
    else quantizeBlocks(p, src, blocks, scales, elems, 1, true, false, false);
  } else if (M == 3 && !packed) {
    if (negZero) quantizeBlocks(p, src, blocks, scales, elems, 3, false, false, true);
    else quantizeBlocks(p, src, blocks, scales, elems, 3, false, false, false);
  } else if (M == 2 && !packed) {
    if (negZero) quantizeBlocks(p, src, blocks, scales, elems, 2, false, false, true);
    else quantizeBlocks(p, src, blocks, scales, elems, 2, false, false, false);
  } else {
    quantizeBlocks(p, src, blocks, scales, elems, M, packed, twos, negZero);
  }
}

// @ts-ignore: decorator
@inline function quantizeBlocks(p: usize, src: usize, blocks: i32, scales: usize, elems: usize, M: i32, packed: bool, twos: bool, negZero: bool): void {
  const kAbs = v128.load(p + ABS);
  const kMax = v128.load(p + MAXB);
  const kExp = v128.load(p + EXPMASK);
  const kStep = v128.load(p + STEP);
  const kC = v128.load(p + CBITS);
  const kSign = v128.load(p + SIGN);
  const kLow = v128.load(p + LOWBYTE);
  const kNib = v128.load(p + NIBBLE);
  const B = load<i32>(p + S_B);
  const emax = load<i32>(p + S_EMAX);
  const fixedExp = load<i32>(p + S_FIXED);
  const minExp = load<i32>(p + S_MINEXP);
  const maxExp = load<i32>(p + S_MAXEXP);
  const code0 = load<i32>(p + S_CODE0);
  const nanCode = load<i32>(p + S_NAN);
  const shift = 23 - M;
  const bytesPerBlock = packed ? B >> 1 : B;
  for (let k = 0; k < blocks; k++) {
    const at = src + (<usize>k * <usize>B << 2);
    const out = elems + <usize>k * <usize>bytesPerBlock;
    let m0 = v128.and(v128.load(at), kAbs);
    let m1 = v128.and(v128.load(at, 16), kAbs);
    let m2 = v128.and(v128.load(at, 32), kAbs);
    let m3 = v128.and(v128.load(at, 48), kAbs);
    for (let g = 16; g < B; g += 16) {
      const q = at + (<usize>g << 2);
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
      quant16(at, out, inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, kNib, packed, twos, negZero);
      quant16(at + 64, out + (packed ? 8 : 16), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, kNib, packed, twos, negZero);
    } else {
      for (let g = 0; g < B; g += 16) {
        quant16(at + (<usize>g << 2), out + (packed ? <usize>g >> 1 : <usize>g), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kLow, kNib, packed, twos, negZero);
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
