// The element passes of ggml's reference block quantizers (quantize_row_q8_0_ref; best_index_mxfp4 under
// quantize_row_mxfp4_ref and quantize_row_nvfp4_ref) after each block's scale is chosen (by the host, or for NVFP4 by
// ue4m3Scales here): src/io/gguf/encode.ts runs the same steps in TypeScript, and the two agree bit for bit. Inputs
// are finite (the host checks them).

/** roundf(fl32(x · id)) of four lanes as i32 (half away from zero), 0 where the product is not finite. */
// @ts-ignore: decorator
@inline
function q8Lanes(x: v128, id: v128): v128 {
  const v = f32x4.mul(x, id);
  const a = f32x4.abs(v);
  const t = f32x4.trunc(a);
  // a − t is exact (the fraction of a), so the half-way test is exact too.
  const r = f32x4.add(t, v128.and(f32x4.ge(f32x4.sub(a, t), f32x4.splat(0.5)), f32x4.splat(1)));
  const n = v128.and(i32x4.trunc_sat_f32x4_s(r), f32x4.lt(a, f32x4.splat(Infinity)));
  return v128.bitselect(i32x4.neg(n), n, f32x4.lt(v, f32x4.splat(0)));
}

/** Sixteen int8 of the float32 at p. */
// @ts-ignore: decorator
@inline
function q8x16(p: usize, id: v128): v128 {
  const q01 = i16x8.narrow_i32x4_s(q8Lanes(v128.load(p), id), q8Lanes(v128.load(p, 16), id));
  const q23 = i16x8.narrow_i32x4_s(q8Lanes(v128.load(p, 32), id), q8Lanes(v128.load(p, 48), id));
  return i8x16.narrow_i16x8_s(q01, q23);
}

/**
 * Q8_0: for block b of 32 float32 at src, the int8 qs[j] = roundf(fl32(x · ids[b])) (half away from zero; 0 where
 * the product is not finite: ids[b] = ∞) at out + 34·b + 2 + j.
 */
export function q8Elements(src: usize, blocks: i32, ids: usize, out: usize): void {
  for (let b = 0; b < blocks; b++) {
    const id = f32x4.splat(load<f32>(ids + (<usize>b << 2)));
    const x = src + (<usize>b << 7);
    const y = out + <usize>b * 34 + 2;
    v128.store(y, q8x16(x, id));
    v128.store(y, q8x16(x + 64, id), 16);
  }
}

/**
 * ggml_fp32_to_ue4m3(fl32(amax[i] / divisor)) for n float32 at amax, one byte each at out (NVFP4's sub-block scales,
 * divisor 6): in float32 as ggml computes it — the top kept mantissa bit rounded half up from the next one,
 * saturating at 0x7E (448); below E4M3's normal range, x · 512 + 0.5 truncated (at most 7); 0 for x ≤ 0.
 */
export function ue4m3Scales(amax: usize, n: i32, divisor: f32, out: usize): void {
  for (let i = 0; i < n; i++) {
    const x = load<f32>(amax + (<usize>i << 2)) / divisor;
    let code: u32 = 0;
    if (x > 0) {
      const y = min<f32>(x, 448);
      const bits = reinterpret<u32>(y);
      let e = <i32>(bits >> 23) - 120;
      if (e <= 0) code = min<u32>(7, <u32>(y * 512 + 0.5));
      else {
        let m = ((bits >> 20) & 7) + ((bits >> 19) & 1);
        if (m > 7) {
          m = 0;
          e++;
        }
        code = e >= 15 ? 0x7e : (<u32>e << 3) | m;
      }
    }
    store<u8>(out + <usize>i, code);
  }
}

/** ggml's kvalues_mxfp4 as int8 (the doubled E2M1 values; code 8, E2M1 −0, is +0); codes 0…7 are the magnitudes. */
const KVALUES = memory.data<i8>([0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12], 16);

/**
 * E2M1 codes 0…15 of four float32 lanes: the first nearest of the kvalues 0, ±1, ±2, ±3, ±4, ±6, ±8, ±12 times d.
 * ggml compares fl32(|kvalue·d − x|) over the 16 kvalues in order and keeps the first smallest; for x ≥ 0 the
 * negative kvalues (and −0, after +0) are never strictly nearer than 0, nor for x < 0 the positive ones: so the
 * magnitudes against |x| (fl32 rounding is odd), then the sign code where x < 0 and the magnitude is not 0. pmin is
 * the strict-less selection itself (errors are never NaN). k1…k7 are kvalue·d for the magnitude codes 1…7 (at most
 * 4 significant bits times d's, a power of two or an E4M3 value halved: exact, or ∞), splatted once per sub-block.
 */
