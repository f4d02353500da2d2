// Decode kernels: codes → float32 bit patterns (or 16-bit codes of another format) through a per-format table that
// the host uploads into memory.
// Tables come from the exact core (decodeTable32), so no kernel knows a format; the host validates codes first.
import { select } from "./simd";

// v128 masks live in memory and are loaded before loops: V8 11.3 rebuilds v128 constants in every iteration.
const NIBBLE_MASK = memory.data<u8>([15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15], 16);
/** 0x3F in each i32 lane; its top byte is 0, which the FP6 unpack shuffle uses as a zero byte. */
const SIX_BITS32 = memory.data<u32>([0x3f, 0x3f, 0x3f, 0x3f], 16);

/**
 * dst[i] = table[src[i]]: codes C (u8, u16) through a table of D entries (u32 float32 bits, u16 binary16/bfloat16
 * bits), unrolled ×8; the generic scalar LUT measured at ~2 G/s for byte codes → float32 (docs/kernels.md).
 */
// @ts-ignore: decorator
@inline
export function gather<C, D>(src: usize, dst: usize, n: usize, table: usize): void {
  const c = sizeof<C>();
  const d = sizeof<D>();
  const cs = alignof<C>();
  const ds = alignof<D>();
  let i: usize = 0;
  for (; i + 8 <= n; i += 8) {
    const s = src + (i << cs);
    const o = dst + (i << ds);
    store<D>(o, load<D>(table + ((<usize>load<C>(s, 0)) << ds)), 0);
    store<D>(o, load<D>(table + ((<usize>load<C>(s, c)) << ds)), d);
    store<D>(o, load<D>(table + ((<usize>load<C>(s, 2 * c)) << ds)), 2 * d);
    store<D>(o, load<D>(table + ((<usize>load<C>(s, 3 * c)) << ds)), 3 * d);
    store<D>(o, load<D>(table + ((<usize>load<C>(s, 4 * c)) << ds)), 4 * d);
    store<D>(o, load<D>(table + ((<usize>load<C>(s, 5 * c)) << ds)), 5 * d);
    store<D>(o, load<D>(table + ((<usize>load<C>(s, 6 * c)) << ds)), 6 * d);
    store<D>(o, load<D>(table + ((<usize>load<C>(s, 7 * c)) << ds)), 7 * d);
  }
  for (; i < n; i++) store<D>(dst + (i << ds), load<D>(table + ((<usize>load<C>(src + (i << cs))) << ds)));
}

/** Byte codes → float32 bits through the format's table. */
export function decodeLut8(src: usize, dst: usize, n: usize, table: usize): void {
  gather<u8, u32>(src, dst, n, table);
}

/** 16-bit codes (9…16-bit formats) → float32 bits. */
export function decodeLut16(src: usize, dst: usize, n: usize, table: usize): void {
  gather<u16, u32>(src, dst, n, table);
}

/** Byte codes → 16-bit codes of another format (binary16, bfloat16) through a conversion table. */
export function decodeLut8To16(src: usize, dst: usize, n: usize, table: usize): void {
  gather<u8, u16>(src, dst, n, table);
}

/** 16-bit codes → 16-bit codes of another format through a conversion table. */
export function decodeLut16To16(src: usize, dst: usize, n: usize, table: usize): void {
  gather<u16, u16>(src, dst, n, table);
}

/**
 * 16-bit codes of binary32's K-bit prefixes (bfloat16), whose float32 bits are code << (32 − K): each code is moved
 * up by 16 − K (a vector shift by a variable is three instructions in V8: skipped for K = 16) and interleaved with
 * zeros into the high half of a lane (one instruction per four codes), so bfloat16 decodes at memory speed.
 */
