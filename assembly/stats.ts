// Quantization error sums of float32 inputs x against their dequantized results y, and the count of inputs beyond
// the overflow thresholds, in one pass. The sums are defined by their order (src/cli/stats.ts errorSumsReference
// computes the same): element i adds to lane i mod 4 of each sum, in index order; the host adds the lanes as
// (s0 + s2) + (s1 + s3) at the end. Inputs that are NaN or ±∞ are not measured (they add +0 and count nowhere).
//
// state (f64): [0..3] Σ e² lanes, [4..7] Σ x² lanes, [8] max e, [9] measured, [10] flushed, [11] overflowed, where
// e = |y − x| in float64. Calls accumulate into it, so a host may cut one array into chunks of multiples of 4.
// Overflow: x > above or x < below (float32 thresholds the host derived exactly from its float64 ones).

// @ts-ignore: decorator
@inline
function upper(v: v128): v128 {
  return i8x16.shuffle(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15);
}

// @ts-ignore: decorator
@inline
function laneSum(v: v128): f64 {
  return <f64>(i32x4.extract_lane(v, 0) + i32x4.extract_lane(v, 1) + i32x4.extract_lane(v, 2) + i32x4.extract_lane(v, 3));
}

/**
 * Accumulates the sums of n elements of x and y (float32) into state (see the file comment). Overflow is x > above
 * or x < below, strictly: the host turns an inclusive threshold into the next float32 toward zero.
 */
export function errorSumsF32(x: usize, y: usize, n: usize, state: usize, above: f32, below: f32): void {
  const kInf = f32x4.splat(Infinity);
  const kZero = f32x4.splat(0);
  const kAbove = f32x4.splat(above);
  const kBelow = f32x4.splat(below);
  let sseLo = v128.load(state), sseHi = v128.load(state, 16);
  let ssqLo = v128.load(state, 32), ssqHi = v128.load(state, 48);
  let top = f64x2.splat(load<f64>(state, 64));
  let measured = i32x4.splat(0), flushed = i32x4.splat(0), overflowed = i32x4.splat(0);
  let i: usize = 0;
  for (; i + 4 <= n; i += 4) {
    const xv = v128.load(x + (i << 2));
    const yv = v128.load(y + (i << 2));
    const finite = f32x4.lt(f32x4.abs(xv), kInf);
    measured = i32x4.sub(measured, finite);
    flushed = i32x4.sub(flushed, v128.and(finite, v128.andnot(f32x4.eq(yv, kZero), f32x4.eq(xv, kZero))));
    overflowed = i32x4.sub(overflowed, v128.and(finite, v128.or(f32x4.gt(xv, kAbove), f32x4.lt(xv, kBelow))));
    // Lanes of non-finite x become +0 in both operands: e = +0 and x² = +0, what the sums add for them.
    const xm = v128.and(xv, finite);
    const ym = v128.and(yv, finite);
    const xLo = f64x2.promote_low_f32x4(xm);
    const yLo = f64x2.promote_low_f32x4(ym);
    const xHi = f64x2.promote_low_f32x4(upper(xm));
    const yHi = f64x2.promote_low_f32x4(upper(ym));
    const eLo = f64x2.abs(f64x2.sub(yLo, xLo));
    const eHi = f64x2.abs(f64x2.sub(yHi, xHi));
    sseLo = f64x2.add(sseLo, f64x2.mul(eLo, eLo));
    sseHi = f64x2.add(sseHi, f64x2.mul(eHi, eHi));
    ssqLo = f64x2.add(ssqLo, f64x2.mul(xLo, xLo));
    ssqHi = f64x2.add(ssqHi, f64x2.mul(xHi, xHi));
    // pmax is one instruction (max is several: NaN and signed zeros); a NaN e is restored below.
    top = f64x2.pmax(top, f64x2.pmax(eLo, eHi));
  }
  v128.store(state, sseLo);
  v128.store(state, sseHi, 16);
  v128.store(state, ssqLo, 32);
  v128.store(state, ssqHi, 48);
  // e ≥ 0 or NaN, so a lane of Σ e² is NaN exactly when some e was (here, or in an earlier call whose max it holds).
  const nan = f64x2.ne(f64x2.add(sseLo, sseHi), f64x2.add(sseLo, sseHi));
  let m = v128.any_true(nan) ? NaN : max<f64>(f64x2.extract_lane(top, 0), f64x2.extract_lane(top, 1));
  let nMeasured = laneSum(measured);
  let nFlushed = laneSum(flushed);
  let nOverflowed = laneSum(overflowed);
  for (; i < n; i++) {
    const xs = load<f32>(x + (i << 2));
    if (!(abs<f32>(xs) < Infinity)) continue;
    const ys = load<f32>(y + (i << 2));
    const xd = <f64>xs;
    const e = abs<f64>(<f64>ys - xd);
    const lane = state + ((i & 3) << 3);
    store<f64>(lane, load<f64>(lane) + e * e);
    store<f64>(lane, load<f64>(lane, 32) + xd * xd, 32);
    m = max<f64>(m, e);
    nMeasured += 1;
    if (ys == 0 && xs != 0) nFlushed += 1;
    if (xs > above || xs < below) nOverflowed += 1;
  }
  store<f64>(state, m, 64);
  store<f64>(state, load<f64>(state, 72) + nMeasured, 72);
  store<f64>(state, load<f64>(state, 80) + nFlushed, 80);
  store<f64>(state, load<f64>(state, 88) + nOverflowed, 88);
}
