// The encode kernels' constants, derived from a Format and a projection as plain named numbers: the layer from format
// to kernel constants, shared by every kernel generator. It knows no memory layout and no random source: src/wasm
// packs the record into the Wasm kernel's parameter block (adding the seed keys and its variant word), src/webgpu
// writes it into WGSL literals.
import { project } from "../exact/cast.js";
import { type ResolvedProjection, type Rounding, isStochastic } from "../exact/projection.js";
import { type Exact, finite, fromFloat32Bits } from "../exact/value.js";
import type { Format } from "../format/model.js";

/**
 * The names of the constants (see the Wasm layout, scripts/encode-layout.mjs, for what each means). Besides those:
 * `scaleExponent` = log2(scale1·scale2), the subnormal path's exact scale as an integer (integer-only kernels shift
 * by it); `fast`, `fastDirected`, `fastCarry`, `fastKeepPayload`, `fastNoZero` (0/1) say whether and how the fast
 * path applies; `stageC` (0/1) marks StochasticC's extra rounding step.
 */
export const ENCODE_CONSTANT_NAMES = [
  "magOffset",
  "remainderMask",
  "normalMin",
  "scale1",
  "scale2",
  "zeroMagnitude",
  "flushBelow",
  "maxMagnitude",
  "tBase",
  "tOdd",
  "tEven",
  "tPositive",
  "tNegative",
  "fractionMask",
  "cHalf",
  "cBit",
  "randomMask",
  "signBit",
  "negativeZero",
  "unsigned",
  "noZero",
  "above",
  "belowPositive",
  "belowNegative",
  "infPositive",
  "infNegative",
  "nanPositive",
  "nanNegative",
  "keepPayload",
  "keepOffset",
  "quirk",
  "quirkThreshold",
  "minPositive",
  "fastRebias",
  "fastHalf",
  "fastMagic",
  "fastNormalBits",
  "fastLimit",
  "fastStep",
  "fastMagicHigh",
  "fastUnit",
  "narrowLimit",
  "plainSign",
  "narrowSignBit",
  "narrowZeroClear",
  "narrowUnsigned",
  "narrowNaNPositive",
  "narrowNaNNegative",
  "narrowOne",
  "narrowKeepOffset",
  "narrowBelowNegative",
  "narrowInfPositive",
  "narrowInfNegative",
  "stochasticMask",
  "stochasticScale",
  "stochasticScale2",
  "stochasticOneAt",
  "stochasticCRebias",
  "stochasticCBit",
  "stochasticClamp",
  "stochasticUp",
  "stochasticSubnormalUp",
  "stochasticYCap",
  "directedTBase",
  "directedTOdd",
  "directedTNegative",
  "directedTPositive",
  "directedGBase",
  "directedGOdd",
  "directedGNegative",
  "directedGPositive",
  "directedLimitNegative",
  "noZeroT",
  "noZeroTOdd",
  "noZeroOneBits",
  "noZeroBelowBits",
  "noZeroBelow",
  "shift",
  "fractionShift",
  "cShift",
  "randomShift",
  "scaleExponent",
  "fast",
  "fastDirected",
  "fastKeepPayload",
  "fastCarry",
  "fastNoZero",
  "stageC",
] as const;
export type EncodeConstantName = (typeof ENCODE_CONSTANT_NAMES)[number];
/** The named constants of one (format, projection). */
export type EncodeConstants = Record<EncodeConstantName, number>;

/** Largest N the kernel handles: ν carries 31 exact fraction bits + sticky, B needs N + 1 of them, C N + 1 + sticky. */
export const MAX_KERNEL_STOCHASTIC_BITS = 30;

const ALL = -1;
const INT_MIN = -(2 ** 31);