export function decodeShift16(src: usize, dst: usize, n: usize, shift: i32): void {
  if (shift == 16) shiftRun(src, dst, n, 0, true);
  else shiftRun(src, dst, n, shift - 16, false);
}
// @ts-ignore: decorator
@inline
function shiftRun(src: usize, dst: usize, n: usize, up: i32, half16: bool): void {
  const zero = i32x4.splat(0);
  let i: usize = 0;
  for (; i + 16 <= n; i += 16) {
    let a = v128.load(src + (i << 1), 0);
    let b = v128.load(src + (i << 1), 16);
    if (!half16) {
      a = i16x8.shl(a, up);
      b = i16x8.shl(b, up);
    }
    const d = dst + (i << 2);
    v128.store(d, i16x8.shuffle(zero, a, 0, 8, 1, 9, 2, 10, 3, 11), 0);
    v128.store(d, i16x8.shuffle(zero, a, 4, 12, 5, 13, 6, 14, 7, 15), 16);
    v128.store(d, i16x8.shuffle(zero, b, 0, 8, 1, 9, 2, 10, 3, 11), 32);
    v128.store(d, i16x8.shuffle(zero, b, 4, 12, 5, 13, 6, 14, 7, 15), 48);
  }
  for (; i < n; i++) store<u32>(dst + (i << 2), <u32>load<u16>(src + (i << 1)) << (up + 16));
}

/** +∞'s float32 bits and the sign bit, in every lane. */
const IEEE_CONSTANTS = memory.data<u32>([0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, 0x80000000, 0x80000000, 0x80000000, 0x80000000], 16);
// Slots of decodeIeee16's parameter block (16 bytes each, splatted), written by the host (src/wasm/decode.ts ieeeParams).
const IEEE_MAG_MASK = 0; // 2^(K−1) − 1 (signed), 2^K − 1 (unsigned)
const IEEE_UP = 16; // 2^(24 − P): the magnitude moved to float32's exponent and fraction fields
const IEEE_SCALE = 32; // f32 2^(127 − B)
const IEEE_SUB_LIMIT = 48; // 2^(P−1): magnitudes below are subnormal (or zero)
const IEEE_SUB_SCALE = 64; // f32 2^minQ (0: subnormals flushed to zero)
const IEEE_INF_BELOW = 80; // the magnitude of +∞ minus 1 (the largest magnitude when the format has none)
const IEEE_FRACTION = 96; // 0x007fffff: NaN payloads kept (∞ at the start of the top binade); 0: ∞ alone
const IEEE_SIGN_UP = 112; // 2^(32 − K): the sign bit K − 1 moved to bit 31 (0: unsigned)
const IEEE_NORMAL_MIN = 128; // 2^23: the bits of float32's MinNormal
const IEEE_NAN_FROM = 144; // the first of a run of NaN codes decoding to one pattern (P3109's NaN in −0's place)
const IEEE_NAN_COUNT = 160; // their number (0: none)
const IEEE_NAN_BITS = 176; // their float32 bits
const IEEE_MIN_NORMAL = 192; // f32 2^(1 − B), MinNormal (the payload form)
const IEEE_PAYLOAD_FORM = 208; // 1: binary16's specials, gradual subnormals, a top binade finite in float32

/**
 * Four codes' float32 bits. The rule's constants come as values the caller loaded once before its loop (V8 reloads a
 * v128 from memory at every use inside one); the NaN run's, which only the nanRun callers use, are read at `p`.
 */
