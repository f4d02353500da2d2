// Exact results of inexact operations: a round-to-odd value with enough bits projects exactly like the real
// result (digest §2.4: k+1 bits below the final quantum give k exact bits plus a sticky bit; k ≥ N + 2 covers every
// mode, stochastic ones included). Every ω-operation returns either the exact real or such a value.
import type { ResolvedProjection } from "../exact/projection.js";
import type { Format } from "../format/model.js";
import { type Finite, ZERO, bitLength, finite } from "../exact/value.js";

/**
 * Significant bits an ω-operation must deliver so that projecting its round-to-odd value equals projecting the
 * exact real: P (result precision) + N (stochastic bits) + 3 (guard, sticky and the odd bit).
 */
export function stickyPrecision(fr: Format, rho: ResolvedProjection): number {
  return fr.P + rho.stochasticBits + 3;
}

/**
 * The round-to-odd value of sign·num/den (num, den > 0) with `precision` significant bits: exact when the
 * quotient is representable at that precision, otherwise the truncation with its last bit forced to 1.
 */
export function stickyQuotient(sign: 1 | -1, num: bigint, den: bigint, precision: number): Finite {
  if (num === 0n) return ZERO;
  // Scale so the integer quotient has exactly `precision` bits (or one more).
  const shift = precision - (bitLength(num) - bitLength(den)) + 1;
  const n = shift >= 0 ? num << BigInt(shift) : num;
  const d = shift >= 0 ? den : den << BigInt(-shift);
  const q = n / d;
  const exact = q * d === n;
  return finite(sign, exact ? q : q | 1n, -shift);
}

/**
 * Round-to-odd value at `precision` bits of a real known to lie strictly inside the open interval (lo, hi)
 * (both finite, same sign, nonzero), or undefined when the interval is too wide to decide (refine and retry).
 * The real must not be a dyadic number with ≤ precision bits (true for the irrational results of transcendental
 * functions away from their exact special points, which callers handle symbolically).
 */
export function stickyFromEnclosure(lo: Finite, hi: Finite, precision: number): Finite | undefined {
  if (lo.significand === 0n || hi.significand === 0n || lo.sign !== hi.sign) return undefined;
  const a = truncate(lo, precision);
  const b = truncate(hi, precision);
  if (a === undefined || b === undefined || a.exponent !== b.exponent || a.significand !== b.significand) return undefined;
  // Both ends truncate to the same value t with the same quantum, so the real lies strictly between t and the
  // next grid point: its round-to-odd value is t with the last bit set (lo itself may equal t; the real is above it).
  return finite(a.sign, a.significand | 1n, a.exponent);
}

/** Magnitude truncated to `precision` significant bits (toward zero). */
function truncate(x: Finite, precision: number): Finite | undefined {
  const L = bitLength(x.significand);
  if (L <= precision) {
    const s = precision - L;
    return finite(x.sign, x.significand << BigInt(s), x.exponent - s);
  }
  const s = L - precision;
  return finite(x.sign, x.significand >> BigInt(s), x.exponent + s);
}

