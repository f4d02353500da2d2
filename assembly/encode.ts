// Encode kernel: float32 → codes of any format with K ≤ 16 under any rounding and saturation (P3109 §4.7.3–4.7.6).
// One branchless algorithm on i32x4 lanes, specialised only by the constant block the host writes (src/wasm/encode.ts
// derives every constant from the Format and the projection; no kernel knows a format).
//
// Per lane: |x| = m·2^e exactly. Normal results (|x| ≥ MinNormal) use the float32 bits directly: shifting by
// 24 − P leaves the truncated magnitude code (P3109 §1.6 unified form), the carry of a round-away flows into the
// exponent. Subnormal results (quantum 2^minQ) use y = |x|·2^−minQ, exact in float32, split into ⌊y⌋ and ν.
// ν is carried as a 32-bit fixed-point fraction whose last bit is sticky (a round-to-odd intermediate),
// so "round away" is the carry out of ν + T for a per-mode addend T (§4.7.4 RoundAway table). A fast path below
// covers the hot projections; the host picks it from the constants, never from a format name.
import { laneOffsets, randomBits32x4, rngMul1, rngMul2, seededLanes } from "./rng";

// Slots of the constant block (16 bytes each, a splatted i32 or f32); src/wasm/encode.ts writes the same layout.
const MAGOFF = 0; // (B − 127)·2^(P−1): truncated magnitude code = (bits >> (24 − P)) + MAGOFF
const REMMASK = 1; // 2^(24−P) − 1: the fraction bits of a normal result
const NORMMIN = 2; // float32 bits of MinNormal (clamped): lanes at or above it take the normal path
const SCALE1 = 3; // f32 2^e1 and 2^e2 with e1 + e2 = −minQ: y = |x|·2^−minQ in two exact steps
const SCALE2 = 4;
const ZEROMAG = 5; // (minQ + P + B − 2)·2^(P−1): the magnitude code of a subnormal-path S = 0 (a zero result)
const FLUSH = 6; // magnitude codes below this become 0 (flushed subnormals), else INT_MIN
const MAXMAG = 7; // magnitude code of MaxFinite
const T_BASE = 8; // addends of the round-away carry: constant, if the truncated code is odd / even, if x > 0 / x < 0
const T_ODD = 9;
const T_EVEN = 10;
const T_POS = 11;
const T_NEG = 12;
const NUMASK = 13; // fraction bits a stochastic mode looks at (top N or N+1), else all
const C_HALF = 14; // StochasticC: 2^(31−N) − 1 and 1, rounding ν to N bits ties-to-even first
const C_BIT = 15;
const RMASK = 16; // seeded R: the top N of 32 random bits, left in place (= R << (32 − N))
const SIGNBIT = 17; // sign bit of a negative nonzero value, 0 for unsigned formats
const ZSIGN = 18; // code of −0 (vendor formats with −0), else 0
const UNSIGNED = 19; // all ones for unsigned formats: any negative nonzero result is below MinFinite
const NOZERO = 20; // all ones for formats without zero: a zero result is below MinFinite
const ABOVE = 21; // ωSaturate outcome codes (§4.7.5): finite overflow, below MinFinite (by sign), ±∞ inputs, NaN
const BELOW_POS = 22;
const BELOW_NEG = 23;
const INF_POS = 24;
const INF_NEG = 25;
const NAN_POS = 26;
const NAN_NEG = 27;
const KEEP = 28; // all ones where NaN payloads are kept (numpy float16): code = NaN + max(payload >> (24 − P), 1) + KEEPOFF
const KEEPOFF = 29;
const QUIRK = 30; // all ones for ml_dtypes' float8_e8m0fnu cast: positive float32 subnormals → MINPOS or MINPOS + 1
const QUIRK_T = 31;
const MINPOS = 32;
const KEY0 = 33; // seed keys of the counter-based generator
const KEY1 = 34;
const FAST_REBIAS = 35; // fast path (i32 lanes): (B − 127)·2^23, 2^(23−P) − 1, f32 2^(minQ+23) (also read as bits),
const FAST_HALF = 36; // float32 bits of max(MinNormal, 2^−126), the clamp of the magnitude code (MaxFinite or the next)
const FAST_MAGIC = 37;
const FAST_NORMAL_BITS = 38;
const FAST_LIMIT = 39;
const N_SIGNBIT = 40; // fast path, narrow lanes (i8x16 for bytes, i16x8 for wide codes): sign bit, sign bit where a
const N_ZCLEAR = 41; // zero result has no sign, all ones for unsigned formats, NaN codes by sign, 1, the payload
const N_UNSIGNED = 42; // offset (numpy float16), the code of a negative nonzero result of an unsigned format, ±∞ codes
const N_NAN_POS = 43;
const N_NAN_NEG = 44;
const N_ONE = 45;
const N_KEEPOFF = 46;
const SR_MASK = 47; // fast stochastic: float32 bits kept above R' (the low d = 24 − P − NS bits cleared when d > 0)
const SR_SCALE = 48; // f32 2^e1, 2^e2 with e1 + e2 = NS − minQ: the subnormal-path scale in two exact steps
const SR_ONE_AT = 49; // 2^(31 − N) for B: the + 1 of R' = 2R + 1, just below R
const SR_C_REBIAS = 50; // StochasticC's RNITE at bit d of the float32 bits: FAST_REBIAS + 2^(d−1) − 1 and the kept bit 2^d
// (FAST_REBIAS and 2^31, a bit |x| never has, when d ≤ 0: nothing to round)
const SR_C_BIT = 51;
const D_T_BASE = 52; // fast directed/ToOdd/TiesToAway: addends in units of the float32 bits (normal results), added
const D_T_ODD = 53; // when the truncated code is odd, x < 0, x > 0; thresholds G on the bits of the fraction
const D_T_NEG = 54; // (subnormal results): round away iff bits(ν) > G, G built the same way
const D_T_POS = 55;
const D_G_BASE = 56;
const D_G_ODD = 57;
const D_G_NEG = 58;
const D_G_POS = 59;
const SR_SCALE2 = 60;
const N_BELOW_NEG = 61;
const N_INF_POS = 62;
const N_INF_NEG = 63;
const D_LIMIT_NEG = 64; // fast directed: the clamp of negative values (rules 19–21 treat the two signs differently)
const SR_CLAMP = 65; // fast stochastic: LIMIT << (24 − P), the float32 bits (rebiased) of the overflow code
const SR_UP = 66; // 2^(c0 − 24 + P) and 2^(c0 − NS): normal and subnormal results moved to code bit c0 (stochasticMagnitude)
const SR_SUB_UP = 67;
const SR_Y_CAP = 68; // f32 2^(P − 1 + NS): ⌊|x|·2^(NS − minQ)⌋ of MinNormal, the cap of the subnormal path
const SLOTS = 69;
// Scalar words after the slots.
const S_SHIFT = 0; // 24 − P
const S_NUSHIFT = 1; // 32 − (24 − P): aligns a normal result's fraction bits to the top of ν
const S_CSHIFT = 2; // 32 − N (StochasticC's kept-bit position)
const S_RSHIFT = 3; // 32 − N: R << S_RSHIFT for caller-supplied R
const S_RANDOM = 4; // RANDOM_NONE, _SEED, _U8, _U16, _U32
const S_WIDE = 5; // 1 for 16-bit codes, 0 for bytes
const S_STAGE_C = 6; // 1 for StochasticC
const S_FAST = 7; // FAST_NONE, _BYTES, _WIDE, _WIDE_KEEP: the fast path (nearest-even or stochastic) applies
const S_FIELDS = 8; // seeded R: log2 of the fields per stream word (2: bytes, 1: halves, 0: words; src/random.ts)
const S_DIRECTED = 9; // 1: the fast path rounds with the D_* addends (any deterministic mode but nearest-even)