// @ts-ignore: decorator
@inline
function ieee4(c: v128, magMask: v128, up: v128, normalMin: v128, scale: v128, subScale: v128, subLimit: v128, fraction: v128, infBelow: v128, signUp: v128, p: usize, nanRun: bool): v128 {
  const m = v128.and(c, magMask);
  const t = i32x4.mul(m, up);
  // Normal results: the bits read as a float32 (raised to MinNormal on the other lanes: no denormal operand, which
  // would be slow) times 2^(127 − B); subnormal ones: m·2^minQ, both exact.
  const normal = f32x4.mul(i32x4.max_s(t, normalMin), scale);
  const subnormal = f32x4.mul(f32x4.convert_i32x4_s(m), subScale);
  // select: its masks are comparison results.
  let v = select(subnormal, normal, i32x4.lt_s(m, subLimit));
  v = select(v128.or(v128.load(IEEE_CONSTANTS, 0), v128.and(t, fraction)), v, i32x4.gt_s(m, infBelow));
  v = v128.or(v, v128.and(i32x4.mul(c, signUp), v128.load(IEEE_CONSTANTS, 16)));
  // A compile-time choice (the callers pass a literal): the run costs binary16 a quarter of its speed.
  if (!nanRun) return v;
  const nan = i32x4.lt_u(i32x4.sub(c, v128.load(p, IEEE_NAN_FROM)), v128.load(p, IEEE_NAN_COUNT));
  return select(v128.load(p, IEEE_NAN_BITS), v, nan);
}

/**
 * ieee4 for formats with binary16's specials (∞ and payload-keeping NaNs in the top binade), gradual subnormals and
 * a top binade whose values are finite float32s, in fewer operations: a subnormal magnitude is raised into
 * MinNormal's binade (2^23 ORed in: the operand stays normal), scaled, and MinNormal taken off again, both exact
 * (Sterbenz); the top binade's product keeps t's trailing bits, so ORing its exponent field full gives ∞ and the NaNs
 * with their payloads.
 */
// @ts-ignore: decorator
@inline
function ieeePayload4(c: v128, magMask: v128, up: v128, normalMin: v128, scale: v128, minNormal: v128, subLimit: v128, infBelow: v128, signUp: v128, inf: v128, sign: v128): v128 {
  const m = v128.and(c, magMask);
  const t = i32x4.mul(m, up);
  const sub = i32x4.lt_s(m, subLimit);
  const v = f32x4.sub(f32x4.mul(v128.or(t, v128.and(sub, normalMin)), scale), v128.and(sub, minNormal));
  return v128.or(v128.or(v, v128.and(i32x4.gt_s(m, infBelow), inf)), v128.and(i32x4.mul(c, signUp), sign));
}

/**
 * 16-bit codes of a format with the IEEE layout (sign bit K − 1, then exponent and trailing bits; ∞ and NaNs with
 * their payloads at the top exponent as in binary16, or ∞ at the top magnitude and one run of NaN codes as in P3109
 * and cfloat16_uhp, or neither), computed instead of looked up from constants at `p` that the host derives from
 * the format's parameters (src/wasm/decode.ts ieeeParams; the tests check every code of every format it accepts
 * against the exact table). Powers of two multiply where a shift by a per-format count would go (V8 moves each
 * variable shift count through a general register). The last n mod 16 codes take one lane each.
 */