// @ts-ignore: decorator
@inline
function nearestCodes(x: v128, k1: v128, k2: v128, k3: v128, k4: v128, k5: v128, k6: v128, k7: v128): v128 {
  const a = f32x4.abs(x);
  let best = a;
  let index = i32x4.splat(0);
  let e = f32x4.abs(f32x4.sub(k1, a));
  index = v128.bitselect(i32x4.splat(1), index, f32x4.lt(e, best));
  best = f32x4.pmin(best, e);
  e = f32x4.abs(f32x4.sub(k2, a));
  index = v128.bitselect(i32x4.splat(2), index, f32x4.lt(e, best));
  best = f32x4.pmin(best, e);
  e = f32x4.abs(f32x4.sub(k3, a));
  index = v128.bitselect(i32x4.splat(3), index, f32x4.lt(e, best));
  best = f32x4.pmin(best, e);
  e = f32x4.abs(f32x4.sub(k4, a));
  index = v128.bitselect(i32x4.splat(4), index, f32x4.lt(e, best));
  best = f32x4.pmin(best, e);
  e = f32x4.abs(f32x4.sub(k5, a));
  index = v128.bitselect(i32x4.splat(5), index, f32x4.lt(e, best));
  best = f32x4.pmin(best, e);
  e = f32x4.abs(f32x4.sub(k6, a));
  index = v128.bitselect(i32x4.splat(6), index, f32x4.lt(e, best));
  best = f32x4.pmin(best, e);
  e = f32x4.abs(f32x4.sub(k7, a));
  index = v128.bitselect(i32x4.splat(7), index, f32x4.lt(e, best));
  const negative = v128.and(f32x4.lt(x, f32x4.splat(0)), i32x4.gt_s(index, i32x4.splat(0)));
  return v128.or(index, v128.and(negative, i32x4.splat(8)));
}

/** 16 codes of the float32 at p (one i8x16) under half-scale d. */
// @ts-ignore: decorator
@inline
function nearest16(p: usize, d: f32): v128 {
  // kvalue·d in float32, as ggml's product (scalar and lane products round alike).
  const k1 = f32x4.splat(d), k2 = f32x4.splat(2 * d), k3 = f32x4.splat(3 * d), k4 = f32x4.splat(4 * d);
  const k5 = f32x4.splat(6 * d), k6 = f32x4.splat(8 * d), k7 = f32x4.splat(12 * d);
  const c0 = nearestCodes(v128.load(p), k1, k2, k3, k4, k5, k6, k7);
  const c1 = nearestCodes(v128.load(p, 16), k1, k2, k3, k4, k5, k6, k7);
  const c2 = nearestCodes(v128.load(p, 32), k1, k2, k3, k4, k5, k6, k7);
  const c3 = nearestCodes(v128.load(p, 48), k1, k2, k3, k4, k5, k6, k7);
  return i8x16.narrow_i16x8_s(i16x8.narrow_i32x4_s(c0, c1), i16x8.narrow_i32x4_s(c2, c3));
}

/** Where sub-block s of a GGUF MXFP4/NVFP4 run keeps its width/2 nibble bytes (see e2m1Nearest). */
// @ts-ignore: decorator
@inline
function nibblesAt(out: usize, s: i32, width: i32, per: i32, stride: i32, head: i32): usize {
  return out + <usize>(s / per) * <usize>stride + <usize>head + <usize>(s % per) * <usize>(width >> 1);
}

/**
 * Stores the codes of one sub-block as ggml packs them (element j in the low nibble of byte j, element j + width/2 in
 * the high one): width 32 from c0 (elements 0…15) and c1 (16…31), width 16 from c0 alone.
 */
// @ts-ignore: decorator
@inline
function storeNibbles(y: usize, c0: v128, c1: v128, width: i32): void {
  if (width == 32) v128.store(y, v128.or(c0, i8x16.shl(c1, 4)));
  else v128.store64_lane(y, v128.or(c0, i8x16.shl(i8x16.shuffle(c0, c0, 8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15), 4)), 0);
}

/**
 * MXFP4 (width 32) and NVFP4 (width 16) element nibbles: sub-block s of `width` float32 at src, half-scale d[s],
 * packed as ggml does into width/2 bytes at out + ⌊s / per⌋·stride + head + (s mod per)·width/2 (MXFP4: per 1,
 * stride 17, head 1; NVFP4: 4, 36, 4).
 */
