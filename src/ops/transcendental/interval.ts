// Dyadic interval arithmetic with outward rounding: the rigorous core of the transcendental ω-operations.
// An interval [lo·2^e, hi·2^e] (lo ≤ hi, BigInt endpoints, one shared exponent) always contains the real it
// encloses; every operation rounds its lower end down and its upper end up, so enclosures never lose the real.
// Precision is relative ("floating"): `trim(x, w)` keeps w significant bits of the larger endpoint magnitude.
import { type Finite, bitLength, finite } from "../../exact/value.js";
import { isqrt } from "../exact-arith.js";

export interface Interval {
  readonly lo: bigint;
  readonly hi: bigint;
  readonly e: number;
}

/** Raised when a refinement loop reaches its precision limit: an internal failure, never a wrong result. */
export class TranscendentalPrecisionError extends Error {
  override readonly name = "TranscendentalPrecisionError";
}

const abs = (m: bigint): bigint => (m < 0n ? -m : m);

/** Bits of |m| (0 for m = 0). */
export function bits(m: bigint): number {
  if (m < 0n) m = -m;
  if (m === 0n) return 0;
  if (m < 0x100000000n) return 32 - Math.clz32(Number(m));
  return bitLength(m);
}

export function point(m: bigint, e: number): Interval {
  return { lo: m, hi: m, e };
}

export function fromFinite(x: Finite): Interval {
  const m = x.sign < 0 ? -x.significand : x.significand;
  return { lo: m, hi: m, e: x.exponent };
}

export function fromInt(n: number | bigint): Interval {
  return point(BigInt(n), 0);
}

export const ONE: Interval = point(1n, 0);

/** log2 of an upper bound of max|x| (x ≠ 0): |x| < 2^top. −Infinity for the zero interval. */
export function top(x: Interval): number {
  const L = Math.max(bits(x.lo), bits(x.hi));
  return L === 0 ? -Infinity : x.e + L;
}

/** Keeps w significant bits: lower end rounded down, upper end rounded up. */
export function trim(x: Interval, w: number): Interval {
  const L = Math.max(bits(x.lo), bits(x.hi));
  if (L <= w) return x;
  const s = BigInt(L - w);
  return { lo: x.lo >> s, hi: -(-x.hi >> s), e: x.e + (L - w) };
}

function align(x: Interval, e: number): [bigint, bigint] {
  const s = BigInt(x.e - e);
  return [x.lo << s, x.hi << s];
}

/**
 * A coarse enclosure of x by ±2^t (t ≥ top(x)), keeping the sign information: used when x is negligible next to
 * the other operand of a sum, so that 1 + 2^−30000 does not build 30000-bit integers.
 */
function coarse(x: Interval, t: number): Interval {
  if (x.lo >= 0n) return { lo: 0n, hi: 1n, e: t };
  if (x.hi <= 0n) return { lo: -1n, hi: 0n, e: t };
  return { lo: -1n, hi: 1n, e: t };
}

export function add(a: Interval, b: Interval, w: number): Interval {
  const ta = top(a);
  const tb = top(b);
  if (tb === -Infinity) return trim(a, w);
  if (ta === -Infinity) return trim(b, w);
  // A negligible operand is replaced by a coarser enclosure ±2^(t − w − 8) of the same sign.
  if (tb < ta - w - 8) b = coarse(b, ta - w - 8);
  else if (ta < tb - w - 8) a = coarse(a, tb - w - 8);
  const e = Math.min(a.e, b.e);
  const [al, ah] = align(a, e);
  const [bl, bh] = align(b, e);
  return trim({ lo: al + bl, hi: ah + bh, e }, w);
}

export function neg(a: Interval): Interval {
  return { lo: -a.hi, hi: -a.lo, e: a.e };
}

export function sub(a: Interval, b: Interval, w: number): Interval {
  return add(a, neg(b), w);
}

/** a·2^k (exact). */
export function scale(a: Interval, k: number): Interval {
  return { lo: a.lo, hi: a.hi, e: a.e + k };
}

export function mul(a: Interval, b: Interval, w: number): Interval {
  const e = a.e + b.e;
  if (a.lo >= 0n && b.lo >= 0n) return trim({ lo: a.lo * b.lo, hi: a.hi * b.hi, e }, w);
  if (a.lo === a.hi && b.lo === b.hi) {
    const p = a.lo * b.lo;
    return trim({ lo: p, hi: p, e }, w);
  }
  const p1 = a.lo * b.lo;
  const p2 = a.lo * b.hi;
  const p3 = a.hi * b.lo;
  const p4 = a.hi * b.hi;
  let lo = p1;
  let hi = p1;
  for (const p of [p2, p3, p4]) {
    if (p < lo) lo = p;
    if (p > hi) hi = p;
  }
  return trim({ lo, hi, e }, w);
}

/** x² (tighter than mul(x, x) when x contains 0). */
export function sqr(a: Interval, w: number): Interval {
  if (a.lo >= 0n) return trim({ lo: a.lo * a.lo, hi: a.hi * a.hi, e: 2 * a.e }, w);
  if (a.hi <= 0n) return trim({ lo: a.hi * a.hi, hi: a.lo * a.lo, e: 2 * a.e }, w);
  const m = abs(a.lo) > a.hi ? abs(a.lo) : a.hi;
  return trim({ lo: 0n, hi: m * m, e: 2 * a.e }, w);
}

function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n < 0n !== d < 0n ? q - 1n : q;
}

