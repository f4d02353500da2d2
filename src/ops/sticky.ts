// Exact results of inexact operations: a round-to-odd value with enough bits projects exactly like the real
// result (P3109 §4.7.4 reads only ν: k+1 bits below the final quantum give k exact bits plus a sticky bit; k ≥ N + 2 covers every
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