// @ts-ignore: decorator
@inline
function decodeIeee(src: usize, dst: usize, n: usize, p: usize, nanRun: bool): void {
  const magMask = v128.load(p, IEEE_MAG_MASK);
  const up = v128.load(p, IEEE_UP);
  const normalMin = v128.load(p, IEEE_NORMAL_MIN);
  const scale = v128.load(p, IEEE_SCALE);
  const subScale = v128.load(p, IEEE_SUB_SCALE);
  const subLimit = v128.load(p, IEEE_SUB_LIMIT);
  const fraction = v128.load(p, IEEE_FRACTION);
  const infBelow = v128.load(p, IEEE_INF_BELOW);
  const signUp = v128.load(p, IEEE_SIGN_UP);
  let i: usize = 0;
  if (!nanRun && load<i32>(p, IEEE_PAYLOAD_FORM) != 0) {
    const minNormal = v128.load(p, IEEE_MIN_NORMAL);
    const inf = v128.load(IEEE_CONSTANTS, 0);
    const sign = v128.load(IEEE_CONSTANTS, 16);
    for (; i + 16 <= n; i += 16) {
      const a = v128.load(src + (i << 1), 0);
      const b = v128.load(src + (i << 1), 16);
      const d = dst + (i << 2);
      v128.store(d, ieeePayload4(i32x4.extend_low_i16x8_u(a), magMask, up, normalMin, scale, minNormal, subLimit, infBelow, signUp, inf, sign), 0);
      v128.store(d, ieeePayload4(i32x4.extend_high_i16x8_u(a), magMask, up, normalMin, scale, minNormal, subLimit, infBelow, signUp, inf, sign), 16);
      v128.store(d, ieeePayload4(i32x4.extend_low_i16x8_u(b), magMask, up, normalMin, scale, minNormal, subLimit, infBelow, signUp, inf, sign), 32);
      v128.store(d, ieeePayload4(i32x4.extend_high_i16x8_u(b), magMask, up, normalMin, scale, minNormal, subLimit, infBelow, signUp, inf, sign), 48);
    }
  }
  for (; i + 16 <= n; i += 16) {
    const a = v128.load(src + (i << 1), 0);
    const b = v128.load(src + (i << 1), 16);
    const d = dst + (i << 2);
    v128.store(d, ieee4(i32x4.extend_low_i16x8_u(a), magMask, up, normalMin, scale, subScale, subLimit, fraction, infBelow, signUp, p, nanRun), 0);
    v128.store(d, ieee4(i32x4.extend_high_i16x8_u(a), magMask, up, normalMin, scale, subScale, subLimit, fraction, infBelow, signUp, p, nanRun), 16);
    v128.store(d, ieee4(i32x4.extend_low_i16x8_u(b), magMask, up, normalMin, scale, subScale, subLimit, fraction, infBelow, signUp, p, nanRun), 32);
    v128.store(d, ieee4(i32x4.extend_high_i16x8_u(b), magMask, up, normalMin, scale, subScale, subLimit, fraction, infBelow, signUp, p, nanRun), 48);
  }
  for (; i < n; i++) {
    const c = i32x4.splat(<i32>load<u16>(src + (i << 1)));
    store<u32>(dst + (i << 2), i32x4.extract_lane(ieee4(c, magMask, up, normalMin, scale, subScale, subLimit, fraction, infBelow, signUp, p, nanRun), 0));
  }
}

export function decodeIeee16(src: usize, dst: usize, n: usize, p: usize): void {
  decodeIeee(src, dst, n, p, false);
}

/** decodeIeee16 with the run of NaN codes at IEEE_NAN_FROM (P3109, cfloat16_uhp). */
export function decodeIeee16NaNs(src: usize, dst: usize, n: usize, p: usize): void {
  decodeIeee(src, dst, n, p, true);
}

/**
 * Byte planes of a ≤ 4-bit table: planes + 16·b holds byte b of table[0…15]'s float32 bits, so one swizzle per
 * plane decodes 16 codes (an FP4 swizzle).
 */
export function nibblePlanes(table: usize, planes: usize): void {
  for (let c: usize = 0; c < 16; c++) {
    const bits = load<u32>(table + (c << 2));
    for (let b: usize = 0; b < 4; b++) store<u8>(planes + (b << 4) + c, <u8>(bits >>> (<u32>b << 3)));
  }
}

