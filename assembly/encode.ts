// Encode kernel: float32 → codes of any format with K ≤ 16 under any rounding and saturation (P3109 §4.7.3–4.7.6).
// The host writes a parameter block (layout: encode-layout.ts, generated from scripts/encode-layout.mjs) whose
// scalar `variant` names the kernel variant: the generic kernel (encode-generic.ts) or a fast one (encode-fast.ts,
// with the magnitudes of encode-deterministic.ts and encode-stochastic.ts). The host picks the variant from the
// constants, never from a format name.
import { BLOCK_BYTES, Fields, RandomSource, Scalar, Slot, Variant } from "./encode-layout";
import { F_ABS, c, k, scalar } from "./encode-common";
import { Payload, runFast } from "./encode-fast";
import { run } from "./encode-generic";

// The host passes a block's address to encodeF32, so instances sharing one memory (worker threads) each use their
// own; encodeParams() is the static block of a single-thread host.
const STATIC_BLOCK = memory.data(<i32>BLOCK_BYTES, 16);

/** Address of the static parameter block (for a host whose instance has a memory of its own). */
export function encodeParams(): usize {
  return STATIC_BLOCK;
}

/** Bytes of a parameter block (16-byte aligned), for hosts that allocate one per thread. */
export function encodeParamsBytes(): usize {
  return BLOCK_BYTES;
}

// One Wasm function per group of up to four fast variants: V8 compiled one function with every variant inlined ~4×
// slower (measured), and a runtime StochasticC flag per vector cost spills and branches (10 %). Every runFast call
// spells its variant out: Binaryen specialises an inlined copy only where the flags reach it as plain constants (flags
// ORed together inside a helper, or the fields and payload derived from the flag word, let the copies merge into one
// loop testing them at run time; measured by the loops per function in the .wat).
function fast<T>(p: usize, src: usize, dst: usize, n: usize, variant: i32): void {
  if (variant & Variant.carry) {
    fastCarry<T>(p, src, dst, n, variant);
    return;
  }
  const base = Variant.fast | (sizeof<T>() == 2 ? Variant.wide : 0);
  if (sizeof<T>() == 2 && (variant & Variant.keepPayload) != 0) {
    if (variant & Variant.directed) runFast(p, src, dst, n, 0, 0, base | Variant.directed, Fields.words, Payload.keep);
    else runFast(p, src, dst, n, 0, 0, base, Fields.words, Payload.keep);
  } else if (variant & Variant.directed) runFast(p, src, dst, n, 0, 0, base | Variant.directed, Fields.words, Payload.drop);
  else runFast(p, src, dst, n, 0, 0, base, Fields.words, Payload.drop);
}
// NearestTiesToEven by the integer carry, for the formats the exponent-count form does not hold for.
function fastCarry<T>(p: usize, src: usize, dst: usize, n: usize, variant: i32): void {
  const base = Variant.fast | Variant.carry | (sizeof<T>() == 2 ? Variant.wide : 0);
  if (sizeof<T>() == 2 && (variant & Variant.keepPayload) != 0) runFast(p, src, dst, n, 0, 0, base, Fields.words, Payload.keep);
  else runFast(p, src, dst, n, 0, 0, base, Fields.words, Payload.drop);
}
/**
 * binary32's prefixes (bfloat16) under NearestTiesToEven: the code is the top K bits of x rounded at bit 32 − K by
 * the integer carry trick on x itself (subnormals too: their quantum is float32's, shifted; the sign rides along, as
 * no carry reaches it below the threshold). A block of 16 holding a magnitude that may round into the ∞/NaN exponent
 * (an ∞ or NaN input — a NaN's payload may carry past it —, or a carry into ∞'s code, which the saturation mode may
 * clamp) is recomputed by the fast path, as are the last n mod 16 elements. Every shift is by a constant (V8 spends
 * three instructions on a vector shift by a variable): the round bit is tested by a compare, the codes are the high
 * halves of the lanes (a shuffle), shifted once more per eight codes where K < 16.
 */
