// Dot products of 8-bit codes with narrow partial sums (seed 004), batched over row pairs. The host uploads a
// 65536-entry float32 table of the rounded products (index a·256 + b, overflow mode already applied: every
// rounded product of a ≤ 24-bit partials format is a float32), and checks that float64 block sums are exact;
// the kernel then sums each block exactly (SIMD: 16 table lookups into f32 lanes, widened to float64x2 sums; exact
// sums are order-independent), applies
// the block's power-of-two scales, projects the block sum into the partials and adds it to the running total,
// projected after every addition: exactly src/dot/reference.ts.

// @ts-ignore: decorator
@inline function pow2(e: i32): f64 {
  // 2^e for −1022 ≤ e ≤ 1023 (callers stay inside).
  return reinterpret<f64>(<u64>(e + 1023) << 52);
}

/**
 * RNE at precision P with quantum ≥ 2^minQ and unbounded exponent; then |v| > maxv gives maxv (mode 0), ∞ (1)
 * or NaN (2). Equal to roundNearestEven/projectPartial of src/dot/partials.ts (tested bit for bit), computed on
 * the float64 bits: at or above MinNormal = 2^(minQ+P−1), add half an ulp minus one plus the kept LSB and clear
 * the m = 53 − P dropped bits (a carry moves into the exponent; +∞ stays +∞); below it, (a + C) − C with
 * C = 2^(minQ+52) rounds to the quantum 2^minQ by one correctly rounded float64 addition.
 */
// @ts-ignore: decorator
@inline function project(x: f64, m: u64, half: u64, mask: u64, minNormal: f64, C: f64, maxv: f64, mode: i32): f64 {
  // No special cases needed: NaN and ±0 take the float path unchanged ((NaN + C) − C = NaN, (0 + C) − C = 0, the
  // sign restored by copysign), ±∞ keeps its bits through the integer path and then overflows.
  const a = abs(x);
  let v: f64;
  if (a >= minNormal) {
    const b = reinterpret<u64>(a);
    v = reinterpret<f64>((b + half + ((b >> m) & 1)) & mask);
  } else {
    v = (a + C) - C;
  }
  if (v > maxv) {
    if (mode == 0) v = maxv;
    else if (mode == 1) v = Infinity;
    else return NaN;
  }
  return copysign(v, x);
}

/** Power-of-two scale exponent of an E8M0 code (0xFF = NaN: returns 1024, the host never sends larger). */
// @ts-ignore: decorator
@inline function scaleExp(code: u32): i32 {
  return code == 0xff ? 1024 : <i32>code - 127;
}

/**
 * out[i·n + j] (float32) = dot(a row i, b row j) over k codes, for i < m, j < n; rows are k bytes apart.
 * Scales: stride 0 = none, 1 = one E8M0 code per row, 2 = one per row and block (`blocks` per row).
 * pairs = 1: only the pairs (i, i), written to out[i] (row-wise dot products; n = m).
 */
