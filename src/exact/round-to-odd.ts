// Rounding to odd (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
// to odd", IEEE TC 2008): x rounded to a float32 "to odd" keeps x's exact value when it fits, else lands strictly
// between the same two neighbours of any coarser grid as x (its last bit, 1, is the sticky bit). So when every
// finite value of a format f lies on a grid at least 2 bits coarser than float32's at that magnitude, every
// deterministic rounding of the odd-rounded float32 into f equals the same rounding of x itself: the float32 encode
// kernels then project float64 input exactly, with one rounding.
import type { Format } from "../format/model.js";
import { maxFiniteBinade } from "./tables.js";

/**
 * Whether float64 input below 2^128 in magnitude may reach f through roundToOddFloat32 (see above): P ≤ 22 (24 − 2
 * bits), the quantum of f's subnormals ≥ 2^−147 (float32's is 2^−149), and MaxFinite < 2^128. Then every rounding
 * boundary of f lies on or below 2^128, and x in (float32 MaxFinite, 2^128) and its odd rounding, float32 MaxFinite,
 * share f's interval (MaxFinite, 2^128). Callers project |x| ≥ 2^128 (and NaN) exactly on their own.
 */
export function odd32Covers(f: Format): boolean {
  return f.P <= 22 && f.minQuantumExponent >= -147 && maxFiniteBinade(f) < 128;
}

/** The float64 values roundToOddFloat32 does not carry to every format exactly: NaN (payloads) and |x| ≥ 2^128. */
export function beyondOdd32(x: number): boolean {
  return !(Math.abs(x) < 2 ** 128);
}

/**
 * float64 values rounded to float32 to odd: the float32 value when exact, else the neighbour toward x whose last
 * significand bit is 1 (beyond float32's range ±MaxFinite, below it ±the least subnormal). NaNs become float32
 * NaNs; callers that need their payloads handle NaN elements themselves.
 */
export function roundToOddFloat32(x: Float64Array, out: Float32Array = new Float32Array(x.length)): Float32Array {
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    const f = Math.fround(v);
    out[i] = f;
    // Inexact with an even last bit: one unit toward v. The bits are sign-magnitude, so the step is −1 when f lies
    // beyond v in magnitude (including ±∞ → ±MaxFinite) and +1 when short of it (including ±0 → ±MinPositive).
    if (f !== v && v === v && (bits[i]! & 1) === 0) bits[i] = Math.abs(f) > Math.abs(v) ? bits[i]! - 1 : bits[i]! + 1;
  }
  return out;
}
