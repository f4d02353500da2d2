// Exact arithmetic on finite datums (ℝ, no −0) (P3109 §4.3).
// Everything here is integer arithmetic: sums and products are exact; square roots return the round-to-odd value
// the projection contract of sticky.ts asks for.
import { type Finite, ZERO, bitLength, finite } from "../exact/value.js";

/** A finite value with +0 for zero (P3109 operations produce no −0). */
export function make(sign: 1 | -1, significand: bigint, exponent: number): Finite {
  if (significand === 0n) return ZERO;
  if (significand < 0n) return finite(sign === 1 ? -1 : 1, -significand, exponent);
  return finite(sign, significand, exponent);
}

/** Signed significand (sign · |m|). */
function signed(x: Finite): bigint {
  return x.sign < 0 ? -x.significand : x.significand;
}

export function negate(x: Finite): Finite {
  return make(x.sign === 1 ? -1 : 1, x.significand, x.exponent);
}

export function abs(x: Finite): Finite {
  return make(1, x.significand, x.exponent);
}

/** X + Y exactly. */
export function add(x: Finite, y: Finite): Finite {
  if (x.significand === 0n) return make(y.sign, y.significand, y.exponent);
  if (y.significand === 0n) return make(x.sign, x.significand, x.exponent);
  const e = Math.min(x.exponent, y.exponent);
  const s = (signed(x) << BigInt(x.exponent - e)) + (signed(y) << BigInt(y.exponent - e));
  return make(1, s, e);
}

/** X · Y exactly. */
export function multiply(x: Finite, y: Finite): Finite {
  return make(x.sign === y.sign ? 1 : -1, x.significand * y.significand, x.exponent + y.exponent);
}

/** ⌊√n⌋ for n ≥ 0 (Newton's iteration on integers, started above the root). */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((bitLength(n) + 1) >> 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/**
 * √X for X ≥ 0 as a round-to-odd value with at least `precision` significant bits (exact when √X has that many
 * bits or fewer). X = m·2^e is rescaled to M·2^(2k) with M having ≥ 2·precision + 2 bits, so ⌊√M⌋ has ≥ precision + 1.
 */
export function sqrtToOdd(x: Finite, precision: number): Finite {
  if (x.significand === 0n) return ZERO;
  let m = x.significand;
  let e = x.exponent;
  let shift = Math.max(0, 2 * precision + 2 - bitLength(m));
  if ((e - shift) % 2 !== 0) shift += 1;
  m <<= BigInt(shift);
  e -= shift;
  const r = isqrt(m);
  return make(1, r * r === m ? r : r | 1n, e / 2);
}

/**
 * 1/√X for X > 0 as a round-to-odd value with at least `precision` bits: with X = m·2^e (e even),
 * 1/√X = 2^(−e/2) · 2^(−t) · (2^t/√m), and ⌊2^t/√m⌋ = ⌊√⌊2^(2t)/m⌋⌋; exact iff r²·m = 2^(2t).
 */
export function rsqrtToOdd(x: Finite, precision: number): Finite {
  let m = x.significand;
  let e = x.exponent;
  if (e % 2 !== 0) {
    m <<= 1n;
    e -= 1;
  }
  const t = precision + 2 + ((bitLength(m) + 1) >> 1);
  const pow = 1n << BigInt(2 * t);
  const r = isqrt(pow / m);
  return make(1, r * r * m === pow ? r : r | 1n, -e / 2 - t);
}