/** Addends T of the round-away carry ν + T ≥ 2^32 (§4.7.4 RoundAway table with ν as a 32-bit fraction). */
function roundingAddends(rounding: Rounding, N: number): { base: number; odd: number; even: number; positive: number; negative: number; mask: number } {
  const none = { base: 0, odd: 0, even: 0, positive: 0, negative: 0, mask: ALL };
  switch (rounding) {
    case "TowardZero":
      return none;
    case "TowardPositive":
      return { ...none, positive: ALL };
    case "TowardNegative":
      return { ...none, negative: ALL };
    case "TowardMaxMagnitude":
      return { ...none, base: ALL };
    case "NearestTiesToAway":
      return { ...none, base: INT_MIN };
    case "NearestTiesToEven":
      return { ...none, base: 0x7fffffff, odd: 1 };
    case "ToOdd":
      return { ...none, even: ALL };
    case "StochasticA": // ⌊ν·2^N⌋ + R ≥ 2^N
      return { ...none, mask: ~(2 ** (32 - N) - 1) };
    case "StochasticB": // ⌊ν·2^(N+1)⌋ + 2R + 1 ≥ 2^(N+1)
      return { ...none, base: 2 ** (31 - N), mask: ~(2 ** (31 - N) - 1) };
    case "StochasticC": // RNITE(ν·2^N) + R ≥ 2^N; the RNITE step runs first in the kernel
      return { ...none, mask: ~(2 ** (32 - N) - 1) };
  }
}

/** Whether the kernel implements (f, ρ) exactly; otherwise the caller runs the reference. */
export function encodeSupported(f: Format, rho: ResolvedProjection): boolean {
  if (f.K > 16) return false;
  // Formats without zero: the unsigned P = 1 layout (E8M0) only, whose codes start at MinPositive.
  if (!f.zero && (f.signed || f.P !== 1 || f.subnormals === "flush")) return false;
  if (isStochastic(rho.rounding) && rho.stochasticBits > MAX_KERNEL_STOCHASTIC_BITS) return false;
  // The subnormal path scales by 2^−minQ exactly only for minQ ≤ 0; the offsets must fit i32 lanes.
  if (f.minQuantumExponent > 0 && minNormalExponent(f) > -149) return false;
  return Math.abs((f.bias - 127) * 2 ** (f.P - 1)) < 2 ** 29;
}

/** ⌊log2 MinNormal⌋: the smallest exponent of the normal path (quantum 2^(L − P + 1) ≥ 2^minQ). */
function minNormalExponent(f: Format): number {
  return f.minQuantumExponent + f.P - 1;
}

/** Float32 bits of max(MinNormal, 2^−126): the fast variants' lanes below it take their subnormal path. */
function fastNormalBits(f: Format): number {
  return (Math.max(minNormalExponent(f), -126) + 127) * 2 ** 23;
}

function probe(f: Format, rho: ResolvedProjection, x: Exact): number {
  return project(x, f, rho, 0);
}

/**
 * The encode kernels' constants for (f, ρ): a record of named numbers (i32 values; float values for scale1, scale2,
 * quirkThreshold, fastMagic, stochasticScale, stochasticScale2, stochasticYCap; codes for the narrow* names).
 */