const FAST_NONE = 0;
const FAST_BYTES = 1;
const FAST_WIDE = 2;
const FAST_WIDE_KEEP = 3;

const RANDOM_NONE = 0;
const RANDOM_SEED = 1;
const RANDOM_U8 = 2;
const RANDOM_U16 = 3;
const RANDOM_U32 = 4;

// A parameter block: the slots, 64 bytes of scalar words, then the tail scratch (the last < 16 elements run through
// one zero-padded block: 64 bytes of float32, 64 of R, 32 of codes). The host passes the block's address to
// encodeF32, so instances sharing one memory (worker threads) each use their own block; encodeParams() is the
// static block of a single-thread host.
const SCALARS_AT: usize = SLOTS * 16;
const TAIL_AT: usize = SCALARS_AT + 64;
const BLOCK_BYTES: usize = TAIL_AT + 160;
const STATIC_BLOCK = memory.data(<i32>BLOCK_BYTES, 16);

// Format-independent constants, kept in memory: V8 rebuilds v128 constants in every loop iteration.
const FIXED = memory.data<u32>([
  0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff, // |x| mask
  0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, // +∞ bits
  0x00800000, 0x00800000, 0x00800000, 0x00800000, // smallest normal float32
  0x4a800000, 0x4a800000, 0x4a800000, 0x4a800000, // 149 << 23: rebias of a renormalised float32 subnormal
  0x4f000000, 0x4f000000, 0x4f000000, 0x4f000000, // f32 2^31
  0x007fffff, 0x007fffff, 0x007fffff, 0x007fffff, // float32 trailing significand (NaN payload)
  1, 1, 1, 1,
  0x4b000000, 0x4b000000, 0x4b000000, 0x4b000000, // f32 2^23: x + 2^23 − 2^23 reads an integer x < 2^23 exactly
  0x7f7fffff, 0x7f7fffff, 0x7f7fffff, 0x7f7fffff, // largest finite float32
  4, 4, 4, 4,
], 16);
const F_ABS = 0;
const F_INF = 16;
const F_MINNORMAL = 32;
const F_REBIAS = 48;
const F_TWO31 = 64;
const F_PAYLOAD = 80;
const F_ONE = 96;
const F_TWO23 = 112;
const F_MAXFINITE = 128;
const F_FOUR = 144;

