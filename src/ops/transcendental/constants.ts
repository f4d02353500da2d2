// Rigorous enclosures of π and ln 2 to any precision, computed in fixed point with BigInt and cached.
// Every fixed-point step truncates toward zero, so each computed term is within a counted number of units of
// the true term; the enclosure widens the sum by that count plus a bound on the omitted tail.
import { type Interval, trim } from "./interval.js";

/**
 * Σ_k (−1)^k·2^W / ((2k+1)·n^(2k+1)) (alternating) or its non-alternating variant, in units of 2^−W, together with
 * a bound on its error in those units. Each P_k = ⌊P_{k−1}/n²⌋ underestimates 2^W/n^(2k+1) by < 1.1 and each
 * ⌊P_k/(2k+1)⌋ adds < 1 more, so a term is off by < 2.1; the omitted tail (once P_k = 0, true P_k < 1.1) is < 1.1.
 */
function arctanSeries(n: bigint, W: number, alternating: boolean): { sum: bigint; err: bigint } {
  const n2 = n * n;
  let P = (1n << BigInt(W)) / n;
  let sum = 0n;
  let k = 0n;
  let terms = 0n;
  while (P !== 0n) {
    const t = P / (2n * k + 1n);
    sum += alternating && k % 2n === 1n ? -t : t;
    P /= n2;
    k += 1n;
    terms += 1n;
  }
  return { sum, err: 3n * terms + 3n };
}

interface Cached {
  bits: number;
  value: Interval;
}

let piCache: Cached | undefined;
let ln2Cache: Cached | undefined;

/** π enclosed with at least w significant bits (Machin: π = 16·arctan(1/5) − 4·arctan(1/239)). */
export function piInterval(w: number): Interval {
  if (piCache === undefined || piCache.bits < w) {
    const W = Math.max(w, 64) + 32;
    const a = arctanSeries(5n, W, true);
    const b = arctanSeries(239n, W, true);
    const v = 16n * a.sum - 4n * b.sum;
    const err = 16n * a.err + 4n * b.err;
    piCache = { bits: W - 16, value: { lo: v - err, hi: v + err, e: -W } };
  }
  return trim(piCache.value, w + 2);
}

/** ln 2 enclosed with at least w significant bits (ln 2 = 2·artanh(1/3) = Σ 2/((2k+1)·3^(2k+1))). */
export function ln2Interval(w: number): Interval {
  if (ln2Cache === undefined || ln2Cache.bits < w) {
    const W = Math.max(w, 64) + 32;
    const a = arctanSeries(3n, W + 1, false);
    // a.sum approximates 2^(W+1)·artanh(1/3) = 2^W·ln 2.
    ln2Cache = { bits: W - 16, value: { lo: a.sum - a.err, hi: a.sum + a.err, e: -W } };
  }
  return trim(ln2Cache.value, w + 2);
}
