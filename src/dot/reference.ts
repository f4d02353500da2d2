// The scalar reference of the narrow-partials dot product and of the exact dot product: the Wasm
// kernels must agree with it bit for bit. Sums are exact: float64 where the exponent span is proved to fit 53
// bits (see exactInFloat64), BigInt integers otherwise; each projection rounds once.
import { decodeExact } from "../exact/decode.js";
import { project } from "../exact/cast.js";
import { resolveProjection } from "../exact/projection.js";
import { maxFiniteValue, valueTableOrNaN } from "../exact/tables.js";
import { type Exact, finite, toNumberExact } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { type OverflowMode, type Partials, projectPartial } from "./partials.js";

/**
 * Whether a sum of `count` terms, each a multiple of 2^lowExp with magnitude ≤ bound, is computed exactly in
 * float64 in any order: every partial sum is then a multiple of 2^lowExp below count·bound, so it is exact when
 * count·bound ≤ 2^(53 + lowExp).
 */
export function exactInFloat64(count: number, bound: number, lowExp: number): boolean {
  return count * bound <= 2 ** (53 + lowExp);
}

/**
 * The context of one dot product configuration. Products of two codes of formats with ≤ 8 bits are exact in
 * float64 (≤ 14 significant bits, exponents within ±300). Every product and every rounded product is a multiple
 * of 2^lowExp, lowExp = minQuantum(fa) + minQuantum(fb): rounding either leaves a value unchanged or moves it
 * onto a grid coarser than its own lowest bit.
 */
export interface DotContext {
  readonly fa: Format;
  readonly fb: Format;
  readonly va: Float64Array;
  readonly vb: Float64Array;
  readonly partials: Partials;
  readonly mode: OverflowMode | "exact";
  readonly block: number;
  readonly lowExp: number;
  /** Bound on |rounded product| (finite ones). */
  readonly productBound: number;
}

export function dotContext(fa: Format, fb: Format, partials: Partials, mode: OverflowMode | "exact", block: number): DotContext {
  const va = valueTableOrNaN(fa);
  const vb = valueTableOrNaN(fb);
  const exactBound = maxFiniteValue(fa) * maxFiniteValue(fb);
  // Rounding to nearest never more than doubles a magnitude; saturation caps it at MaxFinite of the partials.
  const productBound = mode === "exact" ? exactBound : Math.min(2 * exactBound, partials.max);
  // Rounded products also lie on the partials grid, whose quantum is at least 2^minQ.
  const productLow = fa.minQuantumExponent + fb.minQuantumExponent;
  const lowExp = mode === "exact" ? productLow : Math.max(productLow, partials.minQ);
  return { fa, fb, va, vb, partials, mode, block, lowExp, productBound };
}

/** Exact sum of float64 terms that are multiples of 2^lowExp (BigInt integers in units of 2^lowExp), as an Exact. */
function exactSum(terms: number[], lowExp: number): Exact {
  let pos = 0;
  let neg = 0;
  let nan = false;
  let total = 0n;
  for (const t of terms) {
    if (t !== t) nan = true;
    else if (t === Infinity) pos++;
    else if (t === -Infinity) neg++;
    else total += BigInt(t * 2 ** -lowExp); // an integer below 2^400: exact
  }
  if (nan || (pos > 0 && neg > 0)) return { kind: "nan", sign: 1 };
  if (pos > 0) return { kind: "infinity", sign: 1 };
  if (neg > 0) return { kind: "infinity", sign: -1 };
  return total < 0n ? finite(-1, -total, lowExp) : finite(1, total, lowExp);
}

/**
 * Projects an exact sum into the partials format: RNE with unbounded exponent, then the overflow mode (the
 * "exact" mode keeps ±∞, i.e. P3109 (NearestTiesToEven, SatNone)).
 */
