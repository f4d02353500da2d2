// SIMD operations with a relaxed-SIMD form, for the one set of kernel sources built twice (scripts/build.mjs): with
// `--enable relaxed-simd` (ASC_FEATURE_RELAXED_SIMD, a compile-time constant) they emit the relaxed instruction,
// otherwise the strict one. Each caller guarantees the precondition under which the relaxed result is fully
// determined by the spec, so both builds give the same bits on every engine (x86 and ARM).

/**
 * v128.bitselect(a, b, mask) for masks whose every byte is 0x00 or 0xFF (comparison results and all-ones/zero
 * constants; the relaxed form may pick by the top bit of a lane only). V8 on x64: one blend instead of and/andnot/or.
 */
// @ts-ignore: decorator
@inline
export function select(a: v128, b: v128, mask: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return i8x16.relaxed_laneselect(a, b, mask);
  return v128.bitselect(a, b, mask);
}

/**
 * i32x4.trunc_sat_f32x4_s for lanes that are finite and in i32 range, or whose result the caller discards (the
 * relaxed form returns an engine-chosen value for NaN and out-of-range lanes). V8 on x64: cvttps2dq alone instead of
 * the NaN and overflow fix-ups.
 */
// @ts-ignore: decorator
@inline
export function truncS(x: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return i32x4.relaxed_trunc_f32x4_s(x);
  return i32x4.trunc_sat_f32x4_s(x);
}
