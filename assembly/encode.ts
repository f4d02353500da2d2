// Encode kernel: float32 → codes of any format with K ≤ 16 under any rounding and saturation (P3109 §4.7.3–4.7.6).
// The host writes a parameter block (layout: encode-layout.ts, generated from scripts/encode-layout.mjs) whose
// scalar `variant` names the kernel variant: the generic kernel (encode-generic.ts) or a fast one (encode-fast.ts,
// with the magnitudes of encode-deterministic.ts and encode-stochastic.ts). The host picks the variant from the
// constants, never from a format name.
import { BLOCK_BYTES, Fields, RandomSource, Scalar, Slot, Variant } from "./encode-layout";
import { F_ABS, F_ONE, c, k, scalar } from "./encode-common";
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
  const base = Variant.fast | (sizeof<T>() == 2 ? Variant.wide : 0);
  if (sizeof<T>() == 2 && (variant & Variant.keepPayload) != 0) {
    if (variant & Variant.directed) runFast(p, src, dst, n, 0, 0, base | Variant.directed, Fields.words, Payload.keep);
    else runFast(p, src, dst, n, 0, 0, base, Fields.words, Payload.keep);
  } else if (variant & Variant.directed) runFast(p, src, dst, n, 0, 0, base | Variant.directed, Fields.words, Payload.drop);
  else runFast(p, src, dst, n, 0, 0, base, Fields.words, Payload.drop);
}
/**
 * binary32's prefixes (bfloat16) under NearestTiesToEven: the magnitude code is |x|'s top K − 1 bits rounded at bit
 * 32 − K by the integer carry trick (subnormals too: their quantum is float32's, shifted), the sign bit ORed in. A
 * block of 16 where a magnitude reaches the ∞/NaN exponent (an ∞ or NaN input — a NaN's payload may carry past it —,
 * or a carry into ∞'s code, which the saturation mode may clamp) is recomputed by the fast path, as are the last
 * n mod 16 elements. Measured at 16M float32 → bfloat16, zero copy, in one process: 1.8× the fast path.
 */
function prefix(p: usize, src: usize, dst: usize, n: usize, variant: i32): void {
  const shift = scalar(p, Scalar.shift);
  const half = c(p, Slot.fastHalf);
  const top = i32x4.splat(0xff << (23 - shift)); // the magnitude's exponent field all ones
  let i: usize = 0;
  for (; i + 16 <= n; i += 16) {
    const s = src + (i << 2);
    const d = dst + (i << 1);
    const x0 = v128.load(s);
    const x1 = v128.load(s, 16);
    const x2 = v128.load(s, 32);
    const x3 = v128.load(s, 48);
    const m0 = prefixMagnitude(x0, shift, half);
    const m1 = prefixMagnitude(x1, shift, half);
    const m2 = prefixMagnitude(x2, shift, half);
    const m3 = prefixMagnitude(x3, shift, half);
    if (v128.any_true(i32x4.ge_u(i32x4.max_u(i32x4.max_u(m0, m1), i32x4.max_u(m2, m3)), top))) {
      fast<u16>(p, s, d, 16, variant);
      continue;
    }
    v128.store(d, prefixCodes(x0, x1, m0, m1, shift));
    v128.store(d, prefixCodes(x2, x3, m2, m3, shift), 16);
  }
  if (i < n) fast<u16>(p, src + (i << 2), dst + (i << 1), n - i, variant);
}
/** (|x| + half + bit `shift` of |x|) >> shift: the magnitude code of prefix(), below 2^(K−1) for finite x. */
// @ts-ignore: decorator
@inline
function prefixMagnitude(x: v128, shift: i32, half: v128): v128 {
  const a = v128.and(x, k(F_ABS));
  return i32x4.shr_u(i32x4.add(i32x4.add(a, half), v128.and(i32x4.shr_u(a, shift), k(F_ONE))), shift);
}
/** Eight codes of prefix(): magnitudes with x's sign at bit K − 1, the low halves of the lanes. */
// @ts-ignore: decorator
@inline
function prefixCodes(x0: v128, x1: v128, m0: v128, m1: v128, shift: i32): v128 {
  const c0 = v128.or(m0, i32x4.shr_u(v128.andnot(x0, k(F_ABS)), shift));
  const c1 = v128.or(m1, i32x4.shr_u(v128.andnot(x1, k(F_ABS)), shift));
  return i8x16.shuffle(c0, c1, 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29);
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
