// Quantization error sums of float32 inputs x against their dequantized results y, and the count of inputs beyond
// the overflow thresholds, in one pass. The sums are defined by their order (src/io/error-sums.ts errorSumsReference
// computes the same): element i adds to lane i mod 4 of each sum, in index order; the host adds the lanes as
// (s0 + s2) + (s1 + s3) at the end. Inputs that are NaN or ±∞ are not measured (they add +0 and count nowhere).
//
// state (f64): [0..3] Σ e² lanes, [4..7] Σ x² lanes, [8] max e, [9] measured, [10] flushed, [11] overflowed, where
// e = |y − x| in float64; then (bytes 96…223) the kernel's scratch block. Calls accumulate into it, so a host may cut
// one array into chunks of multiples of 4.
// Overflow: x > above or x < below (float32 thresholds the host derived exactly from its float64 ones).

const SCRATCH_X = 96;
const SCRATCH_Y = 160;
/** Lane numbers 0…3, for the lanes of a short block that hold elements. */
const LANES = memory.data<i32>([0, 1, 2, 3], 16);

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
 * or x < below, strictly: the host turns an inclusive threshold into the next float32 toward zero. Blocks of 16
 * inputs all finite and within [below, above] (the common case; NaN fails both compares) are summed in place; any
 * other block (and the last, short one) is first copied to the scratch block with its non-finite inputs and the
 * lanes past n as +0 in x and y, which add +0 and are not flushes, and counted there. No call inside the loop: V8
 * would keep the sums in memory around it (0.8× with memory.copy for the short block).
 */
export function errorSumsF32(x: usize, y: usize, n: usize, state: usize, above: f32, below: f32): void {
  const kInf = f32x4.splat(Infinity);
  const kZero = f32x4.splat(0);
  const kAbove = f32x4.splat(above);
  const kBelow = f32x4.splat(below);
  const kIn = f32x4.splat(min<f32>(above, f32.MAX_VALUE));
  const kInNeg = f32x4.splat(max<f32>(below, -f32.MAX_VALUE));
  const sx = state + SCRATCH_X;
  const sy = state + SCRATCH_Y;
  let sseLo = v128.load(state), sseHi = v128.load(state, 16);
  let ssqLo = v128.load(state, 32), ssqHi = v128.load(state, 48);
  let top = f64x2.splat(load<f64>(state, 64));
  let measured = i32x4.splat(0), flushed = i32x4.splat(0), overflowed = i32x4.splat(0);
  let plain: usize = 0;
  for (let i: usize = 0; i < n; i += 16) {
    let p = x + (i << 2);
    let q = y + (i << 2);
    const take = min<usize>(16, n - i);
    let inRange = false;
    if (take == 16) {
      const x0 = v128.load(p), x1 = v128.load(p, 16), x2 = v128.load(p, 32), x3 = v128.load(p, 48);
      const in01 = v128.and(v128.and(f32x4.le(x0, kIn), f32x4.ge(x0, kInNeg)), v128.and(f32x4.le(x1, kIn), f32x4.ge(x1, kInNeg)));
      const in23 = v128.and(v128.and(f32x4.le(x2, kIn), f32x4.ge(x2, kInNeg)), v128.and(f32x4.le(x3, kIn), f32x4.ge(x3, kInNeg)));
      inRange = i32x4.all_true(v128.and(in01, in23));
    }
    if (inRange) plain += 16;
    else {
      if (take < 16) {
        // The short last block, element by element (no call in the loop: V8 would spill the sums around it).
        const zero = i32x4.splat(0);
        for (let j: usize = 0; j < 64; j += 16) {
          v128.store(sx + j, zero);
          v128.store(sy + j, zero);
        }
        for (let j: usize = 0; j < take; j++) {
          store<u32>(sx + (j << 2), load<u32>(p + (j << 2)));
          store<u32>(sy + (j << 2), load<u32>(q + (j << 2)));
        }
        p = sx;
        q = sy;
      }
      for (let j: usize = 0; j < 16; j += 4) {
        const xv = v128.load(p + (j << 2));
        const yv = v128.load(q + (j << 2));
        const held = i32x4.lt_s(i32x4.add(v128.load(LANES), i32x4.splat(<i32>j)), i32x4.splat(<i32>take));
        const finite = v128.and(f32x4.lt(f32x4.abs(xv), kInf), held);
        measured = i32x4.sub(measured, finite);
        overflowed = i32x4.sub(overflowed, v128.and(finite, v128.or(f32x4.gt(xv, kAbove), f32x4.lt(xv, kBelow))));
        v128.store(sx + (j << 2), v128.and(xv, finite));
        v128.store(sy + (j << 2), v128.and(yv, finite));
      }
      p = sx;
      q = sy;
    }
    for (let j: usize = 0; j < 64; j += 16) {
      const xv = v128.load(p + j);
      const yv = v128.load(q + j);
      flushed = i32x4.sub(flushed, v128.andnot(f32x4.eq(yv, kZero), f32x4.eq(xv, kZero)));
      const xLo = f64x2.promote_low_f32x4(xv);
      const yLo = f64x2.promote_low_f32x4(yv);
      const xHi = f64x2.promote_low_f32x4(upper(xv));
      const yHi = f64x2.promote_low_f32x4(upper(yv));
      const eLo = f64x2.abs(f64x2.sub(yLo, xLo));
      const eHi = f64x2.abs(f64x2.sub(yHi, xHi));
      sseLo = f64x2.add(sseLo, f64x2.mul(eLo, eLo));
      sseHi = f64x2.add(sseHi, f64x2.mul(eHi, eHi));
      ssqLo = f64x2.add(ssqLo, f64x2.mul(xLo, xLo));
      ssqHi = f64x2.add(ssqHi, f64x2.mul(xHi, xHi));
      // pmax is one instruction (max is several: NaN and signed zeros); a NaN e is restored below.
      top = f64x2.pmax(top, f64x2.pmax(eLo, eHi));
    }
  }
  v128.store(state, sseLo);
  v128.store(state, sseHi, 16);
  v128.store(state, ssqLo, 32);
  v128.store(state, ssqHi, 48);
  // e ≥ 0 or NaN, so a lane of Σ e² is NaN exactly when some e was (here, or in an earlier call whose max it holds).
  const nan = f64x2.ne(f64x2.add(sseLo, sseHi), f64x2.add(sseLo, sseHi));
  store<f64>(state, v128.any_true(nan) ? NaN : max<f64>(f64x2.extract_lane(top, 0), f64x2.extract_lane(top, 1)), 64);
  store<f64>(state, load<f64>(state, 72) + laneSum(measured) + <f64>plain, 72);
  store<f64>(state, load<f64>(state, 80) + laneSum(flushed), 80);
  store<f64>(state, load<f64>(state, 88) + laneSum(overflowed), 88);
}
