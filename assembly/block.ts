// Quantization of whole blocks into block-scaled formats (elements rounded to nearest even and saturated), for two
// scale rules chosen by the host from the scheme's parameters:
// - pow2 (OCP MX): a SIMD amax over the float32 bit patterns, the shared exponent from its exponent bits, then every
//   element scaled by 2^−e and rounded without branches (one float addition of 2^23 times the element's quantum,
//   taken from its exponent bits, rounds it RNE; see magnitude4);
// - ratio (NVFP4): the scale amax / (MaxFinite(element)·T) in float64 (the reference's own operations), clamped to
//   the scale format's normal range and rounded RNE to its M bits; then every element divided by S·T in float32 and
//   rounded as above where the host proved that exact (src/block/wasm.ts, divisionHolds), else its magnitude code
//   counted as the number of the block's float32 thresholds it reaches (the smallest float32 that rounds to each
//   code, computed exactly by the host per scale code).
// The sign is ORed in 16 bytes at a time (two's complement for MXINT8), 4-bit codes packed two per byte (first
// element in the low nibble). The common layouts run their own copies of the loop with constant shifts and signs (mxQuantize). Any
// block size: the elements after the last group of 16 (a short block, or the call's trailing partial block) go
// through a zero-padded group in the parameter block (zeros never raise amax).

// A per-call parameter block written by the host (src/block/wasm.ts), so instances sharing one memory each use their
// own: splatted vector constants, then scalar words. Vectors: |x| mask, the element's MaxFinite code in every byte, the
// exponent mask, (23 − M) << 23, f32 bits of 2^(minQ+23), the code's sign bit in every byte, i16 lanes of 0x0f.
const ABS = 0, MAXB = 16, EXPMASK = 32, STEP = 48, CBITS = 64, SIGN = 80, NIBBLE = 96;
// Scalars: block size B, emax of the element, the fixed scale exponent (≥ −1000 replaces the amax rule), the clamp
// [minExp, maxExp] of e, the scale code of e = 0 (ratio: of the scale's MinNormal) and the NaN scale code, element
// M (P − 1), the layout flags (packed 4-bit pairs, two's complement MXINT8, −0 kept) and the ratio rule flag.
const S_B = 112, S_EMAX = 116, S_FIXED = 120, S_MINEXP = 124, S_MAXEXP = 128, S_CODE0 = 132, S_NAN = 136, S_M = 140;
const S_PACKED = 144, S_TWOS = 148, S_NEGZERO = 152, S_RATIO = 156;
// Ratio rule (f64): MaxFinite(element)·T (exact), the scale's MinNormal and MaxFinite; i32: 52 − M of the scale, and
// whether the elements are divided by S·T (the host checked that one float32 division rounds no quotient across a
// midpoint of the element grid) rather than counted against thresholds.
const R_DENOM = 160, R_MIN = 168, R_MAX = 176, R_SHIFT = 184, R_DIVIDE = 188;
// A zero-padded group of 16 floats and its 16 code bytes (the elements after a block's last full group).
const PAD_IN = 192, PAD_OUT = 256;
// Ratio rule: per scale code from S_CODE0 up, 8 float32 words: 7 thresholds (+∞ where the element has fewer), S·T.
const THRESHOLDS = 272;
const PARAMS_BYTES: usize = 272;

/** Bytes of an mxQuantize parameter block before its threshold table (16-byte aligned). */
export function mxParamsBytes(): usize {
  return PARAMS_BYTES;
}

/** Magnitude codes of four lanes (0…127 in i32 lanes); the sign is applied to 16 bytes at once by quant16. */
// @ts-ignore: decorator
@inline function magnitude4(x: v128, scale: v128, shift: i32, kAbs: v128, kExp: v128, kStep: v128, kC: v128, t0: v128, t1: v128, t2: v128, t3: v128, t4: v128, t5: v128, t6: v128, ratio: bool, divide: bool): v128 {
  if (ratio && !divide) {
    // The magnitude code is the number of thresholds |x| reaches (thresholds ascend; +∞ is never reached).
    const y = v128.and(x, kAbs);
    let n = f32x4.ge(y, t0);
    n = i32x4.add(n, f32x4.ge(y, t1));
    n = i32x4.add(n, f32x4.ge(y, t2));
    n = i32x4.add(n, f32x4.ge(y, t3));
    n = i32x4.add(n, f32x4.ge(y, t4));
    n = i32x4.add(n, f32x4.ge(y, t5));
    n = i32x4.add(n, f32x4.ge(y, t6));
    return i32x4.sub(i32x4.splat(0), n);
  }
  // y is a finite or +∞ non-negative float32 (blocks holding NaN/∞ never get here), so signed integer compares
  // order its bits like the values (one instruction each on x86, where unsigned compares take four). It is not
  // clamped to MaxFinite here: the count below grows with y past it (where C's exponent sum reaches +∞ or wraps
  // negative and C_min takes over, it is still above MaxFinite's code, the host checks), so quant16's byte minimum
  // with MaxFinite's code saturates all 16 lanes at once.
  // Scaled by 2^−e (exact), or the ratio rule's one correctly rounded division by S·T.
  const y = divide ? f32x4.div(v128.and(x, kAbs), scale) : f32x4.mul(v128.and(x, kAbs), scale);
  // One float addition rounds y to its quantum q (RNE): q = 2^(E − M) in y's binade E, 2^minQ below MinNormal.
  // C = 2^23·q (float32 bits: max(exponent bits of y + (23 − M)·2^23, those of C_min = 2^(minQ + 23))), so y + C
  // lies in [C, 2C) whose ulp is q, and bits(y + C) − bits(C) = RNE(y / q) (2^(M+1) when it rounds up into the
  // next binade). The code is that count plus 2^M per binade above MinNormal's: (bits(C) − bits(C_min)) >> (23 − M).
  const c = i32x4.max_s(i32x4.add(v128.and(y, kExp), kStep), kC);
  return i32x4.add(i32x4.sub(f32x4.add(y, c), c), i32x4.shr_u(i32x4.sub(c, kC), shift));
}

