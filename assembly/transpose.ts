// [K, N] float32 → [N, K]: gpt-oss stores its expert weights [E, K, N] and they are quantized as [N, K]
// (src/checkpoint/produce.ts transpose is the reference). 4×4 tiles moved by shuffles inside 32×32 blocks that stay
// in cache; the edges (K or N not a multiple of 4) element by element.

// @ts-ignore: decorator
@inline
function tile(src: usize, dst: usize, k: i32, n: i32, K: i32, N: i32): void {
  const a = v128.load(src + ((<usize>k * <usize>N + <usize>n) << 2));
  const b = v128.load(src + ((<usize>(k + 1) * <usize>N + <usize>n) << 2));
  const c = v128.load(src + ((<usize>(k + 2) * <usize>N + <usize>n) << 2));
  const d = v128.load(src + ((<usize>(k + 3) * <usize>N + <usize>n) << 2));
  const ab01 = i8x16.shuffle(a, b, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23); // a0 b0 a1 b1
  const ab23 = i8x16.shuffle(a, b, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31); // a2 b2 a3 b3
  const cd01 = i8x16.shuffle(c, d, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const cd23 = i8x16.shuffle(c, d, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const row = (<usize>n * <usize>K + <usize>k) << 2;
  const step = <usize>K << 2;
  v128.store(dst + row, i8x16.shuffle(ab01, cd01, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
  v128.store(dst + row + step, i8x16.shuffle(ab01, cd01, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
  v128.store(dst + row + 2 * step, i8x16.shuffle(ab23, cd23, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
  v128.store(dst + row + 3 * step, i8x16.shuffle(ab23, cd23, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
}

/** dst[n·K + k] = src[k·N + n] for k < K, n < N (float32 bits; src and dst do not overlap). */
export function transpose32(src: usize, K: i32, N: i32, dst: usize): void {
  const K4 = K & ~3;
  const N4 = N & ~3;
  for (let k0 = 0; k0 < K4; k0 += 32) {
    const k1 = min(K4, k0 + 32);
    for (let n0 = 0; n0 < N4; n0 += 32) {
      const n1 = min(N4, n0 + 32);
      for (let k = k0; k < k1; k += 4) for (let n = n0; n < n1; n += 4) tile(src, dst, k, n, K, N);
    }
  }
  for (let k = 0; k < K; k++) {
    for (let n = k < K4 ? N4 : 0; n < N; n++) store<u32>(dst + ((<usize>n * <usize>K + <usize>k) << 2), load<u32>(src + ((<usize>k * <usize>N + <usize>n) << 2)));
  }
}
