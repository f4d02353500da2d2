// Per-block passes of the checkpoint producers over a band of rows of a [N, K] weight: blocks of bh rows × width
// columns, block (r, b) of row r at index ⌊r / bh⌋·cols + b with cols = ⌈K / width⌉ (the last block of a row may be
// partial). src/checkpoint/produce.ts runs the same loops in TypeScript when the kernels are unavailable; the two
// agree bit for bit (IEEE float32 division and product, each correctly rounded).

/** Mode bits of scaleBlocks. */
const MULTIPLY = 1;
const PLUS_ZERO = 2;

/**
 * amax[block] = max(amax[block], |x|) over `rows` rows of K float32 values at x, amax held as float32 bits (|x| orders
 * as its bits). Returns the index of the first element that is ±∞ or NaN (the blocks up to it are updated), or −1.
 */
export function amaxBlocks(x: usize, rows: i32, K: i32, width: i32, bh: i32, amax: usize): i32 {
  const cols = (K + width - 1) / width;
  const absMask = i32x4.splat(0x7fffffff);
  for (let r = 0; r < rows; r++) {
    const row = x + ((<usize>r * <usize>K) << 2);
    const blocks = amax + ((<usize>(r / bh) * <usize>cols) << 2);
    for (let b = 0; b < cols; b++) {
      const from = b * width;
      const to = min(K, from + width);
      let top = i32x4.splat(0);
      let i = from;
      for (; i + 4 <= to; i += 4) top = i32x4.max_u(top, v128.and(v128.load(row + (<usize>i << 2)), absMask));
      let m = max(max(i32x4.extract_lane(top, 0), i32x4.extract_lane(top, 1)), max(i32x4.extract_lane(top, 2), i32x4.extract_lane(top, 3)));
      for (; i < to; i++) m = max(m, load<i32>(row + (<usize>i << 2)) & 0x7fffffff);
      if (m >= 0x7f800000) {
        for (let j = from; ; j++) if ((load<i32>(row + (<usize>j << 2)) & 0x7fffffff) >= 0x7f800000) return r * K + j;
      }
      const slot = blocks + (<usize>b << 2);
      store<i32>(slot, max(load<i32>(slot), m));
    }
  }
  return -1;
}

/**
 * y = x / factor[block], or x · factor[block] (mode MULTIPLY), over `rows` rows of K float32 values; with PLUS_ZERO
 * then + 0, which turns −0 into +0 and leaves every other value as it is. y may be x. Only finite nonzero factors:
 * with any other (a NaN quotient's sign is the engine's choice) it writes nothing and returns false.
 */
export function scaleBlocks(x: usize, y: usize, rows: i32, K: i32, width: i32, bh: i32, factor: usize, mode: i32): bool {
  const cols = (K + width - 1) / width;
  // |f| − 1 as unsigned bits is below those of MaxFinite exactly for finite nonzero f (0 wraps; ∞ and NaN are above).
  const count = <usize>((rows + bh - 1) / bh) * <usize>cols;
  for (let k: usize = 0; k < count; k++) if ((load<u32>(factor + (k << 2)) & 0x7fffffff) - 1 >= 0x7f7fffff) return false;
  const multiply = (mode & MULTIPLY) != 0;
  const zero = (mode & PLUS_ZERO) != 0 ? f32x4.splat(0) : f32x4.splat(-0.0);
  for (let r = 0; r < rows; r++) {
    const offset = (<usize>r * <usize>K) << 2;
    const src = x + offset;
    const dst = y + offset;
    const factors = factor + ((<usize>(r / bh) * <usize>cols) << 2);
    for (let b = 0; b < cols; b++) {
      const f = load<f32>(factors + (<usize>b << 2));
      const fv = f32x4.splat(f);
      const to = min(K, (b + 1) * width);
      let i = b * width;
      // x + (−0) is x for every x (−0 included), so the no-PLUS_ZERO form adds −0 and stays one loop.
      if (multiply) for (; i + 4 <= to; i += 4) v128.store(dst + (<usize>i << 2), f32x4.add(f32x4.mul(v128.load(src + (<usize>i << 2)), fv), zero));
      else for (; i + 4 <= to; i += 4) v128.store(dst + (<usize>i << 2), f32x4.add(f32x4.div(v128.load(src + (<usize>i << 2)), fv), zero));
      const z = f32x4.extract_lane(zero, 0);
      for (; i < to; i++) {
        const v = load<f32>(src + (<usize>i << 2));
        store<f32>(dst + (<usize>i << 2), (multiply ? v * f : v / f) + z);
      }
    }
  }
  return true;
}