/**
 * Quantizes n floats at src (blocks of B under the parameter block at p; the last block may be shorter) into one
 * scale code per block at scales (the NaN code for a block holding NaN or ±∞, whose elements are then 0) and the
 * elements at elems (packed: ⌈n/2⌉ bytes, B even; else n).
 */
export function mxQuantize(p: usize, src: usize, n: i32, scales: usize, elems: usize): void {
  const M = load<i32>(p + S_M);
  const packed = load<i32>(p + S_PACKED) != 0;
  const twos = load<i32>(p + S_TWOS) != 0;
  const negZero = load<i32>(p + S_NEGZERO) != 0;
  const ratio = load<i32>(p + S_RATIO) != 0;
  // The element layouts of the OCP and NVFP4 schemes get their own copies of the loop, with M, packing and signs as
  // constants (immediate shifts, no per-vector branches: about twice as fast); any other layout runs a generic copy.
  if (ratio) {
    if (M == 1 && packed && negZero) {
      if (load<i32>(p + R_DIVIDE) != 0) quantizeBlocks(p, src, n, scales, elems, 1, true, false, true, true, true);
      else quantizeBlocks(p, src, n, scales, elems, 1, true, false, true, true, false);
    } else quantizeBlocks(p, src, n, scales, elems, M, packed, false, negZero, true, false);
  } else if (twos) {
    if (M == 6 && !packed) quantizeBlocks(p, src, n, scales, elems, 6, false, true, false, false, false);
    else quantizeBlocks(p, src, n, scales, elems, M, packed, twos, negZero, false, false);
  } else if (M == 1 && packed) {
    if (negZero) quantizeBlocks(p, src, n, scales, elems, 1, true, false, true, false, false);
    else quantizeBlocks(p, src, n, scales, elems, 1, true, false, false, false, false);
  } else if (M == 3 && !packed) {
    if (negZero) quantizeBlocks(p, src, n, scales, elems, 3, false, false, true, false, false);
    else quantizeBlocks(p, src, n, scales, elems, 3, false, false, false, false, false);
  } else if (M == 2 && !packed) {
    if (negZero) quantizeBlocks(p, src, n, scales, elems, 2, false, false, true, false, false);
    else quantizeBlocks(p, src, n, scales, elems, 2, false, false, false, false, false);
  } else {
    quantizeBlocks(p, src, n, scales, elems, M, packed, twos, negZero, false, false);
  }
}

/** max(acc, |16 floats at q|) as unsigned bit patterns, four vectors folded into one. */
// @ts-ignore: decorator
@inline function amax16(acc: v128, q: usize, kAbs: v128): v128 {
  const a = i32x4.max_u(v128.and(v128.load(q), kAbs), v128.and(v128.load(q, 16), kAbs));
  const b = i32x4.max_u(v128.and(v128.load(q, 32), kAbs), v128.and(v128.load(q, 48), kAbs));
  return i32x4.max_u(acc, i32x4.max_u(a, b));
}

