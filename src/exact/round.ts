// ωRoundToPrecision_{P,B,µ} (P3109 §4.7.4) in integer arithmetic: the exponent is unbounded above, the quantum
// is clamped below at the subnormal quantum, and only the rounding mode decides whether to round away.
import type { Rounding } from "./projection.js";
import { type Finite, bitLength } from "./value.js";

/** A rounded magnitude S·2^Q (S may equal 2^P after a carry; S = 0 means the result is zero). */
export interface Rounded {
  readonly S: bigint;
  readonly Q: number;
  /** ν > 0: the exact value was not representable at precision P. */
  readonly inexact: boolean;
}

/**
 * The integer core of ωRoundToPrecision: rounds |x| (x finite, nonzero) to P significant bits with quantum exponent at least `minQ`.
 * `codeOffset` is B + P − 2 (the code offset), so the code parity of a truncated P = 1 value is Q + that + 1.
 * R is the random value for the stochastic modes (0 ≤ R < 2^N).
 */
export function roundSignificand(x: Finite, P: number, minQ: number, codeOffset: number, mode: Rounding, N: number, R: number): Rounded {
  const m = x.significand;
  const e = x.exponent;
  const L = bitLength(m) - 1 + e; // ⌊log2 |X|⌋
  const Q = Math.max(L - P + 1, minQ);
  if (Q <= e) return { S: m << BigInt(e - Q), Q, inexact: false };
  const sh = Q - e;
  const shBig = BigInt(sh);
  const fl = m >> shBig; // ⌊S̃⌋
  const rem = m - (fl << shBig); // ν = rem / 2^sh
  if (rem === 0n) return { S: fl, Q, inexact: false };
  const away = roundAway(mode, x.sign, fl, rem, sh, P, Q, codeOffset, N, R);
  return { S: away ? fl + 1n : fl, Q, inexact: true };
}

/** The RoundAway(µ) column of the §4.7.4 table, for ν = rem/2^sh with 0 < ν < 1. */
function roundAway(mode: Rounding, sign: 1 | -1, fl: bigint, rem: bigint, sh: number, P: number, Q: number, codeOffset: number, N: number, R: number): boolean {
  switch (mode) {
    case "TowardZero":
      return false;
    case "TowardPositive":
      return sign > 0;
    case "TowardNegative":
      return sign < 0;
    case "TowardMaxMagnitude":
      return true;
    case "NearestTiesToAway":
      return rem >= half(sh);
    case "NearestTiesToEven": {
      const h = half(sh);
      return rem > h || (rem === h && !codeIsEven(fl, P, Q, codeOffset));
    }
    case "ToOdd":
      return codeIsEven(fl, P, Q, codeOffset);
    case "StochasticA":
      return fractionBits(rem, sh, N) + BigInt(R) >= 1n << BigInt(N);
    case "StochasticB":
      return fractionBits(rem, sh, N + 1) + 2n * BigInt(R) + 1n >= 1n << BigInt(N + 1);
    case "StochasticC":
      return nearestEvenFraction(rem, sh, N) + BigInt(R) >= 1n << BigInt(N);
  }
}

function half(sh: number): bigint {
  return 1n << BigInt(sh - 1);
}

/** CodeIsEven: parity of the code of the truncated magnitude ⌊S̃⌋·2^Q (P = 1: the exponent field, Q + B). */
function codeIsEven(fl: bigint, P: number, Q: number, codeOffset: number): boolean {
  if (P > 1) return (fl & 1n) === 0n;
  return fl === 0n || ((Q + codeOffset + 1) & 1) === 0;
}

/** ⌊ν·2^k⌋ for ν = rem/2^sh. */
function fractionBits(rem: bigint, sh: number, k: number): bigint {
  return sh >= k ? rem >> BigInt(sh - k) : rem << BigInt(k - sh);
}

/** RNITE(ν·2^N): ν·2^N rounded to the nearest integer, ties to even. */
function nearestEvenFraction(rem: bigint, sh: number, N: number): bigint {
  const y = fractionBits(rem, sh, N);
  const t = fractionBits(rem, sh, N + 1);
  if ((t & 1n) === 0n) return y; // below the half-way point
  const sticky = sh > N + 1 && (rem & ((1n << BigInt(sh - N - 1)) - 1n)) !== 0n;
  return sticky || (y & 1n) === 1n ? y + 1n : y;
}
