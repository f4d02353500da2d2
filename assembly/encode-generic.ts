// Encode kernel, generic variant: float32 → codes of any format with K ≤ 16 under any rounding and saturation (P3109 §4.7.3–4.7.6).
// One branchless algorithm on i32x4 lanes, specialised only by the parameter block the host writes (src/wasm derives
// every constant from the Format and the projection; no kernel knows a format).
//
// Per lane: |x| = m·2^e exactly. Normal results (|x| ≥ MinNormal) use the float32 bits directly: shifting by
// 24 − P leaves the truncated magnitude code (P3109 §1.6 unified form), the carry of a round-away flows into the
// exponent. Subnormal results (quantum 2^minQ) use y = |x|·2^−minQ, exact in float32, split into ⌊y⌋ and ν.
// ν is carried as a 32-bit fixed-point fraction whose last bit is sticky (a round-to-odd intermediate),
// so "round away" is the carry out of ν + T for a per-mode addend T (§4.7.4 RoundAway table). A fast path
// covers the hot projections (encode-fast.ts).
import { F_ABS, F_INF, F_MINNORMAL, F_ONE, F_PAYLOAD, F_REBIAS, F_TWO31, c, k, scalar } from "./encode-common";
import { RandomSource, Scalar, Slot, TAIL_AT } from "./encode-layout";
import { laneOffsets, seededLanes } from "./rng";
import { select, truncS } from "./simd";

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
  const bits = select(i32x4.sub(f32x4.convert_i32x4_s(a), k(F_REBIAS)), a, subnormal32);
  const magN = i32x4.add(i32x4.shr_s(bits, shift), c(p, Slot.magOffset));
  const nuN = i32x4.shl(v128.and(bits, c(p, Slot.remainderMask)), nuShift);
  // Subnormal path: y = |x|·2^−minQ is exact (power-of-two scaling of a float32 with minQ ≤ 0); ⌊y⌋ and the
  // fraction are exact too, and the fraction becomes 31 bits + a sticky bit.
  const y = f32x4.mul(f32x4.mul(a, c(p, Slot.scale1)), c(p, Slot.scale2));
  // truncS: ⌊y⌋ and frac31 are kept on subnormal-path lanes only (normal lanes select the bits path), where
  // y < 2^(P−1) and frac·2^31 < 2^31 are finite and in range. select: every mask below is a comparison, a sign
  // spread or an all-ones/zero slot (unsigned, noZero, quirk), so each byte is 0x00 or 0xFF.
  const fl = truncS(y);
  const frac = f32x4.mul(f32x4.sub(y, f32x4.convert_i32x4_s(fl)), k(F_TWO31));
  const frac31 = truncS(frac);
  const nuS = i32x4.sub(i32x4.shl(frac31, 1), f32x4.ne(frac, f32x4.convert_i32x4_s(frac31)));
  const normal = i32x4.ge_s(bits, c(p, Slot.normalMin));
  const truncated = select(magN, fl, normal);
  let nu = select(nuN, nuS, normal);
  // RoundAway (§4.7.4) as the carry out of ν + T.
  let carryC: v128 = i32x4.splat(0);
  if (stageC) {
    // StochasticC: RNITE(ν·2^N) first (the kept bit decides ties), its own carry is a round-away too.
    const rounded = i32x4.add(nu, i32x4.add(c(p, Slot.cHalf), v128.and(i32x4.shr_u(nu, cShift), c(p, Slot.cBit))));
    carryC = i32x4.lt_u(rounded, nu);
    nu = rounded;
  }
  const odd = i32x4.neg(v128.and(truncated, one));
  let t = i32x4.add(c(p, Slot.tBase), select(c(p, Slot.tOdd), c(p, Slot.tEven), odd));
  t = i32x4.add(t, select(c(p, Slot.tNegative), c(p, Slot.tPositive), neg));
  if (stochastic) t = i32x4.add(t, rsh);
  const kept = v128.and(nu, c(p, Slot.fractionMask));
  let away = i32x4.lt_u(i32x4.add(kept, t), kept);
  if (stageC) away = v128.or(away, carryC);
  // Magnitude code with the carry (unbounded exponent), flushed subnormals, and the zero result.
  let mag = i32x4.sub(select(magN, i32x4.add(fl, c(p, Slot.zeroMagnitude)), normal), away);
  mag = v128.andnot(mag, i32x4.lt_s(mag, c(p, Slot.flushBelow)));
  const zeroIn = i32x4.eq(a, i32x4.splat(0));
  const zero = v128.or(zeroIn, i32x4.eq(mag, c(p, Slot.zeroMagnitude)));
  // ωSaturate (§4.7.5): outcome codes were derived by the host from the reference for this format and ρ.
  const over = i32x4.gt_s(mag, c(p, Slot.maxMagnitude));
  const above = v128.andnot(over, v128.or(neg, zero));
  const below = v128.or(v128.and(neg, v128.or(over, v128.andnot(c(p, Slot.unsigned), zero))), v128.and(c(p, Slot.noZero), zero));
  let code = select(v128.and(neg, c(p, Slot.negativeZero)), i32x4.add(mag, v128.and(neg, c(p, Slot.signBit))), zero);
  code = select(c(p, Slot.above), code, above);
  code = select(select(c(p, Slot.belowNegative), c(p, Slot.belowPositive), neg), code, below);
  code = select(select(c(p, Slot.infNegative), c(p, Slot.infPositive), neg), code, i32x4.eq(a, k(F_INF)));
  const payload = i32x4.max_u(i32x4.shr_u(v128.and(a, k(F_PAYLOAD)), shift), one);
  const nan = i32x4.add(select(c(p, Slot.nanNegative), c(p, Slot.nanPositive), neg), v128.and(c(p, Slot.keepPayload), i32x4.add(payload, c(p, Slot.keepOffset))));
  code = select(nan, code, i32x4.gt_s(a, k(F_INF)));
  // ml_dtypes float8_e8m0fnu: positive float32 subnormals give MinPositive up to its value, the next code above.
  const quirk = v128.andnot(v128.and(c(p, Slot.quirk), subnormal32), v128.or(neg, zeroIn));
  return select(i32x4.sub(c(p, Slot.minPositive), i32x4.gt_s(a, c(p, Slot.quirkThreshold))), code, quirk);
}