/** Address of the static parameter block (for a host whose instance has a memory of its own). */
export function encodeParams(): usize {
  return STATIC_BLOCK;
}

/** Bytes of a parameter block (16-byte aligned), for hosts that allocate one per thread. */
export function encodeParamsBytes(): usize {
  return BLOCK_BYTES;
}

// @ts-ignore: decorator
@inline
function c(p: usize, slot: i32): v128 {
  return v128.load(p + (<usize>slot << 4));
}

// @ts-ignore: decorator
@inline
function k(offset: i32): v128 {
  return v128.load(FIXED + <usize>offset);
}

/** Codes of four float32 lanes. `rsh` is R << (32 − N) for the stochastic modes (zero otherwise). */
// @ts-ignore: decorator
@inline
function encode4(p: usize, x: v128, rsh: v128, shift: i32, nuShift: i32, cShift: i32, stochastic: bool, stageC: bool): v128 {
  const a = v128.and(x, k(F_ABS));
  const neg = i32x4.shr_s(x, 31);
  const one = k(F_ONE);
  // Normal path: a float32 subnormal is renormalised by an exact int→float conversion (its exponent field then
  // reads 149 too high), so ⌊log2|x|⌋ and the significand come from the bits for every input.
  const subnormal32 = i32x4.lt_s(a, k(F_MINNORMAL));
  const bits = v128.bitselect(i32x4.sub(f32x4.convert_i32x4_s(a), k(F_REBIAS)), a, subnormal32);
  const magN = i32x4.add(i32x4.shr_s(bits, shift), c(p, MAGOFF));
  const nuN = i32x4.shl(v128.and(bits, c(p, REMMASK)), nuShift);
  // Subnormal path: y = |x|·2^−minQ is exact (power-of-two scaling of a float32 with minQ ≤ 0); ⌊y⌋ and the
  // fraction are exact too, and the fraction becomes 31 bits + a sticky bit.
  const y = f32x4.mul(f32x4.mul(a, c(p, SCALE1)), c(p, SCALE2));
  const fl = i32x4.trunc_sat_f32x4_s(y);
  const frac = f32x4.mul(f32x4.sub(y, f32x4.convert_i32x4_s(fl)), k(F_TWO31));
  const frac31 = i32x4.trunc_sat_f32x4_s(frac);
  const nuS = i32x4.sub(i32x4.shl(frac31, 1), f32x4.ne(frac, f32x4.convert_i32x4_s(frac31)));
  const normal = i32x4.ge_s(bits, c(p, NORMMIN));
  const truncated = v128.bitselect(magN, fl, normal);
  let nu = v128.bitselect(nuN, nuS, normal);
  // RoundAway (§4.7.4) as the carry out of ν + T.
  let carryC: v128 = i32x4.splat(0);
  if (stageC) {
    // StochasticC: RNITE(ν·2^N) first (the kept bit decides ties), its own carry is a round-away too.
    const rounded = i32x4.add(nu, i32x4.add(c(p, C_HALF), v128.and(i32x4.shr_u(nu, cShift), c(p, C_BIT))));
    carryC = i32x4.lt_u(rounded, nu);
    nu = rounded;
  }
  const odd = i32x4.neg(v128.and(truncated, one));
  let t = i32x4.add(c(p, T_BASE), v128.bitselect(c(p, T_ODD), c(p, T_EVEN), odd));
  t = i32x4.add(t, v128.bitselect(c(p, T_NEG), c(p, T_POS), neg));
  if (stochastic) t = i32x4.add(t, rsh);
  const kept = v128.and(nu, c(p, NUMASK));
  let away = i32x4.lt_u(i32x4.add(kept, t), kept);
  if (stageC) away = v128.or(away, carryC);
  // Magnitude code with the carry (unbounded exponent), flushed subnormals, and the zero result.
  let mag = i32x4.sub(v128.bitselect(magN, i32x4.add(fl, c(p, ZEROMAG)), normal), away);
  mag = v128.andnot(mag, i32x4.lt_s(mag, c(p, FLUSH)));
  const zeroIn = i32x4.eq(a, i32x4.splat(0));
  const zero = v128.or(zeroIn, i32x4.eq(mag, c(p, ZEROMAG)));
  // ωSaturate (§4.7.5): outcome codes were derived by the host from the reference for this format and ρ.
  const over = i32x4.gt_s(mag, c(p, MAXMAG));
  const above = v128.andnot(over, v128.or(neg, zero));
  const below = v128.or(v128.and(neg, v128.or(over, v128.andnot(c(p, UNSIGNED), zero))), v128.and(c(p, NOZERO), zero));
  let code = v128.bitselect(v128.and(neg, c(p, ZSIGN)), i32x4.add(mag, v128.and(neg, c(p, SIGNBIT))), zero);
  code = v128.bitselect(c(p, ABOVE), code, above);
  code = v128.bitselect(v128.bitselect(c(p, BELOW_NEG), c(p, BELOW_POS), neg), code, below);
  code = v128.bitselect(v128.bitselect(c(p, INF_NEG), c(p, INF_POS), neg), code, i32x4.eq(a, k(F_INF)));
  const payload = i32x4.max_u(i32x4.shr_u(v128.and(a, k(F_PAYLOAD)), shift), one);
  const nan = i32x4.add(v128.bitselect(c(p, NAN_NEG), c(p, NAN_POS), neg), v128.and(c(p, KEEP), i32x4.add(payload, c(p, KEEPOFF))));
  code = v128.bitselect(nan, code, i32x4.gt_s(a, k(F_INF)));
  // ml_dtypes float8_e8m0fnu: positive float32 subnormals give MinPositive up to its value, the next code above.
  const quirk = v128.andnot(v128.and(c(p, QUIRK), subnormal32), v128.or(neg, zeroIn));
  return v128.bitselect(i32x4.sub(c(p, MINPOS), i32x4.gt_s(a, c(p, QUIRK_T))), code, quirk);
}