export function encodeConstants(f: Format, rho: ResolvedProjection): EncodeConstants {
  const c = Object.fromEntries(ENCODE_CONSTANT_NAMES.map((name) => [name, 0])) as EncodeConstants;
  const P = f.P;
  const minQ = f.minQuantumExponent;
  const shift = 24 - P;
  const N = rho.stochasticBits;
  // ml_dtypes' E8M0 cast rounds to nearest, ties away; its other rules are probed below.
  const rounding: Rounding = rho.vendor === "ml_dtypes_e8m0" ? "NearestTiesToAway" : rho.rounding;
  const t = roundingAddends(rounding, N);
  const lowNormal = minNormalExponent(f) + 127;
  c.magOffset = (f.bias - 127) * 2 ** (P - 1);
  c.remainderMask = 2 ** shift - 1;
  c.normalMin = lowNormal < -200 ? INT_MIN : lowNormal > 255 ? 0x7fffffff : lowNormal * 2 ** 23;
  // The subnormal path runs only where some float32 lies below MinNormal (then 0 ≤ −minQ < 149 + P).
  const scaled = lowNormal > -22 ? -minQ : 0;
  const e1 = Math.min(scaled, 127);
  c.scale1 = 2 ** e1;
  c.scale2 = 2 ** (scaled - e1);
  c.scaleExponent = scaled;
  c.zeroMagnitude = (minQ + P + f.bias - 2) * 2 ** (P - 1);
  c.flushBelow = f.subnormals === "flush" ? 2 ** (P - 1) : INT_MIN;
  c.maxMagnitude = f.maxFiniteMagnitude;
  Object.assign(c, { tBase: t.base, tOdd: t.odd, tEven: t.even, tPositive: t.positive, tNegative: t.negative, fractionMask: t.mask });
  const stageC = rounding === "StochasticC";
  c.cHalf = stageC ? 2 ** (31 - N) - 1 : 0;
  c.cBit = stageC ? 1 : 0;
  c.randomMask = N > 0 ? ~(2 ** (32 - N) - 1) : 0;
  c.signBit = f.signBit;
  c.unsigned = f.signed ? 0 : ALL;
  c.noZero = f.zero ? 0 : ALL;
  // ωSaturate/ωEncode outcomes (§4.7.5–4.7.6) and the vendor sign rules, read off the reference with exact probes:
  // far above MaxFinite, far below MinFinite, ±∞, NaN of either sign, −0; +0 stands for every positive zero result
  // (below MinFinite in formats without zero, and the only such lane of the E8M0 cast, whose subnormals are quirks).
  c.negativeZero = f.zero ? probe(f, rho, finite(-1, 0n, 0)) : 0;
  c.above = probe(f, rho, finite(1, 1n, 1 << 20));
  c.belowNegative = probe(f, rho, finite(-1, 1n, 1 << 20));
  c.belowPositive = probe(f, rho, finite(1, 0n, 0));
  c.infPositive = probe(f, rho, { kind: "infinity", sign: 1 });
  c.infNegative = probe(f, rho, { kind: "infinity", sign: -1 });
  const nanPositive = probe(f, rho, { kind: "nan", sign: 1 });
  c.nanPositive = nanPositive;
  c.nanNegative = probe(f, rho, { kind: "nan", sign: -1 });
  // numpy float16 keeps the top P − 1 payload bits of a NaN and stays NaN (its float32 → float16 cast truncates the payload).
  const keepPayload = f.policy.nanPayload === "keep" && f.infinity && f.hasNaN;
  c.keepPayload = keepPayload ? ALL : 0;
  c.keepOffset = keepPayload ? f.infMagnitude - nanPositive : 0;
  const quirk = rho.vendor === "ml_dtypes_e8m0";
  c.quirk = quirk ? ALL : 0;
  c.quirkThreshold = quirk ? 2 ** minQ : 0;
  c.minPositive = f.minPositiveCode;
  c.shift = shift;
  c.fractionShift = 32 - shift;
  c.cShift = 32 - N;
  c.randomShift = 32 - N;
  c.stageC = stageC ? 1 : 0;
  c.fast = fastPath(f, rho, c, keepPayload) ? 1 : 0;
  return c;
}

/**
 * Fills the fast-path constants (and fastDirected, fastCarry, fastKeepPayload, fastNoZero) and returns whether the
 * fast path applies. The fast path rounds NearestTiesToEven (one float addition at each lane's quantum where
 * nearestCountHolds, else the integer carry with the float-add trick for subnormal results), StochasticA/B/C (R'
 * added at the fraction bits) or the other modes (an addend on the float32 bits, a threshold on the fraction of
 * subnormal results) with MinNormal ≥ 2^−127, so every float32 subnormal has the subnormal quantum, and saturates
 * with a clamp: it applies when the overflow code is MaxFinite or the next magnitude (∞ or NaN), with the sign ORed
 * in for negative values of signed formats (one clamp for both signs except in the directed variant); negative
 * values of unsigned formats, ±∞ and NaN take their probed codes. Formats without zero (unsigned, P = 1:
 * encodeSupported admits no other) take a variant of their own under every deterministic rounding and ml_dtypes'
 * E8M0 cast (noZeroConstants).
 */
