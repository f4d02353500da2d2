// Exact values of block-scaled codes (src/checkpoint/decode.ts readRange is the reference and holds the exactness
// argument): per element the code's value times its block's factor (scale × the recipe's multiplier, an exact
// float64 product), divided by a global divisor when there is one; a NaN code keeps the table's NaN as it is. Written
// as float64 (the exact values), as float32 rounded to nearest even (the one rounding into float32), or as float32
// rounded to odd (src/exact/round-to-odd.ts: then one rounding into any format of ≤ 22 bits of precision).
import { ODD_LIMIT, beyondOdd32x4, laneTotal, nearest32x4, toOdd32, toOdd32x4 } from "./odd";

/** Output forms of scaledValues. */
const FLOAT64 = 0;
const FLOAT32 = 1;
const FLOAT32_ODD = 2;

/**
 * dst[i] = table[codes[i]] · factors[b] (÷ g when g ≠ 0) for n byte codes of a tensor with rows of K elements and
 * blocks of bh rows × width columns; the first element sits at `column` of a row that is row `phase` of its block
 * row, whose cols = ⌈K / width⌉ factors come first in `factors`. Returns how many values are NaN or at least 2^128
 * in magnitude (what rounding to odd does not carry).
 */
export function scaledValues(codes: usize, n: usize, column: i32, phase: i32, K: i32, width: i32, bh: i32, factors: usize, table: usize, g: f64, dst: usize, form: i32): i32 {
  // One loop per form and divisor (constant arguments of the inlined body): no test of them per element.
  if (g != 0) {
    if (form == FLOAT64) return each(codes, n, column, phase, K, width, bh, factors, table, g, dst, FLOAT64, true);
    if (form == FLOAT32) return each(codes, n, column, phase, K, width, bh, factors, table, g, dst, FLOAT32, true);
    return each(codes, n, column, phase, K, width, bh, factors, table, g, dst, FLOAT32_ODD, true);
  }
  if (form == FLOAT64) return each(codes, n, column, phase, K, width, bh, factors, table, g, dst, FLOAT64, false);
  if (form == FLOAT32) return each(codes, n, column, phase, K, width, bh, factors, table, g, dst, FLOAT32, false);
  return each(codes, n, column, phase, K, width, bh, factors, table, g, dst, FLOAT32_ODD, false);
}

// @ts-ignore: decorator
@inline
function each(codes: usize, n: usize, column: i32, phase: i32, K: i32, width: i32, bh: i32, factors: usize, table: usize, g: f64, dst: usize, form: i32, divide: bool): i32 {
  const cols = (K + width - 1) / width;
  const gv = f64x2.splat(g);
  let beyond = 0;
  let beyondV = i32x4.splat(0);
  let i: usize = 0;
  for (let r = phase; i < n; r++) {
    const rowFactors = factors + ((<usize>(r / bh) * <usize>cols) << 3);
    const rowEnd = min<usize>(n, i + <usize>(K - column));
    while (i < rowEnd) {
      const b = column / width;
      const f = load<f64>(rowFactors + (<usize>b << 3));
      const end = min<usize>(rowEnd, i + <usize>((b + 1) * width - column));
      // Four elements per step: the same products, quotients and roundings in float64x2 lanes.
      const fv = f64x2.splat(f);
      for (; i + 4 <= end; i += 4) {
        const c = codes + i;
        const v0 = f64x2.replace_lane(f64x2.splat(load<f64>(table + (<usize>load<u8>(c) << 3))), 1, load<f64>(table + (<usize>load<u8>(c, 1) << 3)));
        const v1 = f64x2.replace_lane(f64x2.splat(load<f64>(table + (<usize>load<u8>(c, 2) << 3))), 1, load<f64>(table + (<usize>load<u8>(c, 3) << 3)));
        let x0 = f64x2.mul(v0, fv);
        let x1 = f64x2.mul(v1, fv);
        if (divide) {
          x0 = f64x2.div(x0, gv);
          x1 = f64x2.div(x1, gv);
        }
        x0 = v128.bitselect(v0, x0, f64x2.ne(v0, v0));
        x1 = v128.bitselect(v1, x1, f64x2.ne(v1, v1));
        if (form == FLOAT64) {
          v128.store(dst + (i << 3), x0);
          v128.store(dst + (i << 3), x1, 16);
        } else {
          v128.store(dst + (i << 2), form == FLOAT32_ODD ? toOdd32x4(x0, x1) : nearest32x4(x0, x1));
          beyondV = i32x4.sub(beyondV, beyondOdd32x4(x0, x1));
        }
      }
      for (; i < end; i++) {
        const v = load<f64>(table + (<usize>load<u8>(codes + i) << 3));
        let x = v * f;
        if (divide) x /= g;
        x = select<f64>(v, x, v != v);
        if (form == FLOAT64) {
          store<f64>(dst + (i << 3), x);
        } else {
          store<i32>(dst + (i << 2), form == FLOAT32_ODD ? toOdd32(x) : reinterpret<i32>(<f32>x));
          beyond += i32(!(abs<f64>(x) < ODD_LIMIT));
        }
      }
      column = (b + 1) * width;
    }
    column = 0;
  }
  return beyond + laneTotal(beyondV);
}
