// ωDecode (P3109 §4.7.2) and ωDecodeExternal (§4.8) for every format of the model.
import type { Format } from "../format/model.js";
import { type Exact, NAN, NEG_INF, POS_INF, ZERO, finite, fromFloat64Bits } from "./value.js";

/**
 * The exact datum of a code. NaN codes decode to NaN (sign kept for vendor formats with signed NaNs), −0 to a
 * negative zero where the format has one (P3109 §4.8: callers of P3109 operations treat it as 0).
 * The code must be an integer in [0, 2^K); callers validate.
 */
export function decodeExact(code: number, f: Format): Exact {
  const negative = f.isNegativeCode(code);
  const sign = negative ? -1 : 1;
  const mag = negative ? code - f.signBit : code;
  if (f.isNaNCode(code)) {
    if (!f.policy.signedZeroAndNaN) return NAN;
    const T = BigInt(mag % 2 ** f.trailingBits);
    // Payload left-aligned to 52 bits, so any IEEE-family target can truncate it (numpy float16, Eigen bfloat16).
    const payload = f.policy.nanPayload !== "drop" && f.infinity ? T << BigInt(52 - f.trailingBits) : undefined;
    return { kind: "nan", sign, ...(payload !== undefined && { payload }) };
  }
  if (mag === f.infMagnitude) return negative ? NEG_INF : POS_INF;
  return decodeMagnitude(mag, f, sign);
}

/** Value of a finite magnitude code: (E == 0 ? T : T + 2^(P−1)) · 2^(max(E,1) − B − (P−1)). */
export function decodeMagnitude(mag: number, f: Format, sign: 1 | -1): Exact {
  const scale = 2 ** f.trailingBits;
  const T = mag % scale;
  const E = (mag - T) / scale;
  if (E === 0 && f.zero) {
    if (T === 0 || f.subnormals === "flush") return sign === 1 || !f.policy.signedZeroAndNaN ? ZERO : finite(-1, 0n, 0);
    return finite(sign, BigInt(T), 1 - f.bias - f.trailingBits);
  }
  return finite(sign, BigInt(T + scale), E - f.bias - f.trailingBits);
}

/**
 * ωDecode of an operand as the ω-functions see it: ωDecodeExternal maps −0 to 0 and every NaN to the one NaN
 * (§4.8), so no ω-rule ever meets a signed zero or a signed NaN.
 */
export function operandValue(code: number | bigint, f: Format): Exact {
  const x = typeof code === "bigint" ? (f.K === 64 ? fromFloat64Bits(code) : decodeExact(Number(code), f)) : decodeExact(code, f);
  if (x.kind === "nan") return NAN;
  if (x.kind === "finite" && x.significand === 0n) return ZERO;
  return x;
}