// @ts-ignore: decorator
@inline function quantizeBlocks(p: usize, src: usize, n: i32, scales: usize, elems: usize, M: i32, packed: bool, twos: bool, negZero: bool, ratio: bool, divide: bool): void {
  const kAbs = v128.load(p + ABS);
  const kMax = v128.load(p + MAXB);
  const kExp = v128.load(p + EXPMASK);
  const kStep = v128.load(p + STEP);
  const kC = v128.load(p + CBITS);
  const kSign = v128.load(p + SIGN);
  const kNib = v128.load(p + NIBBLE);
  const B = load<i32>(p + S_B);
  const emax = load<i32>(p + S_EMAX);
  const fixedExp = load<i32>(p + S_FIXED);
  const minExp = load<i32>(p + S_MINEXP);
  const maxExp = load<i32>(p + S_MAXEXP);
  const code0 = load<i32>(p + S_CODE0);
  const nanCode = load<i32>(p + S_NAN);
  const denom = load<f64>(p + R_DENOM);
  const minScale = load<f64>(p + R_MIN);
  const maxScale = load<f64>(p + R_MAX);
  const drop = <u64>load<i32>(p + R_SHIFT);
  const shift = 23 - M;
  const pad = p + PAD_IN;
  const padOut = p + PAD_OUT;
  const blocks = (n + B - 1) / B;
  for (let k = 0; k < blocks; k++) {
    const at = src + (<usize>k * <usize>B << 2);
    const out = elems + (packed ? <usize>k * <usize>(B >> 1) : <usize>k * <usize>B);
    const L = min(B, n - k * B);
    const full = L & ~15;
    const rem = L & 15;
    let m: v128;
    // The OCP and NVFP4 block sizes, unrolled.
    const short = L == B && (B == 16 || B == 32);
    if (short) {
      m = amax16(i32x4.splat(0), at, kAbs);
      if (B == 32) m = amax16(m, at + 64, kAbs);
    } else {
      m = i32x4.splat(0);
      for (let g = 0; g < full; g += 16) m = amax16(m, at + (<usize>g << 2), kAbs);
      if (rem) {
        memory.copy(pad, at + (<usize>full << 2), <usize>rem << 2);
        memory.fill(pad + (<usize>rem << 2), 0, <usize>(16 - rem) << 2);
        m = amax16(m, pad, kAbs);
      }
    }
    // Horizontal maximum by two shuffles (cheaper than four lane extracts and scalar compares).
    m = i32x4.max_u(m, i8x16.shuffle(m, m, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
    m = i32x4.max_u(m, i8x16.shuffle(m, m, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3));
    const amax = <u32>i32x4.extract_lane(m, 0);
    if (amax > 0x7f7fffff) {
      store<u8>(scales + <usize>k, nanCode);
      memory.fill(out, 0, packed ? <usize>(L + 1) >> 1 : <usize>L);
      continue;
    }
    let inv = i32x4.splat(0);
    let t: usize = 0;
    if (ratio) {
      // The reference's float64 quotient, clamped to [MinNormal, MaxFinite] of the scale, rounded RNE to its M bits
      // by an integer addition on the float64 bits (a carry moves into the next binade, as it should).
      const r = min(maxScale, max(minScale, <f64>reinterpret<f32>(amax) / denom));
      const bits = reinterpret<u64>(r);
      const rounded = (bits + ((<u64>1 << (drop - 1)) - 1) + ((bits >> drop) & 1)) >> drop;
      const code = <i32>(rounded - (reinterpret<u64>(minScale) >> drop));
      store<u8>(scales + <usize>k, code0 + code);
      t = p + THRESHOLDS + (<usize>code << 5);
      if (divide) inv = v128.load32_splat(t, 28);
    } else {
      let e = fixedExp >= -1000 ? fixedExp : <i32>(amax >> 23) - 127 - emax;
      e = min(maxExp, max(minExp, e));
      store<u8>(scales + <usize>k, code0 + e);
      // 2^−e as a float32 (2^−127 … 2^127; 2^−127 itself is the subnormal 0x00400000).
      inv = f32x4.splat(e == 127 ? reinterpret<f32>(0x00400000) : reinterpret<f32>((127 - e) << 23));
    }
    if (short) {
      quant16(at, out, inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kNib, t, packed, twos, negZero, ratio, divide);
      if (B == 32) quant16(at + 64, out + (packed ? 8 : 16), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kNib, t, packed, twos, negZero, ratio, divide);
    } else {
      for (let g = 0; g < full; g += 16) {
        quant16(at + (<usize>g << 2), out + (packed ? <usize>g >> 1 : <usize>g), inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kNib, t, packed, twos, negZero, ratio, divide);
      }
      if (rem) {
        // Padding zeros give code 0 (+0), so the odd element's high nibble is 0 as the reference leaves it.
        quant16(pad, padOut, inv, shift, kAbs, kMax, kExp, kStep, kC, kSign, kNib, t, packed, twos, negZero, ratio, divide);
        memory.copy(out + (packed ? <usize>full >> 1 : <usize>full), padOut, packed ? <usize>(rem + 1) >> 1 : <usize>rem);
      }
    }
  }
}

/** Quantizes the 16 floats at q (scaled by inv, or against the thresholds at t) into 16 codes (8 bytes when packed) at out. */
// @ts-ignore: decorator
@inline function quant16(q: usize, out: usize, inv: v128, shift: i32, kAbs: v128, kMax: v128, kExp: v128, kStep: v128, kC: v128, kSign: v128, kNib: v128, t: usize, packed: bool, twos: bool, negZero: bool, ratio: bool, divide: bool): void {
  // The ratio rule's thresholds, loaded once for the 16 elements (unused, and never loaded, by the other copies).
  const z = i32x4.splat(0);
  const th = ratio && !divide;
  const t0 = th ? v128.load32_splat(t) : z, t1 = th ? v128.load32_splat(t, 4) : z, t2 = th ? v128.load32_splat(t, 8) : z;
  const t3 = th ? v128.load32_splat(t, 12) : z, t4 = th ? v128.load32_splat(t, 16) : z, t5 = th ? v128.load32_splat(t, 20) : z;
  const t6 = th ? v128.load32_splat(t, 24) : z;
  const x0 = v128.load(q), x1 = v128.load(q, 16), x2 = v128.load(q, 32), x3 = v128.load(q, 48);
  const c0 = magnitude4(x0, inv, shift, kAbs, kExp, kStep, kC, t0, t1, t2, t3, t4, t5, t6, ratio, divide);
  const c1 = magnitude4(x1, inv, shift, kAbs, kExp, kStep, kC, t0, t1, t2, t3, t4, t5, t6, ratio, divide);
  const c2 = magnitude4(x2, inv, shift, kAbs, kExp, kStep, kC, t0, t1, t2, t3, t4, t5, t6, ratio, divide);
  const c3 = magnitude4(x3, inv, shift, kAbs, kExp, kStep, kC, t0, t1, t2, t3, t4, t5, t6, ratio, divide);
  // Counts are non-negative i32 lanes: the signed then unsigned saturating narrows keep 0…255 and saturate the rest
  // to 255, so the minimum with MaxFinite's code (pow2; ratio counts stop there) gives the saturated magnitude.
  let mags = i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_s(c0, c1), i16x8.narrow_i32x4_s(c2, c3));
  if (!th) mags = i8x16.min_u(mags, kMax);
  // The signs of 16 lanes at once: signed narrows of the float32 bits keep each lane's sign (negative bit patterns
  // saturate to −128, non-negative ones stay ≥ 0), so one byte compare gives the negative-lane mask.
  const negative = i8x16.lt_s(i8x16.narrow_i16x8_s(i16x8.narrow_i32x4_s(x0, x1), i16x8.narrow_i32x4_s(x2, x3)), z);
  let bytes: v128;
  if (twos) bytes = v128.bitselect(i8x16.sub(z, mags), mags, negative);
  else {
    let sign = v128.and(negative, kSign);
    if (!negZero) sign = v128.andnot(sign, i8x16.eq(mags, z));
    bytes = v128.or(mags, sign);
  }
  if (packed) {
    // As i16 lanes, lane j = code(2j) + 256·code(2j+1) with codes < 16: (lane & 15) | (lane >> 4) is the byte
    // code(2j) | code(2j+1) << 4 (a 16-bit shift: no byte shifts on x86).
    const pairs = v128.or(v128.and(bytes, kNib), i16x8.shr_u(bytes, 4));
    store<u64>(out, i64x2.extract_lane(i8x16.narrow_i16x8_u(pairs, pairs), 0));
  } else {
    v128.store(out, bytes);
  }
}

/** max(acc, the largest finite |x| of n floats at src) as float32 bits (NaN and ±∞ skipped): tensorScale "auto". */
export function amaxFinite(src: usize, n: i32, acc: u32): u32 {
  const kAbs = i32x4.splat(0x7fffffff);
  const kInf = i32x4.splat(0x7f800000);
  let m0 = i32x4.splat(0), m1 = i32x4.splat(0);
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const a = v128.and(v128.load(src + (<usize>i << 2)), kAbs);
    const b = v128.and(v128.load(src + (<usize>i << 2), 16), kAbs);
    // Masked to 0 from 0x7f800000 up (signed compare: the masked bits are non-negative).
    m0 = i32x4.max_s(m0, v128.and(a, i32x4.lt_s(a, kInf)));
    m1 = i32x4.max_s(m1, v128.and(b, i32x4.lt_s(b, kInf)));
  }
  const m = i32x4.max_s(m0, m1);
  let top = max(max(acc, <u32>i32x4.extract_lane(m, 0)), max(<u32>i32x4.extract_lane(m, 1), max(<u32>i32x4.extract_lane(m, 2), <u32>i32x4.extract_lane(m, 3))));
  for (; i < n; i++) {
    const a = load<u32>(src + (<usize>i << 2)) & 0x7fffffff;
    if (a < 0x7f800000 && a > top) top = a;
  }
  return top;
}