/** R << (32 − N) for the four elements starting at element i (absolute index first + i). */
// @ts-ignore: decorator
@inline
function random4(kind: i32, rnd: usize, i: usize, first: u32, rShift: i32, fields: i32, key0: v128, key1: v128, rmask: v128): v128 {
  if (kind == RANDOM_SEED) return v128.and(seededLanes(i32x4.add(i32x4.splat(first + <u32>i), laneOffsets()), fields, key0, key1), rmask);
  if (kind == RANDOM_U8) return i32x4.shl(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(rnd + i))), rShift);
  if (kind == RANDOM_U16) return i32x4.shl(i32x4.extend_low_i16x8_u(v128.load64_zero(rnd + (i << 1))), rShift);
  if (kind == RANDOM_U32) return i32x4.shl(v128.load(rnd + (i << 2)), rShift);
  return i32x4.splat(0);
}

/** Encodes 16 elements starting at element i. */
// @ts-ignore: decorator
@inline
function block16(p: usize, src: usize, dst: usize, rnd: usize, i: usize, first: u32, kind: i32, wide: bool, stageC: bool, shift: i32, nuShift: i32, cShift: i32, rShift: i32, fields: i32, key0: v128, key1: v128, rmask: v128): void {
  const s = src + (i << 2);
  const stochastic = kind != RANDOM_NONE;
  const c0 = encode4(p, v128.load(s, 0), random4(kind, rnd, i, first, rShift, fields, key0, key1, rmask), shift, nuShift, cShift, stochastic, stageC);
  const c1 = encode4(p, v128.load(s, 16), random4(kind, rnd, i + 4, first, rShift, fields, key0, key1, rmask), shift, nuShift, cShift, stochastic, stageC);
  const c2 = encode4(p, v128.load(s, 32), random4(kind, rnd, i + 8, first, rShift, fields, key0, key1, rmask), shift, nuShift, cShift, stochastic, stageC);
  const c3 = encode4(p, v128.load(s, 48), random4(kind, rnd, i + 12, first, rShift, fields, key0, key1, rmask), shift, nuShift, cShift, stochastic, stageC);
  // Codes are < 2^16 (< 2^8 for bytes), so the saturating narrows are exact.
  const lo = i16x8.narrow_i32x4_u(c0, c1);
  const hi = i16x8.narrow_i32x4_u(c2, c3);
  if (wide) {
    v128.store(dst + (i << 1), lo, 0);
    v128.store(dst + (i << 1), hi, 16);
  } else {
    v128.store(dst + i, i8x16.narrow_i16x8_u(lo, hi));
  }
}