function projectExact(x: Exact, ctx: DotContext): number {
  const f = ctx.partials.format;
  const sat = ctx.mode === "OvSAT" ? "SatFinite" : "SatNone";
  const code = project(x, f, resolveProjection(f, { rounding: "NearestTiesToEven", saturation: sat }), 0);
  const v = toNumberExact(decodeExact(code, f)) ?? NaN;
  if (ctx.mode === "OvNAN" && (v === Infinity || v === -Infinity)) return NaN;
  return v;
}

/** Sum of terms[from, to) projected once into the partials format (exact sum, one rounding). */
function projectSum(terms: number[], ctx: DotContext, scaleExp: number): number {
  if (scaleExp !== scaleExp) return NaN;
  if (exactInFloat64(terms.length, ctx.productBound, ctx.lowExp)) {
    let s = 0;
    for (const t of terms) s += t;
    s *= 2 ** scaleExp; // |scaleExp| ≤ 254 and |s| < 2^60: an exact power-of-two scaling
    return projectPartial(s, ctx.partials, ctx.mode as OverflowMode);
  }
  const sum = exactSum(terms, ctx.lowExp);
  return projectExact(sum.kind === "finite" ? finite(sum.sign, sum.significand, sum.exponent + scaleExp) : sum, ctx);
}

function fromFloat(s: number): Exact {
  if (s !== s) return { kind: "nan", sign: 1 };
  if (s === Infinity || s === -Infinity) return { kind: "infinity", sign: s > 0 ? 1 : -1 };
  // s is a multiple of 2^−600 below 2^400 here: scale to an integer exactly.
  const m = BigInt(s * 2 ** 600);
  return m < 0n ? finite(-1, -m, -600) : finite(1, m, -600);
}

/**
 * Straightforward reference: n products of codes a[aOff + i]·b[bOff + i]; each rounded into the partials format;
 * each block of BLK products summed exactly and projected once; block results added one by one into a running
 * total projected after every addition. `scaleExp(k)` (optional) is the power-of-two exponent applied to block k's
 * exact sum before its projection (NaN for a NaN scale). Mode "exact": the exact dot product, one projection.
 */
export function dotReference(
  a: Uint8Array,
  aOff: number,
  b: Uint8Array,
  bOff: number,
  n: number,
  ctx: DotContext,
  scaleExp?: (block: number) => number,
): number {
  const { va, vb, partials } = ctx;
  if (ctx.mode === "exact") {
    const terms: number[] = [];
    let minSe = 0;
    let maxSe = 0;
    for (let i = 0; i < n; i++) {
      const se = scaleExp ? scaleExp(Math.floor(i / ctx.block)) : 0;
      if (se !== se) return NaN;
      minSe = i === 0 ? se : Math.min(minSe, se);
      maxSe = i === 0 ? se : Math.max(maxSe, se);
      // An exact product (≤ 14 bits) times a power of two within float64's range: exact.
      terms.push(va[a[aOff + i]!]! * vb[b[bOff + i]!]! * 2 ** se);
    }
    const low = ctx.lowExp + minSe;
    let sum: Exact;
    if (exactInFloat64(n, ctx.productBound * 2 ** maxSe, low)) {
      let s = 0;
      for (const t of terms) s += t;
      sum = fromFloat(s);
    } else sum = exactSum(terms, low);
    const r = projectExact(sum, ctx);
    return r === 0 ? 0 : r;
  }
  const mode = ctx.mode;
  let total = 0;
  for (let start = 0, k = 0; start < n; start += ctx.block, k++) {
    const end = Math.min(n, start + ctx.block);
    const terms: number[] = [];
    for (let i = start; i < end; i++) terms.push(projectPartial(va[a[aOff + i]!]! * vb[b[bOff + i]!]!, partials, mode));
    const blockValue = projectSum(terms, ctx, scaleExp ? scaleExp(k) : 0);
    // Two partials values: their float64 sum is exact for binary16 and correctly rounded to 53 ≥ 2·24 + 2 bits
    // otherwise, so rounding it to P ≤ 24 bits is the correctly rounded sum (double rounding is innocuous).
    total = projectPartial(total + blockValue, partials, mode);
  }
  return total === 0 ? 0 : total;
}