function fastPath(f: Format, rho: ResolvedProjection, c: EncodeConstants, keepPayload: boolean): boolean {
  const P = f.P;
  const minQ = f.minQuantumExponent;
  const lowNormal = minNormalExponent(f);
  const noZero = !f.zero;
  let directed = false;
  // Float32 subnormals must all have the subnormal quantum 2^minQ (MinNormal ≥ 2^−127; then 2^−126 splits the paths).
  if ((rho.vendor !== "none" && !noZero) || f.subnormals !== "gradual" || lowNormal < -127) return false;
  if (noZero) {
    if (isStochastic(rho.rounding) || !noZeroConstants(f, rho, c)) return false;
  } else if (rho.rounding === "NearestTiesToEven") {
    if (minQ + 23 > 127) return false;
    c.fastCarry = nearestCountHolds(f, c.above) ? 0 : 1;
  } else if (isStochastic(rho.rounding)) {
    // stochasticMagnitude: codes at bit c0 with NS fraction bits below; every product must stay below 2^32.
    const N = rho.stochasticBits;
    const twice = rho.rounding === "StochasticB";
    const NS = N + (twice ? 1 : 0);
    const c0 = f.K <= 8 ? 23 : 16;
    const shift = 24 - P;
    const limit = c.above;
    // Subnormal results: y = |x|·2^(NS − minQ) capped at MinNormal's 2^yBits (float32 subnormals must lie below
    // MinNormal, so MinNormal ≥ 2^−126); exact integers up to 2^23.
    const yBits = lowNormal + NS - minQ;
    // Seeded R comes from bytes or halves of the stream words (fieldsLog2 > 0): N ≤ 16.
    if (
      N > 16 ||
      (f.K <= 8 && NS - minQ > 127) ||
      lowNormal < -126 ||
      shift > c0 ||
      NS > c0 ||
      yBits > 23 ||
      yBits - NS + c0 > 32 ||
      limit * 2 ** shift >= 2 ** 32 ||
      limit >= 2 ** (32 - c0)
    )
      return false;
    c.stochasticYCap = 2 ** yBits;
    const d = shift - NS;
    c.stochasticMask = d > 0 ? ~(2 ** d - 1) : ALL;
    c.stochasticClamp = limit * 2 ** shift;
    c.stochasticUp = 2 ** (c0 - shift);
    c.stochasticSubnormalUp = 2 ** (c0 - NS);
    const e1 = Math.min(NS - minQ, 127);
    c.stochasticScale = 2 ** e1;
    c.stochasticScale2 = 2 ** (NS - minQ - e1);
    c.stochasticOneAt = twice ? 2 ** (31 - N) : 0;
    const rnite = rho.rounding === "StochasticC" && d > 0;
    c.stochasticCRebias = (f.bias - 127) * 2 ** 23 + (rnite ? 2 ** (d - 1) - 1 : 0);
    c.stochasticCBit = rnite ? 2 ** d : INT_MIN; // bit 31 of |x| is never set: nothing to round
  } else {
    const t = normalAddends(rho.rounding, P);
    const g = subnormalThresholds(rho.rounding);
    if (!t || !g) return false;
    Object.assign(c, { directedTBase: t.base, directedTOdd: t.odd, directedTNegative: t.negative, directedTPositive: t.positive });
    Object.assign(c, { directedGBase: g.base, directedGOdd: g.odd, directedGNegative: g.negative, directedGPositive: g.positive });
    directed = true;
  }
  const max = f.maxFiniteMagnitude;
  const above = c.above;
  const belowNegative = c.belowNegative;
  // Clamps: MaxFinite or the next magnitude; a negative lane's code is its clamp with the sign bit ORed in. The
  // directed variant clamps each sign on its own, the others need one clamp for both.
  const limits = [max, max + 1];
  const limitNegative = f.signed ? (limits.find((m) => (m | f.signBit) === belowNegative) ?? -1) : above;
  if (!limits.includes(above) || limitNegative < 0 || (!directed && limitNegative !== above)) return false;
  c.directedLimitNegative = limitNegative;
  const zeroSign = c.negativeZero;
  if (zeroSign !== 0 && zeroSign !== f.signBit) return false;
  c.fastRebias = (f.bias - 127) * 2 ** 23;
  c.fastHalf = 2 ** (23 - P) - 1;
  c.fastMagic = 2 ** (minQ + 23);
  c.fastNormalBits = fastNormalBits(f);
  c.fastLimit = above;
  c.fastStep = (23 - (P - 1)) * 2 ** 23;
  c.fastMagicHigh = (minQ + 150) * 2 ** 7; // 2^(minQ+23) is normal: its biased exponent, above 7 fraction bits
  c.fastUnit = 2 ** (P - 1);
  c.narrowLimit = above;
  c.plainSign = f.signed && zeroSign !== 0 ? 1 : 0;
  // Narrow-lane codes (packed into every byte or half of a lane).
  c.narrowSignBit = f.signBit;
  c.narrowZeroClear = zeroSign === 0 ? f.signBit : 0;
  c.narrowUnsigned = f.signed ? 0 : 0xffff;
  c.narrowBelowNegative = f.signed ? 0 : belowNegative;
  c.narrowInfPositive = c.infPositive;
  c.narrowInfNegative = c.infNegative;
  c.narrowNaNPositive = c.nanPositive;
  c.narrowNaNNegative = c.nanNegative;
  c.narrowOne = 1;
  c.narrowKeepOffset = c.keepOffset;
  if (f.K <= 8 && keepPayload) return false;
  c.fastKeepPayload = keepPayload ? 1 : 0;
  c.fastDirected = directed ? 1 : 0;
  c.fastNoZero = noZero ? 1 : 0;
  return true;
}

