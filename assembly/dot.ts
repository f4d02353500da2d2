// Dot products of 8-bit codes with narrow partial sums, batched over row pairs. The host uploads a
// 65536-entry float32 table of the rounded products (index a·256 + b, overflow mode already applied), and checks
// that float64 block sums are exact; the kernel then sums each block exactly (table lookups widened into four
// float64 accumulators; exact sums are order-independent), applies the block's power-of-two scales, projects the block sum
// into the partials and adds it to the running total, projected after every addition: exactly src/dot/reference.ts.

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
 * The projection when x is a multiple of 2^minQ (or ±∞/NaN): below MinNormal such a value is already on the grid,
 * and the integer RNE above leaves it unchanged too (its dropped bits are zero), so one integer rounding of the
 * float64 bits serves every magnitude, the sign bit riding along (a carry out of the magnitude reaches at most the
 * exponent: finite values round to at most +∞'s bits; ∞ and the NaNs that occur here have zero dropped bits). Then
 * MaxFinite < |v| ≤ limit gives sign | repl: OvSAT repl = MaxFinite and OvINF repl = ∞ with limit = ∞ (NaN stays
 * NaN), OvNAN repl = NaN with limit = all ones. `branchless` selects instead of branching: for the running total
 * under OvSAT, which once saturated overflows again and again in no predictable pattern (a branch is faster
 * everywhere else: it stays off the dependency chain of the total).
 */
// @ts-ignore: decorator
@inline function projectGrid(x: f64, m: u64, half: u64, mask: u64, maxBits: u64, repl: u64, limit: u64, branchless: bool): f64 {
  const b = reinterpret<u64>(x);
  let r = (b + half + ((b >> m) & 1)) & mask;
  const mag = r & 0x7fffffffffffffff;
  if (branchless) return reinterpret<f64>(select<u64>((r ^ mag) | repl, r, (mag > maxBits) & (mag <= limit)));
  if (mag > maxBits) {
    if (mag <= limit) r = (r ^ mag) | repl;
  }
  return reinterpret<f64>(r);
}

/**
 * The running total over blocks [0, k) with projectGrid (no scales), from `total`. BLK = 16 (the default) runs two
 * blocks per step, both sums before the total's chain of projections, and other multiples of 16 whole blocks of
 * sum16 steps: the general loop's setup per block cost 10–25 % (docs/performance.md, "Two blocks per step").
 */
// @ts-ignore: decorator
@inline function gridTotal(pa: usize, pb: usize, k: i32, blk: i32, table: usize, idx: usize, total: f64, m: u64, half: u64, mask: u64, maxBits: u64, repl: u64, limit: u64, branchless: bool): f64 {
  let start = 0;
  if (blk == 16) {
    for (; start + 32 <= k; start += 32) {
      const s = sum16(pa, pb, start, table, idx);
      const u = sum16(pa, pb, start + 16, table, idx);
      total = projectGrid(total + projectGrid(s, m, half, mask, maxBits, repl, limit, false), m, half, mask, maxBits, repl, limit, branchless);
      total = projectGrid(total + projectGrid(u, m, half, mask, maxBits, repl, limit, false), m, half, mask, maxBits, repl, limit, branchless);
    }
  } else if ((blk & 15) == 0) {
    for (; start + blk <= k; start += blk) {
      let s = sum16(pa, pb, start, table, idx);
      for (let t = start + 16; t < start + blk; t += 16) s += sum16(pa, pb, t, table, idx);
      total = projectGrid(total + projectGrid(s, m, half, mask, maxBits, repl, limit, false), m, half, mask, maxBits, repl, limit, branchless);
    }
  }
  for (; start < k; start += blk) {
    const s = blockSum(pa, pb, start, min(k, start + blk), table, idx);
    total = projectGrid(total + projectGrid(s, m, half, mask, maxBits, repl, limit, false), m, half, mask, maxBits, repl, limit, branchless);
  }
  return total;
}

// A per-call parameter block written by the host (src/dot/wasm.ts writeDotParams): i32 words k, table, BLK, the
// partials' P and minQ, the overflow mode, the scale strides of a and b, scale blocks per row, pairs, grid and carry
// (see dotBatch), the partials' MaxFinite as f64, then 32 bytes of index scratch: the 16 product-table indices of one
// step (u16, a·256 + b), written by SIMD and read back by loads. Instances sharing a memory use one block per thread.
const P_K = 0, P_TABLE = 4, P_BLK = 8, P_P = 12, P_MINQ = 16, P_MODE = 20, P_SA_STRIDE = 24, P_SB_STRIDE = 28;
const P_BLOCKS = 32, P_PAIRS = 36, P_GRID = 40, P_CARRY = 44, P_MAXV = 48, P_IDX = 64;
const PARAMS_BYTES: usize = 96;

const STATIC_PARAMS = memory.data(<i32>PARAMS_BYTES, 16);

/** Address of the static parameter block (for a host whose instance has a memory of its own). */
export function dotParams(): usize {
  return STATIC_PARAMS;
}

/** Bytes of a dotBatch parameter block (16-byte aligned), for hosts that allocate one per thread. */
export function dotParamsBytes(): usize {
  return PARAMS_BYTES;
}

/**
 * Exact float64 sum of table[a[t]·256 + b[t]] for the 16 codes from t (float32 table entries, 256 KiB: measured 4 %
 * faster than a float64 table, whose loads need no conversion): one byte-interleaving shuffle per 8 codes forms the
 * u16 indices, stored to IDX and read back by scalar loads (cheaper than lane extracts), then 16 entries widened into
 * four independent float64 accumulators; sums are exact, so any order gives the same value.
 */
// @ts-ignore: decorator
@inline function sum16(pa: usize, pb: usize, t: i32, table: usize, idx: usize): f64 {
  const x = v128.load(pa + <usize>t);
  const y = v128.load(pb + <usize>t);
  v128.store(idx, i8x16.shuffle(y, x, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
  v128.store(idx, i8x16.shuffle(y, x, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), 16);
  let s0 = <f64>load<f32>(table + (<usize>load<u16>(idx, 0) << 2));
  let s1 = <f64>load<f32>(table + (<usize>load<u16>(idx, 2) << 2));
  let s2 = <f64>load<f32>(table + (<usize>load<u16>(idx, 4) << 2));
  let s3 = <f64>load<f32>(table + (<usize>load<u16>(idx, 6) << 2));
  s0 += <f64>load<f32>(table + (<usize>load<u16>(idx, 8) << 2));
  s1 += <f64>load<f32>(table + (<usize>load<u16>(idx, 10) << 2));
  s2 += <f64>load<f32>(table + (<usize>load<u16>(idx, 12) << 2));
  s3 += <f64>load<f32>(table + (<usize>load<u16>(idx, 14) << 2));
  s0 += <f64>load<f32>(table + (<usize>load<u16>(idx, 16) << 2));
  s1 += <f64>load<f32>(table + (<usize>load<u16>(idx, 18) << 2));
  s2 += <f64>load<f32>(table + (<usize>load<u16>(idx, 20) << 2));
  s3 += <f64>load<f32>(table + (<usize>load<u16>(idx, 22) << 2));
  s0 += <f64>load<f32>(table + (<usize>load<u16>(idx, 24) << 2));
  s1 += <f64>load<f32>(table + (<usize>load<u16>(idx, 26) << 2));
  s2 += <f64>load<f32>(table + (<usize>load<u16>(idx, 28) << 2));
  s3 += <f64>load<f32>(table + (<usize>load<u16>(idx, 30) << 2));
  return (s0 + s1) + (s2 + s3);
}

/** Exact float64 sum of table[a[t]·256 + b[t]] for t in [from, to): sum16 steps, then groups of four, then one by one. */
// @ts-ignore: decorator
@inline function blockSum(pa: usize, pb: usize, from: i32, to: i32, table: usize, idx: usize): f64 {
  let s0: f64 = 0, s1: f64 = 0, s2: f64 = 0, s3: f64 = 0;
  let t = from;
  for (; t + 16 <= to; t += 16) s0 += sum16(pa, pb, t, table, idx);
  for (; t + 4 <= to; t += 4) {
    const x = load<u32>(pa + <usize>t);
    const y = load<u32>(pb + <usize>t);
    s0 += <f64>load<f32>(table + ((((x & 0xff) << 8) | (y & 0xff)) << 2));
    s1 += <f64>load<f32>(table + ((((x >> 8) & 0xff) << 8 | ((y >> 8) & 0xff)) << 2));
    s2 += <f64>load<f32>(table + ((((x >> 16) & 0xff) << 8 | ((y >> 16) & 0xff)) << 2));
    s3 += <f64>load<f32>(table + (((x >> 24) << 8 | (y >> 24)) << 2));
  }
  for (; t < to; t++) {
    s0 += <f64>load<f32>(table + ((<usize>load<u8>(pa + <usize>t) << 8 | <usize>load<u8>(pb + <usize>t)) << 2));
  }
  return (s0 + s1) + (s2 + s3);
}

// gridTotal's two forms as functions of their own: inlined side by side into dotBatch, Binaryen merged them into one
// loop choosing at run time (measured 10–15 % slower).
function gridTotalSaturating(pa: usize, pb: usize, k: i32, blk: i32, table: usize, idx: usize, total: f64, m: u64, half: u64, mask: u64, maxBits: u64, repl: u64, limit: u64): f64 {
  return gridTotal(pa, pb, k, blk, table, idx, total, m, half, mask, maxBits, repl, limit, true);
}
function gridTotalBranching(pa: usize, pb: usize, k: i32, blk: i32, table: usize, idx: usize, total: f64, m: u64, half: u64, mask: u64, maxBits: u64, repl: u64, limit: u64): f64 {
  return gridTotal(pa, pb, k, blk, table, idx, total, m, half, mask, maxBits, repl, limit, false);
}

/**
 * out[i·n + j] (float32) = dot(a row i, b row j) over k codes, for i < m, j < n; rows are k bytes apart; the
 * configuration is the parameter block at p. table: 65536 float32 products (index a·256 + b). Scales at sa, sb:
 * stride 0 = none, 1 = one E8M0 code per row, 2 = one per row and block (`blocks` per row). pairs = 1: only the
 * pairs (i, i), written to out[i] (row-wise dot products; n = m). grid = 1: every table entry is a partials value (a
 * multiple of 2^minQ; the rounded-product modes), so unscaled block sums and running totals take projectGrid;
 * otherwise (mode "exact", or scales) the general project. carry = 1: each running total starts from the float32
 * already in its out slot (a dot streamed in parts of whole blocks: a total is a partials value, exact in float32,
 * and never −0), else from 0.
 */
export function dotBatch(p: usize, a: usize, b: usize, m: i32, n: i32, sa: usize, sb: usize, out: usize): void {
  const k = load<i32>(p + P_K);
  const table = <usize>load<u32>(p + P_TABLE);
  const blk = load<i32>(p + P_BLK);
  const P = load<i32>(p + P_P);
  const minQ = load<i32>(p + P_MINQ);
  const mode = load<i32>(p + P_MODE);
  const saStride = load<i32>(p + P_SA_STRIDE);
  const sbStride = load<i32>(p + P_SB_STRIDE);
  const blocks = load<i32>(p + P_BLOCKS);
  const pairs = load<i32>(p + P_PAIRS);
  const grid = load<i32>(p + P_GRID);
  const carry = load<i32>(p + P_CARRY);
  const maxv = load<f64>(p + P_MAXV);
  const idx = p + P_IDX;
  const dropped = <u64>(53 - P);
  const half = (<u64>1 << (dropped - 1)) - 1;
  const mask = ~((<u64>1 << dropped) - 1);
  const minNormal = pow2(minQ + P - 1);
  const C = pow2(minQ + 52);
  const maxBits = reinterpret<u64>(maxv);
  const repl: u64 = mode == 0 ? maxBits : mode == 1 ? 0x7ff0000000000000 : 0x7ff8000000000000;
  const limit: u64 = mode == 2 ? 0xffffffffffffffff : 0x7ff0000000000000;
  const scaled = (saStride | sbStride) != 0;
  for (let i = 0; i < m; i++) {
    const pa = a + <usize>i * <usize>k;
    const j0 = pairs ? i : 0;
    const j1 = pairs ? i + 1 : n;
    for (let j = j0; j < j1; j++) {
      const pb = b + <usize>j * <usize>k;
      const slot = out + ((pairs ? <usize>i : <usize>i * <usize>n + <usize>j) << 2);
      let total: f64 = carry ? <f64>load<f32>(slot) : 0;
      if (grid && !scaled) {
        // The hot path: no scales, every sum on the partials grid.
        if (mode == 0) total = gridTotalSaturating(pa, pb, k, blk, table, idx, total, dropped, half, mask, maxBits, repl, limit);
        else total = gridTotalBranching(pa, pb, k, blk, table, idx, total, dropped, half, mask, maxBits, repl, limit);
      } else {
        let kb = 0;
        for (let start = 0; start < k; start += blk) {
          let s = blockSum(pa, pb, start, min(k, start + blk), table, idx);
          if (scaled) {
            const ea = saStride == 0 ? 0 : scaleExp(load<u8>(sa + <usize>(saStride == 1 ? i : i * blocks + kb)));
            const eb = sbStride == 0 ? 0 : scaleExp(load<u8>(sb + <usize>(sbStride == 1 ? j : j * blocks + kb)));
            if (ea == 1024 || eb == 1024) s = NaN;
            else s = s * pow2(ea) * pow2(eb);
          }
          total = project(total + project(s, dropped, half, mask, minNormal, C, maxv, mode), dropped, half, mask, minNormal, C, maxv, mode);
          kb++;
        }
      }
      // One NaN for every NaN result: the sign of a NaN the hardware makes (∞ − ∞) differs between V8's baseline and
      // optimising compilers, so results would differ between a fresh worker and a warm thread.
      store<f32>(slot, total != total ? <f32>NaN : <f32>(total == 0 ? 0 : total));
    }
  }
}