// @ts-ignore: decorator
@inline
function decode16(codes: v128, p0: v128, p1: v128, p2: v128, p3: v128, d: usize): void {
  // Strict swizzles: the codes are < 16, so relaxed_swizzle would give the same bytes, but it measured no faster.
  const b0 = i8x16.swizzle(p0, codes);
  const b1 = i8x16.swizzle(p1, codes);
  const b2 = i8x16.swizzle(p2, codes);
  const b3 = i8x16.swizzle(p3, codes);
  const lo01 = i8x16.shuffle(b0, b1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const hi01 = i8x16.shuffle(b0, b1, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const lo23 = i8x16.shuffle(b2, b3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const hi23 = i8x16.shuffle(b2, b3, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  v128.store(d, i16x8.shuffle(lo01, lo23, 0, 8, 1, 9, 2, 10, 3, 11), 0);
  v128.store(d, i16x8.shuffle(lo01, lo23, 4, 12, 5, 13, 6, 14, 7, 15), 16);
  v128.store(d, i16x8.shuffle(hi01, hi23, 0, 8, 1, 9, 2, 10, 3, 11), 32);
  v128.store(d, i16x8.shuffle(hi01, hi23, 4, 12, 5, 13, 6, 14, 7, 15), 48);
}

/** Byte codes of a ≤ 4-bit format (one per byte) → float32 bits with four plane swizzles per 16 codes. */
export function decodeNibbles(src: usize, dst: usize, n: usize, planes: usize, table: usize): void {
  const p0 = v128.load(planes, 0);
  const p1 = v128.load(planes, 16);
  const p2 = v128.load(planes, 32);
  const p3 = v128.load(planes, 48);
  let i: usize = 0;
  for (; i + 32 <= n; i += 32) {
    decode16(v128.load(src + i, 0), p0, p1, p2, p3, dst + (i << 2));
    decode16(v128.load(src + i, 16), p0, p1, p2, p3, dst + (i << 2) + 64);
  }
  decodeLut8(src + i, dst + (i << 2), n - i, table);
}

/** Packed 4-bit codes (two per byte, element 2j in the low nibble of byte j: OCP MX) → float32 bits. */
export function decodePacked4(src: usize, dst: usize, n: usize, planes: usize, table: usize): void {
  const p0 = v128.load(planes, 0);
  const p1 = v128.load(planes, 16);
  const p2 = v128.load(planes, 32);
  const p3 = v128.load(planes, 48);
  const mask = v128.load(NIBBLE_MASK);
  let i: usize = 0;
  for (; i + 32 <= n; i += 32) {
    const v = v128.load(src + (i >> 1));
    const lo = v128.and(v, mask);
    // x86 has no byte shift: shift 16-bit lanes and mask.
    const hi = v128.and(i16x8.shr_u(v, 4), mask);
    const d = dst + (i << 2);
    decode16(i8x16.shuffle(lo, hi, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), p0, p1, p2, p3, d);
    decode16(i8x16.shuffle(lo, hi, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), p0, p1, p2, p3, d + 64);
  }
  for (; i < n; i++) {
    const code = (<usize>load<u8>(src + (i >> 1)) >>> (<usize>(i & 1) << 2)) & 15;
    store<u32>(dst + (i << 2), load<u32>(table + (code << 2)));
  }
}

// Layout of the affine form of decodeAffine/decodeAffineTo16 (built by src/wasm/decode.ts, affineForm): 16-byte rows.
const F_MAG = 0; // u8 lanes: the magnitude mask (2^(K−1) − 1 signed, 2^K − 1 unsigned)
const F_TOP = 16; // u8 lanes: the first magnitude of the second residual window
const F_RL = 32; // low / high bytes of the residuals of the first window (magnitudes 0…15, or W…W+15 mod the mask)
const F_RH = 64; // low / high bytes of the residuals of magnitudes TOP…TOP+15
const F_STEP = 96; // i16 lanes: the output step per magnitude (a power of two)
const F_OFFSET = 112; // i16 lanes: the output at magnitude 0 before its residual
const F_SIGN_BIAS = 128; // u8 lanes: 0x80 − 2^(K−1) (bit 7 of code + bias is the sign) when signed, 0 when unsigned
const F_ODD_CODE = 144; // u8 lanes: the one code the rule misses (P3109's NaN in −0's place), for the Odd kernels
const F_ODD_RESIDUAL = 160; // that code's residual, low byte then high byte (sign included)
const F_SIGN = 176; // u8 lanes: 0x80 when signed, 0 when unsigned
const F_WINDOW = 192; // u8 lanes: W, the first magnitude of the one window (variant AFFINE_ONE_WINDOW)

/** Variant bits of the affine kernels (src/wasm/decode.ts sets them from the form). */
const AFFINE_ODD: u32 = 1; // one code has its own residual
const AFFINE_ONE_WINDOW: u32 = 2; // every nonzero residual lies in one window of 16 magnitudes, cyclically from W

// @ts-ignore: decorator
@inline
function affine16(
  c: v128, d: usize, magMask: v128, top: v128, window: v128, rll: v128, rlh: v128, rhl: v128, rhh: v128, step: v128, offset: v128,
  signBias: v128, sign: v128, oddCode: v128, oddLo: v128, oddHi: v128, out16: bool, withOdd: bool, oneWindow: bool,
): void {
  const m = v128.and(c, magMask);
  // Bit 7 of code + bias is the sign bit (no carry reaches past it), added to the high byte: 0x8000 on the output.
  const signByte = v128.and(i8x16.add(c, signBias), sign);
  // Strict swizzles: the indices take byte values 16…127 too, which the relaxed form leaves to the engine.
  let rl: v128, rh: v128;
  if (oneWindow) {
    // (c − W) mod the magnitude count: the window's magnitudes become 0…15, the others ≥ 16, for which swizzle gives 0.
    const w = v128.and(i8x16.sub(c, window), magMask);
    rl = i8x16.swizzle(rll, w);
    rh = i8x16.add(i8x16.swizzle(rlh, w), signByte);
  } else {
    // Swizzle gives 0 for indices ≥ 16, so each window adds its residuals to its own magnitudes only.
    const mt = i8x16.sub(m, top);
    rl = v128.or(i8x16.swizzle(rll, m), i8x16.swizzle(rhl, mt));
    rh = i8x16.add(v128.or(i8x16.swizzle(rlh, m), i8x16.swizzle(rhh, mt)), signByte);
  }
  if (withOdd) {
    const odd = i8x16.eq(c, oddCode);
    rl = select(oddLo, rl, odd); // select: odd is a comparison result
    rh = select(oddHi, rh, odd);
  }
  const lo = i16x8.add(
    i16x8.add(i16x8.mul(i16x8.extend_low_i8x16_u(m), step), offset),
    i8x16.shuffle(rl, rh, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23),
  );
  const hi = i16x8.add(
    i16x8.add(i16x8.mul(i16x8.extend_high_i8x16_u(m), step), offset),
    i8x16.shuffle(rl, rh, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31),
  );
  if (out16) {
    v128.store(d, lo, 0);
    v128.store(d, hi, 16);
    return;
  }
  const zero = i16x8.sub(lo, lo);
  v128.store(d, i16x8.shuffle(zero, lo, 0, 8, 1, 9, 2, 10, 3, 11), 0);
  v128.store(d, i16x8.shuffle(zero, lo, 4, 12, 5, 13, 6, 14, 7, 15), 16);
  v128.store(d, i16x8.shuffle(zero, hi, 0, 8, 1, 9, 2, 10, 3, 11), 32);
  v128.store(d, i16x8.shuffle(zero, hi, 4, 12, 5, 13, 6, 14, 7, 15), 48);
}

/**
 * ≤ 8-bit codes of a format whose table is affine in the magnitude m away from its ends: 16-bit output (binary16 or
 * bfloat16 bits, or the top half of float32 bits) = m·STEP + OFFSET + R[m] + 0x8000·sign (mod 2^16), R nonzero only
 * for the 16 lowest (zero, subnormals) and 16 highest (∞, NaN) magnitudes — or, cheaper, within one window of 16
 * magnitudes taken cyclically (float8_e4m3fn: its NaN and its subnormals) —, one code with its own residual. Residual
 * and sign are assembled in bytes: 4 swizzles per 16 codes, 2 with one window; two groups of 16 codes per iteration.
 * Measured (16M float8_e4m3fn codes → binary16, zero copy, interleaved): two windows about 78 % of a probe that only
 * moves the same bytes, one window unrolled 85–89 % (bench/fp8-f16.mjs).
 */
// @ts-ignore: decorator
@inline
function affineLoop(
  src: usize, dst: usize, n: usize, form: usize, table: usize, packed6: bool, out16: bool, withOdd: bool, oneWindow: bool,
): void {
  const magMask = v128.load(form, F_MAG);
  const top = v128.load(form, F_TOP);
  const window = v128.load(form, F_WINDOW);
  const rll = v128.load(form, F_RL);
  const rlh = v128.load(form, F_RL + 16);
  const rhl = v128.load(form, F_RH);
  const rhh = v128.load(form, F_RH + 16);
  const step = v128.load(form, F_STEP);
  const offset = v128.load(form, F_OFFSET);
  const signBias = v128.load(form, F_SIGN_BIAS);
  const sign = v128.load(form, F_SIGN);
  const oddCode = v128.load(form, F_ODD_CODE);
  const oddLo = i8x16.splat(load<u8>(form, F_ODD_RESIDUAL));
  const oddHi = i8x16.splat(load<u8>(form, F_ODD_RESIDUAL + 1));
  let i: usize = 0;
  if (packed6) {
    const six = v128.load(SIX_BITS32);
    // 16 codes from 12 bytes, unpacked in registers; the 16-byte read stays inside the input while i + 32 ≤ n.
    for (; i + 32 <= n; i += 16) {
      const w = i8x16.shuffle(v128.load(src + ((i >> 2) * 3)), six, 0, 1, 2, 31, 3, 4, 5, 31, 6, 7, 8, 31, 9, 10, 11, 31);
      const c = v128.or(
        v128.or(v128.and(w, six), i32x4.shl(v128.and(i32x4.shr_u(w, 6), six), 8)),
        v128.or(i32x4.shl(v128.and(i32x4.shr_u(w, 12), six), 16), i32x4.shl(i32x4.shr_u(w, 18), 24)),
      );
      affine16(c, dst + (i << 2), magMask, top, window, rll, rlh, rhl, rhh, step, offset, signBias, sign, oddCode, oddLo, oddHi, false, withOdd, oneWindow);
    }
    decodePacked6(src + ((i >> 2) * 3), dst + (i << 2), n - i, table);
    return;
  }
  const ds: usize = out16 ? 1 : 2; // log2 bytes per output
  // Two groups per iteration: measured 8–10 % faster than one (the loop's own instructions are a tenth of the work).
  for (; i + 32 <= n; i += 32) {
    const d = dst + (i << ds);
    affine16(v128.load(src + i), d, magMask, top, window, rll, rlh, rhl, rhh, step, offset, signBias, sign, oddCode, oddLo, oddHi, out16, withOdd, oneWindow);
    affine16(v128.load(src + i, 16), d + (16 << ds), magMask, top, window, rll, rlh, rhl, rhh, step, offset, signBias, sign, oddCode, oddLo, oddHi, out16, withOdd, oneWindow);
  }
  if (i + 16 <= n) {
    affine16(v128.load(src + i), dst + (i << ds), magMask, top, window, rll, rlh, rhl, rhh, step, offset, signBias, sign, oddCode, oddLo, oddHi, out16, withOdd, oneWindow);
    i += 16;
  }
  if (out16) gather<u8, u16>(src + i, dst + (i << ds), n - i, table);
  else gather<u8, u32>(src + i, dst + (i << ds), n - i, table);
}

/** affineLoop specialised for `variant` (AFFINE_ODD | AFFINE_ONE_WINDOW): one branch per call, none per element. */
// @ts-ignore: decorator
@inline
function affineVariant(src: usize, dst: usize, n: usize, form: usize, table: usize, packed6: bool, out16: bool, variant: u32): void {
  if (variant == 0) affineLoop(src, dst, n, form, table, packed6, out16, false, false);
  else if (variant == AFFINE_ODD) affineLoop(src, dst, n, form, table, packed6, out16, true, false);
  else if (variant == AFFINE_ONE_WINDOW) affineLoop(src, dst, n, form, table, packed6, out16, false, true);
  else affineLoop(src, dst, n, form, table, packed6, out16, true, true);
}

/** Byte codes → float32 bits through the affine form of the format's table (see affineLoop); the tail uses the table. */
export function decodeAffine(src: usize, dst: usize, n: usize, form: usize, table: usize, variant: u32): void {
  affineVariant(src, dst, n, form, table, false, false, variant);
}

/** Byte codes → 16-bit codes of another format through the affine form of a u16 conversion table. */
export function decodeAffineTo16(src: usize, dst: usize, n: usize, form: usize, table: usize, variant: u32): void {
  affineVariant(src, dst, n, form, table, false, true, variant);
}

/** Packed 6-bit codes → float32 bits through the affine form. */
export function decodePacked6Affine(src: usize, dst: usize, n: usize, form: usize, table: usize, variant: u32): void {
  affineVariant(src, dst, n, form, table, true, false, variant);
}

/** Packed 6-bit codes (little-endian bit stream, element i at bits 6i…6i+5) → float32 bits, 4 codes per 3 bytes. */
export function decodePacked6(src: usize, dst: usize, n: usize, table: usize): void {
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) {
    const s = src + ((i >> 2) * 3);
    const w = <usize>load<u8>(s) | (<usize>load<u8>(s, 1) << 8) | (<usize>load<u8>(s, 2) << 16);
    const d = dst + (i << 2);
    store<u32>(d, load<u32>(table + ((w & 63) << 2)), 0);
    store<u32>(d, load<u32>(table + (((w >>> 6) & 63) << 2)), 4);
    store<u32>(d, load<u32>(table + (((w >>> 12) & 63) << 2)), 8);
    store<u32>(d, load<u32>(table + ((w >>> 18) << 2)), 12);
  }
  for (; i < n; i++) {
    const bit = i * 6;
    const s = src + (bit >> 3);
    // The second byte is read only when the code straddles it, so the kernel never reads past the input.
    const w = (<usize>load<u8>(s) | ((bit & 7) > 2 ? <usize>load<u8>(s, 1) << 8 : 0)) >>> (bit & 7);
    store<u32>(dst + (i << 2), load<u32>(table + ((w & 63) << 2)));
  }
}

/** Largest byte in [src, src+n): the host checks codes < 2^K with it before any work. */
export function maxU8(src: usize, n: usize): u32 {
  let acc = i8x16.splat(0);
  let i: usize = 0;
  for (; i + 16 <= n; i += 16) acc = i8x16.max_u(acc, v128.load(src + i));
  acc = i8x16.max_u(acc, i8x16.shuffle(acc, acc, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
  acc = i8x16.max_u(acc, i8x16.shuffle(acc, acc, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3));
  acc = i8x16.max_u(acc, i8x16.shuffle(acc, acc, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1));
  let m = max(<u32>i8x16.extract_lane_u(acc, 0), <u32>i8x16.extract_lane_u(acc, 1));
  for (; i < n; i++) m = max(m, <u32>load<u8>(src + i));
  return m;
}

/** Largest 16-bit code in [src, src+2n). */
export function maxU16(src: usize, n: usize): u32 {
  let acc = i16x8.splat(0);
  let i: usize = 0;
  for (; i + 8 <= n; i += 8) acc = i16x8.max_u(acc, v128.load(src + (i << 1)));
  acc = i16x8.max_u(acc, i16x8.shuffle(acc, acc, 4, 5, 6, 7, 0, 1, 2, 3));
  acc = i16x8.max_u(acc, i16x8.shuffle(acc, acc, 2, 3, 0, 1, 2, 3, 0, 1));
  let m = max(<u32>i16x8.extract_lane_u(acc, 0), <u32>i16x8.extract_lane_u(acc, 1));
  for (; i < n; i++) m = max(m, <u32>load<u16>(src + (i << 1)));
  return m;
}