export function dotBatch(
  a: usize, b: usize, k: i32, m: i32, n: i32, table: usize, blk: i32,
  P: i32, minQ: i32, maxv: f64, mode: i32,
  sa: usize, saStride: i32, sb: usize, sbStride: i32, blocks: i32, out: usize, pairs: i32,
): void {
  const dropped = <u64>(53 - P);
  const half = (<u64>1 << (dropped - 1)) - 1;
  const mask = ~((<u64>1 << dropped) - 1);
  const minNormal = pow2(minQ + P - 1);
  const C = pow2(minQ + 52);
  const zero = f64x2.splat(0);
  for (let i = 0; i < m; i++) {
    const pa = a + <usize>i * <usize>k;
    const j0 = pairs ? i : 0;
    const j1 = pairs ? i + 1 : n;
    for (let j = j0; j < j1; j++) {
      const pb = b + <usize>j * <usize>k;
      let total: f64 = 0;
      let kb = 0;
      for (let start = 0; start < k; start += blk) {
        const end = min(k, start + blk);
        let s0: f64 = 0, s1: f64 = 0, s2: f64 = 0, s3: f64 = 0;
        let acc0 = zero, acc1 = zero, acc2 = zero, acc3 = zero;
        let t = start;
        // 16 products at a time: the u16 indices a·256 + b by one interleaving shuffle per 8, each table entry
        // loaded into an f32 lane, widened to float64 pairs and added (sums are exact, so any order is the same).
        for (; t + 16 <= end; t += 16) {
          const x = v128.load(pa + <usize>t);
          const y = v128.load(pb + <usize>t);
          const lo = i8x16.shuffle(y, x, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
          const hi = i8x16.shuffle(y, x, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
          let g00 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(lo, 0) << 2), zero, 0);
          g00 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(lo, 1) << 2), g00, 1);
          g00 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(lo, 2) << 2), g00, 2);
          g00 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(lo, 3) << 2), g00, 3);
          acc0 = f64x2.add(acc0, f64x2.promote_low_f32x4(g00));
          acc1 = f64x2.add(acc1, f64x2.promote_low_f32x4(i32x4.shuffle(g00, g00, 2, 3, 0, 1)));
          let g01 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(lo, 4) << 2), zero, 0);
          g01 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(lo, 5) << 2), g01, 1);
          g01 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(lo, 6) << 2), g01, 2);
          g01 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(lo, 7) << 2), g01, 3);
          acc2 = f64x2.add(acc2, f64x2.promote_low_f32x4(g01));
          acc3 = f64x2.add(acc3, f64x2.promote_low_f32x4(i32x4.shuffle(g01, g01, 2, 3, 0, 1)));
          let g10 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(hi, 0) << 2), zero, 0);
          g10 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(hi, 1) << 2), g10, 1);
          g10 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(hi, 2) << 2), g10, 2);
          g10 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(hi, 3) << 2), g10, 3);
          acc0 = f64x2.add(acc0, f64x2.promote_low_f32x4(g10));
          acc1 = f64x2.add(acc1, f64x2.promote_low_f32x4(i32x4.shuffle(g10, g10, 2, 3, 0, 1)));
          let g11 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(hi, 4) << 2), zero, 0);
          g11 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(hi, 5) << 2), g11, 1);
          g11 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(hi, 6) << 2), g11, 2);
          g11 = v128.load32_lane(table + (<usize>i16x8.extract_lane_u(hi, 7) << 2), g11, 3);
          acc2 = f64x2.add(acc2, f64x2.promote_low_f32x4(g11));
          acc3 = f64x2.add(acc3, f64x2.promote_low_f32x4(i32x4.shuffle(g11, g11, 2, 3, 0, 1)));
        }
        const acc = f64x2.add(f64x2.add(acc0, acc1), f64x2.add(acc2, acc3));
        s0 += f64x2.extract_lane(acc, 0);
        s1 += f64x2.extract_lane(acc, 1);
        for (; t + 4 <= end; t += 4) {
          const x = load<u32>(pa + <usize>t);
          const y = load<u32>(pb + <usize>t);
          s0 += <f64>load<f32>(table + ((((x & 0xff) << 8) | (y & 0xff)) << 2));
          s1 += <f64>load<f32>(table + ((((x >> 8) & 0xff) << 8 | ((y >> 8) & 0xff)) << 2));
          s2 += <f64>load<f32>(table + ((((x >> 16) & 0xff) << 8 | ((y >> 16) & 0xff)) << 2));
          s3 += <f64>load<f32>(table + (((x >> 24) << 8 | (y >> 24)) << 2));
        }
        for (; t < end; t++) {
          s0 += <f64>load<f32>(table + ((<usize>load<u8>(pa + <usize>t) << 8 | <usize>load<u8>(pb + <usize>t)) << 2));
        }
        let s = (s0 + s1) + (s2 + s3);
        if (saStride | sbStride) {
          const ea = saStride == 0 ? 0 : scaleExp(load<u8>(sa + <usize>(saStride == 1 ? i : i * blocks + kb)));
          const eb = sbStride == 0 ? 0 : scaleExp(load<u8>(sb + <usize>(sbStride == 1 ? j : j * blocks + kb)));
          if (ea == 1024 || eb == 1024) s = NaN;
          else s = s * pow2(ea) * pow2(eb);
        }
        total = project(total + project(s, dropped, half, mask, minNormal, C, maxv, mode), dropped, half, mask, minNormal, C, maxv, mode);
        kb++;
      }
      store<f32>(out + ((pairs ? <usize>i : <usize>i * <usize>n + <usize>j) << 2), <f32>(total == 0 ? 0 : total));
    }
  }
}
