// Exact values of block-scaled codes as float64 (src/checkpoint/decode.ts readRange is the reference and holds the
// exactness argument): per element the code's value times its block's factor (scale × the recipe's multiplier, an
// exact float64 product), divided by a global divisor when there is one. A NaN code keeps the table's NaN as it is.

/**
 * dst[i] = table[codes[i]] · factors[b] (÷ g when g ≠ 0) for n byte codes of a tensor with rows of K elements and
 * blocks of bh rows × width columns; the first element sits at `column` of a row that is row `phase` of its block
 * row, whose cols = ⌈K / width⌉ factors come first in `factors`.
 */
export function scaledValues64(codes: usize, n: usize, column: i32, phase: i32, K: i32, width: i32, bh: i32, factors: usize, table: usize, g: f64, dst: usize): void {
  const cols = (K + width - 1) / width;
  let i: usize = 0;
  for (let r = phase; i < n; r++) {
    const rowFactors = factors + ((<usize>(r / bh) * <usize>cols) << 3);
    const rowEnd = min<usize>(n, i + <usize>(K - column));
    while (i < rowEnd) {
      const b = column / width;
      const f = load<f64>(rowFactors + (<usize>b << 3));
      const end = min<usize>(rowEnd, i + <usize>((b + 1) * width - column));
      for (; i < end; i++) {
        const v = load<f64>(table + (<usize>load<u8>(codes + i) << 3));
        let x = v * f;
        if (g != 0) x /= g;
        store<f64>(dst + (i << 3), v != v ? v : x);
      }
      column = (b + 1) * width;
    }
    column = 0;
  }
}