function ceilDiv(n: bigint, d: bigint): bigint {
  return -floorDiv(-n, d);
}

/** a / b for b not containing 0, with about w significant bits. */
export function div(a: Interval, b: Interval, w: number): Interval {
  if (b.lo <= 0n && b.hi >= 0n) throw new TranscendentalPrecisionError("interval division by an interval containing 0");
  // Scale numerators so that every quotient has ≥ w + 2 bits.
  const na = Math.max(bits(a.lo), bits(a.hi));
  const nb = Math.max(bits(b.lo), bits(b.hi));
  const s = Math.max(0, w + 2 + nb - na + 1);
  const S = BigInt(s);
  const al = a.lo << S;
  const ah = a.hi << S;
  const e = a.e - s - b.e;
  if (b.lo > 0n && a.lo >= 0n) return trim({ lo: floorDiv(al, b.hi), hi: ceilDiv(ah, b.lo), e }, w);
  let lo: bigint | undefined;
  let hi: bigint | undefined;
  for (const n of [al, ah]) {
    for (const d of [b.lo, b.hi]) {
      const f = floorDiv(n, d);
      const c = ceilDiv(n, d);
      if (lo === undefined || f < lo) lo = f;
      if (hi === undefined || c > hi) hi = c;
    }
  }
  return trim({ lo: lo!, hi: hi!, e }, w);
}

/** √a for a ≥ 0 (the lower end is clamped at 0). */
export function sqrt(a: Interval, w: number): Interval {
  if (a.hi < 0n) throw new TranscendentalPrecisionError("square root of a negative interval");
  let lo = a.lo < 0n ? 0n : a.lo;
  let hi = a.hi;
  let e = a.e;
  // Make e even and give the radicand about 2w + 4 bits.
  let s = Math.max(0, 2 * w + 4 - bits(hi));
  if ((e - s) % 2 !== 0) s += 1;
  lo <<= BigInt(s);
  hi <<= BigInt(s);
  e -= s;
  const r = isqrt(lo);
  let t = isqrt(hi);
  if (t * t < hi) t += 1n;
  return trim({ lo: r, hi: t, e: e / 2 }, w);
}

/** [−m, m] where m = max|x|. */
export function symmetric(x: Interval): Interval {
  const m = abs(x.lo) > abs(x.hi) ? abs(x.lo) : abs(x.hi);
  return { lo: -m, hi: m, e: x.e };
}

/** True when the whole interval is > 0 / < 0. */
export const positive = (x: Interval): boolean => x.lo > 0n;
export const negative = (x: Interval): boolean => x.hi < 0n;

/** A float64 near the midpoint (for choosing reductions only: never part of a result). */
export function approx(x: Interval): number {
  const m = (x.lo + x.hi) >> 1n;
  const L = bits(m);
  if (L === 0) return 0;
  const s = Math.max(0, L - 60);
  const v = Number(m >> BigInt(s));
  const ex = x.e + s;
  if (ex > 1100) return v > 0 ? Infinity : -Infinity;
  if (ex < -1200) return v * 2 ** -600 * 2 ** (ex + 600);
  return v * 2 ** ex;
}

// ------------------------------------------------------------------------------------------------------------
// From an enclosure to the round-to-odd result.

/** A positive dyadic m·2^e as a p-bit significand (exactly p bits, or undefined if m needs more bits). */
interface Grid {
  s: bigint;
  x: number;
}

/** The largest p-bit grid point ≤ m·2^e (m > 0), and whether m·2^e itself is a grid point. */
function truncateP(m: bigint, e: number, p: number): [Grid, boolean] {
  const L = bits(m);
  if (L <= p) return [{ s: m << BigInt(p - L), x: e - (p - L) }, true];
  const k = BigInt(L - p);
  const t = m >> k;
  return [{ s: t, x: e + (L - p) }, t << k === m];
}

function previous(g: Grid, p: number): Grid {
  const s = g.s - 1n;
  if (bits(s) < p) return { s: (1n << BigInt(p)) - 1n, x: g.x - 1 };
  return { s, x: g.x };
}

/**
 * The round-to-odd value with p significant bits of a real enclosed by x, provided the real is not itself a
 * p-bit dyadic number (true for the irrational and non-dyadic rational results of the transcendental functions
 * away from their exact points, which the callers handle symbolically). Undefined when x does not decide it.
 */
export function roundOdd(x: Interval, p: number): Finite | undefined {
  if (x.lo <= 0n && x.hi >= 0n) return undefined;
  const sign: 1 | -1 = x.lo > 0n ? 1 : -1;
  const mlo = sign > 0 ? x.lo : -x.hi;
  const mhi = sign > 0 ? x.hi : -x.lo;
  // The real r satisfies mlo ≤ |r| ≤ mhi (times 2^e) and is not a grid point, so its truncation lies in
  // [trunc(mlo), largest grid point strictly below mhi].
  const [a] = truncateP(mlo, x.e, p);
  const [t, onGrid] = truncateP(mhi, x.e, p);
  const b = onGrid ? previous(t, p) : t;
  if (a.s !== b.s || a.x !== b.x) return undefined;
  return finite(sign, a.s | 1n, a.x);
}

/** A result known to be far beyond every format's range: an odd p-bit value near 2^(±2^20). */
export function farOutside(sign: 1 | -1, large: boolean, p: number): Finite {
  const s = (1n << BigInt(p - 1)) | 1n;
  return finite(sign, s, large ? 1 << 20 : -(1 << 20) - p);
}