// @ts-ignore: decorator
@inline
function run(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize, kind: i32, wide: bool, stageC: bool): void {
  const shift = load<i32>(p + SCALARS_AT + (S_SHIFT << 2));
  const nuShift = load<i32>(p + SCALARS_AT + (S_NUSHIFT << 2));
  const cShift = load<i32>(p + SCALARS_AT + (S_CSHIFT << 2));
  const rShift = load<i32>(p + SCALARS_AT + (S_RSHIFT << 2));
  const fields = load<i32>(p + SCALARS_AT + (S_FIELDS << 2));
  const key0 = c(p, KEY0);
  const key1 = c(p, KEY1);
  const rmask = c(p, RMASK);
  let i: usize = 0;
  for (; i + 16 <= n; i += 16) block16(p, src, dst, rnd, i, first, kind, wide, stageC, shift, nuShift, cShift, rShift, fields, key0, key1, rmask);
  if (i == n) return;
  // Tail: copy the rest (and its R) into a zero-padded block, encode it whole, copy the codes back.
  const rest = n - i;
  const rBytes: usize = kind == RANDOM_U8 ? 1 : kind == RANDOM_U16 ? 2 : 4;
  memory.fill((p + TAIL_AT), 0, 128);
  memory.copy((p + TAIL_AT), src + (i << 2), rest << 2);
  if (kind >= RANDOM_U8) memory.copy((p + TAIL_AT + 64), rnd + i * rBytes, rest * rBytes);
  block16(p, (p + TAIL_AT), (p + TAIL_AT + 128), (p + TAIL_AT + 64), 0, first + <u32>i, kind, wide, stageC, shift, nuShift, cShift, rShift, fields, key0, key1, rmask);
  memory.copy(dst + (wide ? i << 1 : i), (p + TAIL_AT + 128), wide ? rest << 1 : rest);
}

// Fast path: the same algorithm specialised per rounding family for formats whose finite overflow has one code per
// sign (host-checked). Normal results round with the integer carry trick, subnormal results with the float-add
// trick (the FPU's RNE at quantum 2^minQ) or an exact scaling; the magnitude is clamped
// and the sign/±∞/NaN rules run on narrowed lanes (8 or 16 per op instead of 4). The generic kernel above measured
// ~0.25 G/s, this path 0.5–1.9 G/s by rounding family (16M elements, loaded 2-core machine).

/** Rounded, clamped magnitude code of four lanes (NearestTiesToEven). */
// @ts-ignore: decorator
@inline
function fastMagnitude(x: v128, shift: i32, rebias: v128, half: v128, magic: v128, normalBits: v128, limit: v128): v128 {
  const a = v128.and(x, k(F_ABS));
  const b = i32x4.add(a, rebias); // exponent rebiased: b >> shift is the truncated magnitude code
  const n = i32x4.shr_s(i32x4.add(i32x4.add(b, half), v128.and(i32x4.shr_u(b, shift), k(F_ONE))), shift);
  const s = i32x4.sub(f32x4.add(a, magic), magic);
  // With bias 128 (rebias 2^23) ∞ and values near it wrap negative: the unsigned clamp still sends them to LIMIT.
  return i32x4.min_u(v128.bitselect(s, n, i32x4.lt_s(a, normalBits)), limit);
}

/**
 * Rounded, clamped magnitude code of four lanes under TowardZero/Positive/Negative, TowardMaxMagnitude, ToOdd or
 * NearestTiesToAway: normal results add T (by parity and sign) to the float32 bits before the shift; subnormal
 * results split y = |x|·2^−minQ (exact) into ⌊y⌋ and the fraction ν and round away iff bits(ν) > G.
 */
// @ts-ignore: decorator
@inline
function directedMagnitude(p: usize, x: v128, shift: i32, rebias: v128, scale1: v128, scale2: v128, normalBits: v128, limit: v128, limitNeg: v128): v128 {
  const a = v128.and(x, k(F_ABS));
  const neg = i32x4.shr_s(x, 31);
  const one = k(F_ONE);
  const b = i32x4.add(a, rebias);
  const oddN = i32x4.neg(v128.and(i32x4.shr_u(b, shift), one));
  const t = i32x4.add(i32x4.add(c(p, D_T_BASE), v128.and(oddN, c(p, D_T_ODD))), i32x4.add(v128.and(neg, c(p, D_T_NEG)), v128.andnot(c(p, D_T_POS), neg)));
  const n = i32x4.shr_s(i32x4.add(b, t), shift);
  const y = f32x4.mul(f32x4.mul(a, scale1), scale2);
  const floor = f32x4.floor(y);
  const whole = i32x4.sub(f32x4.add(floor, k(F_TWO23)), k(F_TWO23));
  const oddS = i32x4.neg(v128.and(whole, one));
  const g = i32x4.add(i32x4.add(c(p, D_G_BASE), v128.and(oddS, c(p, D_G_ODD))), i32x4.add(v128.and(neg, c(p, D_G_NEG)), v128.andnot(c(p, D_G_POS), neg)));
  const s = i32x4.sub(whole, i32x4.gt_s(f32x4.sub(y, floor), g));
  return i32x4.min_u(v128.bitselect(s, n, i32x4.lt_s(a, normalBits)), v128.bitselect(limitNeg, limit, neg));
}