/** R << (32 − N) for the four elements starting at element i (absolute index first + i). */
// @ts-ignore: decorator
@inline
function random4(kind: i32, rnd: usize, i: usize, first: u32, rShift: i32, fields: i32, key0: v128, key1: v128, rmask: v128): v128 {
  if (kind == RandomSource.seed) return v128.and(seededLanes(i32x4.add(i32x4.splat(first + <u32>i), laneOffsets()), fields, key0, key1), rmask);
  if (kind == RandomSource.u8) return i32x4.shl(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(rnd + i))), rShift);
  if (kind == RandomSource.u16) return i32x4.shl(i32x4.extend_low_i16x8_u(v128.load64_zero(rnd + (i << 1))), rShift);
  if (kind == RandomSource.u32) return i32x4.shl(v128.load(rnd + (i << 2)), rShift);
  return i32x4.splat(0);
}

/** Encodes 16 elements starting at element i. */
// @ts-ignore: decorator
@inline
function block16(p: usize, src: usize, dst: usize, rnd: usize, i: usize, first: u32, kind: i32, wide: bool, stageC: bool, shift: i32, nuShift: i32, cShift: i32, rShift: i32, fields: i32, key0: v128, key1: v128, rmask: v128): void {
  const s = src + (i << 2);
  const stochastic = kind != RandomSource.none;
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
export function run(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize, kind: i32, wide: bool, stageC: bool): void {
  const shift = scalar(p, Scalar.shift);
  const nuShift = scalar(p, Scalar.fractionShift);
  const cShift = scalar(p, Scalar.cShift);
  const rShift = scalar(p, Scalar.randomShift);
  const fields = scalar(p, Scalar.fields);
  const key0 = c(p, Slot.key0);
  const key1 = c(p, Slot.key1);
  const rmask = c(p, Slot.randomMask);
  let i: usize = 0;
  for (; i + 16 <= n; i += 16) block16(p, src, dst, rnd, i, first, kind, wide, stageC, shift, nuShift, cShift, rShift, fields, key0, key1, rmask);
  if (i == n) return;
  // Tail: copy the rest (and its R) into a zero-padded block, encode it whole, copy the codes back.
  const rest = n - i;
  const rBytes: usize = kind == RandomSource.u8 ? 1 : kind == RandomSource.u16 ? 2 : 4;
  memory.fill((p + TAIL_AT), 0, 128);
  memory.copy((p + TAIL_AT), src + (i << 2), rest << 2);
  if (kind >= RandomSource.u8) memory.copy((p + TAIL_AT + 64), rnd + i * rBytes, rest * rBytes);
  block16(p, (p + TAIL_AT), (p + TAIL_AT + 128), (p + TAIL_AT + 64), 0, first + <u32>i, kind, wide, stageC, shift, nuShift, cShift, rShift, fields, key0, key1, rmask);
  memory.copy(dst + (wide ? i << 1 : i), (p + TAIL_AT + 128), wide ? rest << 1 : rest);
}