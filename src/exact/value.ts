// Exact extended reals: ±significand·2^exponent with a BigInt significand, ±∞ and NaN (P3109 §3.1 datum set,
// plus the sign of zero and of NaN that IEEE-family inputs carry).

export type Exact =
  | { readonly kind: "nan"; readonly sign: 1 | -1; readonly payload?: bigint }
  | { readonly kind: "infinity"; readonly sign: 1 | -1 }
  | { readonly kind: "finite"; readonly sign: 1 | -1; readonly significand: bigint; readonly exponent: number };

export type Finite = Extract<Exact, { kind: "finite" }>;

export const NAN: Exact = Object.freeze({ kind: "nan", sign: 1 });
export const POS_INF: Exact = Object.freeze({ kind: "infinity", sign: 1 });
export const NEG_INF: Exact = Object.freeze({ kind: "infinity", sign: -1 });
export const ZERO: Finite = Object.freeze({ kind: "finite", sign: 1, significand: 0n, exponent: 0 });

export function finite(sign: 1 | -1, significand: bigint, exponent: number): Finite {
  return { kind: "finite", sign, significand, exponent };
}

/** The NaN datum (P3109 §3.1): a NaN of either sign. */
export function isNaNDatum(x: Exact): boolean {
  return x.kind === "nan";
}

export function isZero(x: Exact): boolean {
  return x.kind === "finite" && x.significand === 0n;
}

/** Number of bits of a positive bigint (bitlen(1) = 1). */
export function bitLength(m: bigint): number {
  // toString(16) is linear and allocation-light for the sizes used here (≤ a few hundred bits, or K = 16 extremes).
  const hex = m.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

/** ⌊log2 |x|⌋ of a nonzero finite value. */
export function floorLog2(x: Finite): number {
  return bitLength(x.significand) - 1 + x.exponent;
}

/** Removes trailing zero bits so equal values have one representation (used for comparisons and tests). */
export function normalize(x: Exact): Exact {
  if (x.kind !== "finite") return x;
  if (x.significand === 0n) return x.sign === 1 ? ZERO : x;
  let m = x.significand;
  let e = x.exponent;
  while ((m & 0xffffffffn) === 0n) {
    m >>= 32n;
    e += 32;
  }
  while ((m & 1n) === 0n) {
    m >>= 1n;
    e += 1;
  }
  return finite(x.sign, m, e);
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The exact value of a float64 (−0 and the NaN sign are kept). */
export function fromNumber(v: number): Exact {
  f64[0] = v;
  return fromFloat64Bits(u64[0]!);
}

/** The exact value of a binary64 bit pattern; NaN keeps sign and payload. */
export function fromFloat64Bits(bits: bigint): Exact {
  const sign = bits >> 63n ? -1 : 1;
  const e = Number((bits >> 52n) & 0x7ffn);
  const t = bits & 0xfffffffffffffn;
  if (e === 0x7ff) return t === 0n ? (sign === 1 ? POS_INF : NEG_INF) : { kind: "nan", sign, payload: t };
  if (e === 0) return finite(sign, t, -1074);
  return finite(sign, t | (1n << 52n), e - 1075);
}

/** The exact value of a binary32 bit pattern; NaN keeps sign and payload. */
export function fromFloat32Bits(bits: number): Exact {
  const sign = bits >>> 31 ? -1 : 1;
  const e = (bits >>> 23) & 0xff;
  const t = bits & 0x7fffff;
  // NaN payloads are left-aligned to 52 bits (as binary64's and decodeExact's), so targets truncate them alike.
  if (e === 0xff) return t === 0 ? (sign === 1 ? POS_INF : NEG_INF) : { kind: "nan", sign, payload: BigInt(t) << 29n };
  if (e === 0) return finite(sign, BigInt(t), -149);
  return finite(sign, BigInt(t | 0x800000), e - 150);
}

export function float32Bits(v: number): number {
  f32[0] = v;
  return u32[0]!;
}

/** The float32 value of a bit pattern. */
export function float32FromBits(bits: number): number {
  u32[0] = bits;
  return f32[0]!;
}

/**
 * The float64 equal to a finite exact value, or undefined when it is not exactly representable.
 * Uses only exact operations: the significand is < 2^53 and the scaling is by powers of two within range.
 */
export function toNumberExact(x: Exact): number | undefined {
  if (x.kind === "nan") return NaN;
  if (x.kind === "infinity") return x.sign * Infinity;
  const n = normalize(x) as Finite;
  if (n.significand === 0n) return x.sign === 1 ? 0 : -0;
  if (bitLength(n.significand) > 53) return undefined;
  const top = floorLog2(n);
  if (top > 1023 || n.exponent < -1074) return undefined;
  return n.sign * scaleByPowerOfTwo(Number(n.significand), n.exponent);
}

/** m·2^e for an integer m < 2^53 whose result is exactly representable (two steps keep the factors normal). */
export function scaleByPowerOfTwo(m: number, e: number): number {
  let r = m;
  while (e > 1000) {
    r *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    // Exact while r stays ≥ 2^-1022·2^53 … the caller guarantees the final result is representable, and
    // every intermediate is a power-of-two multiple of it that is larger, hence also representable.
    r *= 2 ** -1000;
    e += 1000;
  }
  return r * 2 ** e;
}

/** Compares two finite exact values: −1, 0, 1 (zeros of either sign are equal). */
export function compareFinite(a: Finite, b: Finite): number {
  const az = a.significand === 0n;
  const bz = b.significand === 0n;
  if (az || bz) {
    if (az && bz) return 0;
    return az ? -b.sign : a.sign;
  }
  if (a.sign !== b.sign) return a.sign;
  const mag = compareMagnitude(a, b);
  return a.sign === 1 ? mag : -mag;
}

/** Compares |a| and |b| for nonzero finite values. */
export function compareMagnitude(a: Finite, b: Finite): number {
  const la = floorLog2(a);
  const lb = floorLog2(b);
  if (la !== lb) return la < lb ? -1 : 1;
  const e = Math.min(a.exponent, b.exponent);
  const ma = a.significand << BigInt(a.exponent - e);
  const mb = b.significand << BigInt(b.exponent - e);
  return ma === mb ? 0 : ma < mb ? -1 : 1;
}