type Addends = { base: number; odd: number; negative: number; positive: number };

/**
 * Whether NearestTiesToEven's exponent-count form (assembly/encode-deterministic.ts, nearestEight) gives every
 * finite float32 its code up to the clamp `limit`. The form adds C = 2^23·q (q the quantum of |x|'s binade) to |x|;
 * C's bits are |x|'s exponent bits plus (23 − M)·2^23, which is +∞'s bits for binade 105 + M (above it they wrap
 * negative and the count grows past any clamp). In that binade the count is (105 − minQ)·2^M: it must reach the
 * clamp. And the float addition's tie goes to the even count, the even code only where a binade holds an even number
 * of codes (P ≥ 2). Formats with 8 exponent bits (bfloat16) or P = 1 take the integer carry instead.
 */
function nearestCountHolds(f: Format, limit: number): boolean {
  return f.P >= 2 && (105 - f.minQuantumExponent) * 2 ** (f.P - 1) >= limit;
}

/**
 * Addends T on the float32 bits of a normal result (2^(24−P) = one unit of the code): constant, if the truncated code
 * is odd, if x < 0, if x > 0. The directed variant takes every deterministic mode but NearestTiesToEven (the other
 * variants' float additions), the noZero variant all of them.
 */
function normalAddends(rounding: Rounding, P: number): Addends | undefined {
  const unit = 2 ** (24 - P);
  const t = { base: 0, odd: 0, negative: 0, positive: 0 };
  switch (rounding) {
    case "TowardZero":
      return t;
    case "TowardMaxMagnitude":
      return { ...t, base: unit - 1 };
    case "TowardPositive":
      return { ...t, positive: unit - 1 };
    case "TowardNegative":
      return { ...t, negative: unit - 1 };
    case "NearestTiesToAway":
      return { ...t, base: unit / 2 };
    case "NearestTiesToEven":
      return { ...t, base: unit / 2 - 1, odd: 1 };
    case "ToOdd":
      return { ...t, base: unit - 1, odd: 1 - unit };
    default:
      return undefined;
  }
}