/** All ones where x is ±∞ or NaN. */
// @ts-ignore: decorator
@inline
function specialMask(x: v128): v128 {
  return i32x4.gt_s(v128.and(x, k(F_ABS)), k(F_MAXFINITE));
}

/** Codes of 8 (wide) or 16 finite lanes from their clamped magnitudes and sign masks, in narrow lanes. */
// @ts-ignore: decorator
@inline
function fastCodes(p: usize, m: v128, neg: v128, wide: bool): v128 {
  const zero = i32x4.splat(0);
  const atZero = wide ? i16x8.eq(m, zero) : i8x16.eq(m, zero);
  // Sign: cleared at zero where the format has no −0. Unsigned formats: a negative input gives 0 when it rounds to
  // zero, otherwise the below-MinFinite code (§4.7.5 rules 5, 11, 20, 22).
  const code = v128.or(m, v128.andnot(v128.and(neg, c(p, N_SIGNBIT)), v128.and(atZero, c(p, N_ZCLEAR))));
  return v128.bitselect(v128.andnot(c(p, N_BELOW_NEG), atZero), code, v128.and(neg, c(p, N_UNSIGNED)));
}

/** ±∞ and NaN lanes of `code` replaced by their codes (by sign; NaN with the kept payload of numpy float16). */
// @ts-ignore: decorator
@inline
function fastSpecials(p: usize, code: v128, neg: v128, inf: v128, nan: v128, payload: v128, keepPayload: bool): v128 {
  let nanCode = v128.bitselect(c(p, N_NAN_NEG), c(p, N_NAN_POS), neg);
  if (keepPayload) nanCode = i16x8.add(nanCode, i16x8.add(i16x8.max_u(payload, c(p, N_ONE)), c(p, N_KEEPOFF)));
  return v128.bitselect(nanCode, v128.bitselect(v128.bitselect(c(p, N_INF_NEG), c(p, N_INF_POS), neg), code, inf), nan);
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
function stochasticMagnitude(x: v128, w: v128, subnormal: bool, wide: bool, stageC: bool, rebias: v128, fractionMask: v128, cBit: v128, clamp: v128, up: v128, scale: v128, scale2: v128, yCap: v128, subUp: v128): v128 {
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
function anyBelow(s: usize, blocks: usize, normalBits: v128): bool {
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
function blockRandom(j: i32, seeded: bool, fields: i32, h0: v128, h1: v128, kind: i32, rnd: usize, toTop: i32, oneAt: v128): v128 {
  let r: v128;
  if (seeded) {
    const h = fields == 2 || j < 2 ? h0 : h1;
    const up = fields == 2 ? 24 - 8 * j : 16 - 16 * (j & 1);
    return v128.or(up == 0 ? h : i32x4.shl(h, up), oneAt);
  }
  if (kind == RANDOM_U8) r = i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(rnd + (<usize>j << 2))));
  else if (kind == RANDOM_U16) r = i32x4.extend_low_i16x8_u(v128.load64_zero(rnd + (<usize>j << 3)));
  else r = v128.load(rnd + (<usize>j << 4));
  return v128.or(i32x4.shl(r, toTop), oneAt);
}

// @ts-ignore: decorator
@inline
function runFast(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize, wide: bool, keepPayload: bool, stochastic: bool, seeded: bool, directed: bool, stageC: bool, fields: i32): void {
  const shift = load<i32>(p + SCALARS_AT + (S_SHIFT << 2));
  const rebias = c(p, FAST_REBIAS);
  const half = c(p, FAST_HALF);
  const magic = c(p, FAST_MAGIC);
  const normalBits = c(p, FAST_NORMAL_BITS);
  const limit = c(p, FAST_LIMIT);
  const scale1 = c(p, SCALE1);
  const scale2 = c(p, SCALE2);
  const limitNeg = c(p, D_LIMIT_NEG);
  // Constants of the other variants too: each instantiation uses its own, the rest are dead loads before the loop.
  const kind = load<i32>(p + SCALARS_AT + (S_RANDOM << 2));
  const toTop = load<i32>(p + SCALARS_AT + (S_RSHIFT << 2));
  const key0 = c(p, KEY0);
  const key1 = c(p, KEY1);
  const fractionMask = c(p, SR_MASK);
  const srRebias = stageC ? c(p, SR_C_REBIAS) : rebias;
  const cBit = c(p, SR_C_BIT);
  const clamp = c(p, SR_CLAMP);
  const up = c(p, SR_UP);
  const subUp = c(p, SR_SUB_UP);
  const yCap = c(p, SR_Y_CAP);
  const scale = c(p, SR_SCALE);
  const srScale2 = c(p, SR_SCALE2);
  const oneAt = c(p, SR_ONE_AT);
  const rBytes: usize = kind == RANDOM_U8 ? 1 : kind == RANDOM_U16 ? 2 : 4;
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
    let m0: v128, m1: v128, m2: v128, m3: v128;
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
    } else if (directed) {
      m0 = directedMagnitude(p, x0, shift, rebias, scale1, scale2, normalBits, limit, limitNeg);
      m1 = directedMagnitude(p, x1, shift, rebias, scale1, scale2, normalBits, limit, limitNeg);
      m2 = directedMagnitude(p, x2, shift, rebias, scale1, scale2, normalBits, limit, limitNeg);
      m3 = directedMagnitude(p, x3, shift, rebias, scale1, scale2, normalBits, limit, limitNeg);
    } else {
      m0 = fastMagnitude(x0, shift, rebias, half, magic, normalBits, limit);
      m1 = fastMagnitude(x1, shift, rebias, half, magic, normalBits, limit);
      m2 = fastMagnitude(x2, shift, rebias, half, magic, normalBits, limit);
      m3 = fastMagnitude(x3, shift, rebias, half, magic, normalBits, limit);
    }
    // Codes are ≤ LIMIT < 2^K, so the unsigned narrows are exact; the signed narrows keep the sign of x (and the
    // all-ones masks).
    const m01 = i16x8.narrow_i32x4_u(m0, m1);
    const m23 = i16x8.narrow_i32x4_u(m2, m3);
    const s01 = i16x8.narrow_i32x4_s(x0, x1);
    const s23 = i16x8.narrow_i32x4_s(x2, x3);
    // ±∞ and NaN inputs are rare: their codes are patched only in blocks that hold one (a predictable branch).
    const anySpecial = v128.any_true(v128.or(v128.or(specialMask(x0), specialMask(x1)), v128.or(specialMask(x2), specialMask(x3))));
    if (wide) {
      const zero = i32x4.splat(0);
      const neg01 = i16x8.lt_s(s01, zero);
      const neg23 = i16x8.lt_s(s23, zero);
      let c01 = fastCodes(p, m01, neg01, true);
      let c23 = fastCodes(p, m23, neg23, true);
      if (anySpecial) {
        c01 = fastSpecials(p, c01, neg01, specials8(x0, x1, false), specials8(x0, x1, true), keepPayload ? fastPayload(x0, x1, shift) : zero, keepPayload);
        c23 = fastSpecials(p, c23, neg23, specials8(x2, x3, false), specials8(x2, x3, true), keepPayload ? fastPayload(x2, x3, shift) : zero, keepPayload);
      }
      v128.store(d, c01, 0);
      v128.store(d, c23, 16);
    } else {
      const neg = i8x16.lt_s(i8x16.narrow_i16x8_s(s01, s23), i32x4.splat(0));
      let codes = fastCodes(p, i8x16.narrow_i16x8_u(m01, m23), neg, false);
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

// One Wasm function per variant: V8 compiled one function with every variant inlined ~4× slower (measured), and
// a runtime StochasticC flag per vector cost spills and branches. The literals are runFast's (wide, keepPayload,
// stochastic, seeded, directed, stageC, fields); a single flag word decoded inside runFast measured 10 % slower for
// StochasticC.
function fast8(p: usize, src: usize, dst: usize, n: usize, directed: bool): void {
  if (directed) runFast(p, src, dst, n, 0, 0, false, false, false, false, true, false, 0);
  else runFast(p, src, dst, n, 0, 0, false, false, false, false, false, false, 0);
}
function fast16(p: usize, src: usize, dst: usize, n: usize, keepPayload: bool, directed: bool): void {
  if (keepPayload) {
    if (directed) runFast(p, src, dst, n, 0, 0, true, true, false, false, true, false, 0);
    else runFast(p, src, dst, n, 0, 0, true, true, false, false, false, false, 0);
  } else if (directed) runFast(p, src, dst, n, 0, 0, true, false, false, false, true, false, 0);
  else runFast(p, src, dst, n, 0, 0, true, false, false, false, false, false, 0);
}
// Seeded: bytes (N ≤ 8) or halves (N ≤ 16) of the stream words, the fast path's two field widths.
function seeded8(p: usize, src: usize, dst: usize, n: usize, first: u32, bytes: bool): void {
  if (bytes) runFast(p, src, dst, n, first, 0, false, false, true, true, false, false, 2);
  else runFast(p, src, dst, n, first, 0, false, false, true, true, false, false, 1);
}
function seeded8C(p: usize, src: usize, dst: usize, n: usize, first: u32, bytes: bool): void {
  if (bytes) runFast(p, src, dst, n, first, 0, false, false, true, true, false, true, 2);
  else runFast(p, src, dst, n, first, 0, false, false, true, true, false, true, 1);
}
function array8(p: usize, src: usize, dst: usize, n: usize, rnd: usize, stageC: bool): void {
  if (stageC) runFast(p, src, dst, n, 0, rnd, false, false, true, false, false, true, 0);
  else runFast(p, src, dst, n, 0, rnd, false, false, true, false, false, false, 0);
}
function seeded16(p: usize, src: usize, dst: usize, n: usize, first: u32, bytes: bool, keepPayload: bool): void {
  if (keepPayload) {
    if (bytes) runFast(p, src, dst, n, first, 0, true, true, true, true, false, false, 2);
    else runFast(p, src, dst, n, first, 0, true, true, true, true, false, false, 1);
  } else if (bytes) runFast(p, src, dst, n, first, 0, true, false, true, true, false, false, 2);
  else runFast(p, src, dst, n, first, 0, true, false, true, true, false, false, 1);
}
function seeded16C(p: usize, src: usize, dst: usize, n: usize, first: u32, bytes: bool, keepPayload: bool): void {
  if (keepPayload) {
    if (bytes) runFast(p, src, dst, n, first, 0, true, true, true, true, false, true, 2);
    else runFast(p, src, dst, n, first, 0, true, true, true, true, false, true, 1);
  } else if (bytes) runFast(p, src, dst, n, first, 0, true, false, true, true, false, true, 2);
  else runFast(p, src, dst, n, first, 0, true, false, true, true, false, true, 1);
}
function array16(p: usize, src: usize, dst: usize, n: usize, rnd: usize, keepPayload: bool, stageC: bool): void {
  if (keepPayload) {
    if (stageC) runFast(p, src, dst, n, 0, rnd, true, true, true, false, false, true, 0);
    else runFast(p, src, dst, n, 0, rnd, true, true, true, false, false, false, 0);
  } else if (stageC) runFast(p, src, dst, n, 0, rnd, true, false, true, false, false, true, 0);
  else runFast(p, src, dst, n, 0, rnd, true, false, true, false, false, false, 0);
}
function generic8(p: usize, src: usize, dst: usize, n: usize): void {
  run(p, src, dst, n, 0, 0, RANDOM_NONE, false, false);
}
function generic16(p: usize, src: usize, dst: usize, n: usize): void {
  run(p, src, dst, n, 0, 0, RANDOM_NONE, true, false);
}
// The generic stochastic fallback branches on the random source and StochasticC per vector (predictable), which
// keeps the module small: one instantiation per code width instead of eight.
function genericRandom8(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize, kind: i32, stageC: bool): void {
  run(p, src, dst, n, first, rnd, kind, false, stageC);
}
function genericRandom16(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize, kind: i32, stageC: bool): void {
  run(p, src, dst, n, first, rnd, kind, true, stageC);
}

/**
 * Encodes n float32 values at src into codes at dst (bytes, or u16 when the block says wide) under the parameter
 * block at `p` (encodeParams(), or a block of encodeParamsBytes() the host allocated: one per thread). `first` is
 * the absolute index of src[0] (seeded random bits); rnd points at the caller's R values (u8/u16/u32 per the block)
 * for this chunk.
 */
export function encodeF32(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize): void {
  const kind = load<i32>(p + SCALARS_AT + (S_RANDOM << 2));
  const wide = load<i32>(p + SCALARS_AT + (S_WIDE << 2)) != 0;
  const stageC = load<i32>(p + SCALARS_AT + (S_STAGE_C << 2)) != 0;
  const fast = load<i32>(p + SCALARS_AT + (S_FAST << 2));
  if (fast != FAST_NONE) {
    const keepPayload = fast == FAST_WIDE_KEEP;
    const directed = load<i32>(p + SCALARS_AT + (S_DIRECTED << 2)) != 0;
    if (kind == RANDOM_NONE) {
      if (wide) fast16(p, src, dst, n, keepPayload, directed);
      else fast8(p, src, dst, n, directed);
    } else if (kind == RANDOM_SEED) {
      const bytes = load<i32>(p + SCALARS_AT + (S_FIELDS << 2)) == 2;
      if (wide) {
        if (stageC) seeded16C(p, src, dst, n, first, bytes, keepPayload);
        else seeded16(p, src, dst, n, first, bytes, keepPayload);
      } else if (stageC) seeded8C(p, src, dst, n, first, bytes);
      else seeded8(p, src, dst, n, first, bytes);
    } else if (wide) array16(p, src, dst, n, rnd, keepPayload, stageC);
    else array8(p, src, dst, n, rnd, stageC);
  } else if (kind == RANDOM_NONE) {
    if (wide) generic16(p, src, dst, n);
    else generic8(p, src, dst, n);
  } else if (wide) genericRandom16(p, src, dst, n, first, rnd, kind, stageC);
  else genericRandom8(p, src, dst, n, first, rnd, kind, stageC);
}