function prefix(p: usize, src: usize, dst: usize, n: usize, variant: i32): void {
  if (scalar(p, Scalar.shift) == 16) prefixRun(p, src, dst, n, variant, true);
  else prefixRun(p, src, dst, n, variant, false);
}
// @ts-ignore: decorator
@inline
function prefixRun(p: usize, src: usize, dst: usize, n: usize, variant: i32, half16: bool): void {
  const shift = scalar(p, Scalar.shift);
  const half = c(p, Slot.fastHalf);
  const bit = i32x4.splat(1 << shift);
  const abs = k(F_ABS);
  // |x| + half + 1 reaches ∞'s exponent from here up.
  const risky = i32x4.splat(0x7f800000 - (1 << (shift - 1)));
  let i: usize = 0;
  for (; i + 16 <= n; i += 16) {
    const s = src + (i << 2);
    const d = dst + (i << 1);
    const x0 = v128.load(s);
    const x1 = v128.load(s, 16);
    const x2 = v128.load(s, 32);
    const x3 = v128.load(s, 48);
    // Magnitudes are below 2^31: signed compares and maxima (one instruction each on x64).
    const top = i32x4.max_s(i32x4.max_s(v128.and(x0, abs), v128.and(x1, abs)), i32x4.max_s(v128.and(x2, abs), v128.and(x3, abs)));
    if (v128.any_true(i32x4.ge_s(top, risky))) {
      fast<u16>(p, s, d, 16, variant);
      continue;
    }
    v128.store(d, prefixCodes(prefixRound(x0, half, bit), prefixRound(x1, half, bit), shift, half16));
    v128.store(d, prefixCodes(prefixRound(x2, half, bit), prefixRound(x3, half, bit), shift, half16), 16);
  }
  if (i < n) fast<u16>(p, src + (i << 2), dst + (i << 1), n - i, variant);
}
/** x + half + (bit `shift` of x): rounded at bit `shift`, to be truncated (a compare gives −1 where the bit is set). */
// @ts-ignore: decorator
@inline
function prefixRound(x: v128, half: v128, bit: v128): v128 {
  return i32x4.sub(i32x4.add(x, half), i32x4.eq(v128.and(x, bit), bit));
}
/** Eight codes of prefix(): the rounded lanes' top K bits (their high halves, shifted right by 16 − K). */
// @ts-ignore: decorator
@inline
function prefixCodes(r0: v128, r1: v128, shift: i32, half16: bool): v128 {
  const high = i8x16.shuffle(r0, r1, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
  return half16 ? high : i16x8.shr_u(high, shift - 16);
}
// Unsigned P = 1 formats without zero (E8M0), deterministic: codes from thresholds on the float32 bits.
function fastNoZero<T>(p: usize, src: usize, dst: usize, n: usize): void {
  runFast(p, src, dst, n, 0, 0, Variant.fast | Variant.noZero | (sizeof<T>() == 2 ? Variant.wide : 0), Fields.words, Payload.drop);
}
// Seeded R: bytes (N ≤ 8) or halves (N ≤ 16) of the stream words; StochasticC's variants in functions of their own.
// @ts-ignore: decorator
@inline
function seededVariants<T>(p: usize, src: usize, dst: usize, n: usize, first: u32, variant: i32, base: i32): void {
  const bytes = scalar(p, Scalar.fields) == Fields.bytes;
  if (sizeof<T>() == 2 && (variant & Variant.keepPayload) != 0) {
    if (bytes) runFast(p, src, dst, n, first, 0, base, Fields.bytes, Payload.keep);
    else runFast(p, src, dst, n, first, 0, base, Fields.halves, Payload.keep);
  } else if (bytes) runFast(p, src, dst, n, first, 0, base, Fields.bytes, Payload.drop);
  else runFast(p, src, dst, n, first, 0, base, Fields.halves, Payload.drop);
}
function seeded<T>(p: usize, src: usize, dst: usize, n: usize, first: u32, variant: i32): void {
  seededVariants<T>(p, src, dst, n, first, variant, Variant.fast | Variant.stochastic | Variant.seeded | (sizeof<T>() == 2 ? Variant.wide : 0));
}
function seededC<T>(p: usize, src: usize, dst: usize, n: usize, first: u32, variant: i32): void {
  seededVariants<T>(p, src, dst, n, first, variant, Variant.fast | Variant.stochastic | Variant.seeded | Variant.stageC | (sizeof<T>() == 2 ? Variant.wide : 0));
}
function array<T>(p: usize, src: usize, dst: usize, n: usize, rnd: usize, variant: i32): void {
  const base = Variant.fast | Variant.stochastic | (sizeof<T>() == 2 ? Variant.wide : 0);
  if (sizeof<T>() == 2 && (variant & Variant.keepPayload) != 0) {
    if (variant & Variant.stageC) runFast(p, src, dst, n, 0, rnd, base | Variant.stageC, Fields.words, Payload.keep);
    else runFast(p, src, dst, n, 0, rnd, base, Fields.words, Payload.keep);
  } else if (variant & Variant.stageC) runFast(p, src, dst, n, 0, rnd, base | Variant.stageC, Fields.words, Payload.drop);
  else runFast(p, src, dst, n, 0, rnd, base, Fields.words, Payload.drop);
}

// The generic kernel, per code type: deterministic, or stochastic branching on the random source and StochasticC per
// vector (predictable), which keeps the module small: one instantiation per code width instead of eight.
function generic<T>(p: usize, src: usize, dst: usize, n: usize): void {
  run(p, src, dst, n, 0, 0, RandomSource.none, sizeof<T>() == 2, false);
}
function genericRandom<T>(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize, kind: i32, stageC: bool): void {
  run(p, src, dst, n, first, rnd, kind, sizeof<T>() == 2, stageC);
}

/**
 * Encodes n float32 values at src into codes at dst (bytes, or u16 for the wide variants) under the parameter
 * block at `p` (encodeParams(), or a block of encodeParamsBytes() the host allocated: one per thread). `first` is
 * the absolute index of src[0] (seeded random bits); rnd points at the caller's R values (u8/u16/u32 per the block)
 * for this chunk.
 */
export function encodeF32(p: usize, src: usize, dst: usize, n: usize, first: u32, rnd: usize): void {
  const kind = scalar(p, Scalar.random);
  const variant = scalar(p, Scalar.variant);
  const wide = (variant & Variant.wide) != 0;
  const stageC = (variant & Variant.stageC) != 0;
  if (variant & Variant.fast) {
    if (kind == RandomSource.none) {
      if (variant & Variant.noZero) {
        if (wide) fastNoZero<u16>(p, src, dst, n);
        else fastNoZero<u8>(p, src, dst, n);
      } else if (variant & Variant.prefix) prefix(p, src, dst, n, variant);
      else if (wide) fast<u16>(p, src, dst, n, variant);
      else fast<u8>(p, src, dst, n, variant);
    } else if (kind == RandomSource.seed) {
      if (wide) {
        if (stageC) seededC<u16>(p, src, dst, n, first, variant);
        else seeded<u16>(p, src, dst, n, first, variant);
      } else if (stageC) seededC<u8>(p, src, dst, n, first, variant);
      else seeded<u8>(p, src, dst, n, first, variant);
    } else if (wide) array<u16>(p, src, dst, n, rnd, variant);
    else array<u8>(p, src, dst, n, rnd, variant);
  } else if (kind == RandomSource.none) {
    if (wide) generic<u16>(p, src, dst, n);
    else generic<u8>(p, src, dst, n);
  } else if (wide) genericRandom<u16>(p, src, dst, n, first, rnd, kind, stageC);
  else genericRandom<u8>(p, src, dst, n, first, rnd, kind, stageC);
}