/** The directed variant's thresholds G on bits(ν) of a subnormal result (ν > 0 ⇔ bits > 0; ν ≥ ½ ⇔ bits > 0x3effffff), built like T. */
function subnormalThresholds(rounding: Rounding): Addends | undefined {
  const never = 0x7fffffff;
  const g = { base: 0, odd: 0, negative: 0, positive: 0 };
  switch (rounding) {
    case "TowardZero":
      return { ...g, base: never };
    case "TowardMaxMagnitude":
      return g;
    case "TowardPositive":
      return { ...g, negative: never };
    case "TowardNegative":
      return { ...g, positive: never };
    case "NearestTiesToAway":
      return { ...g, base: 0x3effffff };
    case "ToOdd":
      return { ...g, odd: never };
    default:
      return undefined;
  }
}

/**
 * The noZero variant's constants: an unsigned P = 1 format without zero, whose code 0 is MinPositive = MinNormal =
 * 2^minQ ≥ 2^−127, under a deterministic rounding or ml_dtypes' E8M0 cast (NearestTiesToAway on normal results, its
 * own rule below 2^−126). Normal results round as in the directed variant (T for a positive lane). The other lanes
 * are read off the reference as thresholds on the float32 bits, since their codes are monotone in them: lanes below
 * fastNormalBits lie below 2·MinPositive, so their codes are the below-MinFinite one (a zero result), 0 or 1; and
 * every lane below the first positive float32 whose code differs from the below-MinFinite code, negative ones and
 * ±0 included, takes that code (when it is 0, MinPositive's, the lanes rounding to MinPositive share it). Returns
 * false when the probes do not have that shape.
 */
function noZeroConstants(f: Format, rho: ResolvedProjection, c: EncodeConstants): boolean {
  const t = normalAddends(rho.vendor === "ml_dtypes_e8m0" ? "NearestTiesToAway" : rho.rounding, f.P);
  if (f.signed || f.P !== 1 || !t) return false;
  // The kernel adds the rebias with T and reads the parity off the float32 bits: an odd rebias (in units of the
  // code) flips it.
  const flip = (f.bias - 127) % 2 !== 0;
  c.noZeroT = (f.bias - 127) * 2 ** 23 + t.base + t.positive + (flip ? t.odd : 0);
  c.noZeroTOdd = flip ? -t.odd : t.odd;
  const below = c.belowPositive;
  const code = (bits: number) => probe(f, rho, fromFloat32Bits(bits));
  // Negative lanes (of any magnitude) and ±0 share the below code.
  if (c.belowNegative !== below || code(0x80000001) !== below || code(0x80000000) !== below) return false;
  const normalBits = fastNormalBits(f);
  /** The first positive float32 bits where `is` holds (it holds from there on), or normalBits. */
  const first = (is: (code: number) => boolean): number => {
    let lo = 1;
    let hi = normalBits;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (is(code(mid))) hi = mid;
      else lo = mid + 1;
    }
    return hi;
  };
  c.noZeroBelowBits = first((k) => k !== below);
  c.noZeroOneBits = first((k) => k !== below && k !== 0);
  c.noZeroBelow = below;
  // The thresholds must split the lanes below fastNormalBits into codes below, 0 and 1 exactly as the reference.
  const lanes = [c.noZeroBelowBits - 1, c.noZeroBelowBits, c.noZeroOneBits - 1, c.noZeroOneBits].filter((b) => b > 0 && b < normalBits);
  return lanes.every((b) => code(b) === (b < c.noZeroBelowBits ? below : b >= c.noZeroOneBits ? 1 : 0));
}