export function e2m1Nearest(src: usize, subBlocks: i32, width: i32, d: usize, out: usize, per: i32, stride: i32, head: i32): void {
  for (let s = 0; s < subBlocks; s++) {
    const x = src + ((<usize>s * <usize>width) << 2);
    const ds = load<f32>(d + (<usize>s << 2));
    const c0 = nearest16(x, ds);
    storeNibbles(nibblesAt(out, s, width, per, stride, head), c0, width == 32 ? nearest16(x + 64, ds) : c0, width);
  }
}

/**
 * The same layout from E2M1 codes 0…15 already chosen: one byte per element at src, or (`paired` ≠ 0) two per byte
 * in element order, the even element in the low nibble (gpt-oss, ModelOpt and compressed-tensors pack them so), moved
 * into ggml's halves in registers with no unpacked copy.
 */
export function e2m1Pack(src: usize, subBlocks: i32, width: i32, out: usize, per: i32, stride: i32, head: i32, paired: i32): void {
  const low = i8x16.splat(15);
  for (let s = 0; s < subBlocks; s++) {
    let c0: v128;
    let c1: v128;
    if (paired) {
      const x = src + <usize>s * <usize>(width >> 1);
      const b = width == 32 ? v128.load(x) : v128.load64_zero(x);
      const even = v128.and(b, low);
      const odd = i8x16.shr_u(b, 4);
      c0 = i8x16.shuffle(even, odd, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      c1 = i8x16.shuffle(even, odd, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    } else {
      const x = src + <usize>s * <usize>width;
      c0 = v128.load(x);
      c1 = width == 32 ? v128.load(x, 16) : c0;
    }
    storeNibbles(nibblesAt(out, s, width, per, stride, head), c0, c1, width);
  }
}


/** Sixteen int8 lanes times d, as float32 at dst (64 bytes): products of ≤ 8-bit integers and d are exact or ∞. */
// @ts-ignore: decorator
@inline
function storeTimes(dst: usize, q: v128, d: v128): void {
  const lo = i16x8.extend_low_i8x16_s(q);
  const hi = i16x8.extend_high_i8x16_s(q);
  v128.store(dst, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(lo)), d));
  v128.store(dst, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(lo)), d), 16);
  v128.store(dst, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(hi)), d), 32);
  v128.store(dst, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(hi)), d), 48);
}

/**
 * Decodes MXFP4 (width 32) and NVFP4 (width 16) blocks laid out as e2m1Nearest writes them: sub-block s's scale byte
 * at ⌊s / per⌋·stride + (s mod per) reads its half-scale d from `halfScales` (256 float32), and element j of the
 * sub-block is kvalue(nibble) · d, as ggml's dequantize_row_mxfp4 / _nvfp4, at dst + 4·(s·width + j).
 */
export function e2m1Decode(src: usize, subBlocks: i32, width: i32, halfScales: usize, dst: usize, per: i32, stride: i32, head: i32): void {
  const kv = v128.load(KVALUES);
  const low = i8x16.splat(15);
  for (let s = 0; s < subBlocks; s++) {
    const block = src + <usize>(s / per) * <usize>stride;
    const d = f32x4.splat(load<f32>(halfScales + (<usize>load<u8>(block + <usize>(s % per)) << 2)));
    const q = nibblesAt(src, s, width, per, stride, head);
    const y = dst + ((<usize>s * <usize>width) << 2);
    if (width == 32) {
      const b = v128.load(q);
      storeTimes(y, i8x16.swizzle(kv, v128.and(b, low)), d);
      storeTimes(y + 64, i8x16.swizzle(kv, i8x16.shr_u(b, 4)), d);
    } else {
      const b = v128.load64_zero(q);
      const codes = i8x16.shuffle(v128.and(b, low), i8x16.shr_u(b, 4), 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
      storeTimes(y, i8x16.swizzle(kv, codes), d);
    }
  }
}

/** Q8_0 blocks {f16 d; int8 qs[32]} at src: qs[j] · d[b] (the host's float32 d, finite) at dst + 4·(32·b + j). */
export function q8Decode(src: usize, blocks: i32, d: usize, dst: usize): void {
  for (let b = 0; b < blocks; b++) {
    const ds = f32x4.splat(load<f32>(d + (<usize>b << 2)));
    const q = src + <usize>b * 34 + 2;
    const y = dst + (<usize>b << 7);
    storeTimes(y, v128.load(q), ds);
    storeTimes(y + 64, v128.load(q, 16), ds);
  }
}
