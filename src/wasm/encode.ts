// Quantize in Wasm: derives the encode kernel's constant block (assembly/encode.ts) from a Format and a projection
// and streams float32 arrays through it. Unsupported cases return undefined so the caller runs the exact reference.
import { project } from "../exact/project.js";
import { type ResolvedProjection, type Rounding, isStochastic } from "../exact/projection.js";
import { type Exact, finite } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { fieldsLog2, seedKeys } from "../random.js";
import { kernels } from "./instance.js";
import { keep, memoryBuffer, stream, type WasmView } from "./memory.js";

// Layout of the constant block: 16-byte slots (splatted i32 or f32), then scalar i32 words (assembly/encode.ts).
const SLOT = {
  magOffset: 0,
  remainderMask: 1,
  normalMin: 2,
  scale1: 3,
  scale2: 4,
  zeroMagnitude: 5,
  flushBelow: 6,
  maxMagnitude: 7,
  tBase: 8,
  tOdd: 9,
  tEven: 10,
  tPositive: 11,
  tNegative: 12,
  fractionMask: 13,
  cHalf: 14,
  cBit: 15,
  randomMask: 16,
  signBit: 17,
  negativeZero: 18,
  unsigned: 19,
  noZero: 20,
  above: 21,
  belowPositive: 22,
  belowNegative: 23,
  infPositive: 24,
  infNegative: 25,
  nanPositive: 26,
  nanNegative: 27,
  keepPayload: 28,
  keepOffset: 29,
  quirk: 30,
  quirkThreshold: 31,
  minPositive: 32,
  key0: 33,
  key1: 34,
  fastRebias: 35,
  fastHalf: 36,
  fastMagic: 37,
  fastNormalBits: 38,
  fastLimit: 39,
  narrowSignBit: 40,
  narrowZeroClear: 41,
  narrowUnsigned: 42,
  narrowNaNPositive: 43,
  narrowNaNNegative: 44,
  narrowOne: 45,
  narrowKeepOffset: 46,
  stochasticMask: 47,
  stochasticScale: 48,
  stochasticOneAt: 49,
  stochasticCRebias: 50,
  stochasticCBit: 51,
  directedTBase: 52,
  directedTOdd: 53,
  directedTNegative: 54,
  directedTPositive: 55,
  directedGBase: 56,
  directedGOdd: 57,
  directedGNegative: 58,
  directedGPositive: 59,
  stochasticScale2: 60,
  narrowBelowNegative: 61,
  narrowInfPositive: 62,
  narrowInfNegative: 63,
  directedLimitNegative: 64,
  stochasticClamp: 65,
  stochasticUp: 66,
  stochasticSubnormalUp: 67,
  stochasticYCap: 68,
} as const;
const SLOTS = 69;
const SCALAR = {
  shift: 0,
  fractionShift: 1,
  cShift: 2,
  randomShift: 3,
  random: 4,
  wide: 5,
  stageC: 6,
  fast: 7,
  fields: 8,
  directed: 9,
} as const;
const FAST = { none: 0, bytes: 1, wide: 2, wideKeep: 3 } as const;
/** i32 words of the constants the host writes at the start of a parameter block (slots, then scalar words). */
export const BLOCK_WORDS = SLOTS * 4 + 16;

/** How the kernel gets R: none (deterministic), the seeded generator, or a caller array of u8/u16/u32. */
const RANDOM_KIND = { none: 0, seed: 1, u8: 2, u16: 3, u32: 4 } as const;

/** Largest N the kernel handles: ν carries 31 exact fraction bits + sticky, B needs N + 1 of them, C N + 1 + sticky. */
export const MAX_KERNEL_STOCHASTIC_BITS = 30;

export type WasmRandom = { seed: number } | { array: Uint8Array | Uint16Array | Uint32Array } | undefined;

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

function probe(f: Format, rho: ResolvedProjection, x: Exact): number {
  return project(x, f, rho, 0);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function f32Bits(v: number): number {
  f32[0] = v;
  return u32[0]!;
}

/** The constant block for (f, ρ, random source kind), as i32 words. */
function constantBlock(f: Format, rho: ResolvedProjection, kind: number, key0: number, key1: number): Int32Array {
  const block = new Int32Array(BLOCK_WORDS);
  const set = (slot: number, v: number) => block.fill(v | 0, slot * 4, slot * 4 + 4);
  const P = f.P;
  const minQ = f.minQuantumExponent;
  const shift = 24 - P;
  const N = rho.stochasticBits;
  // ml_dtypes' E8M0 cast rounds to nearest, ties away; its other rules are probed below.
  const rounding: Rounding = rho.vendor === "ml_dtypes_e8m0" ? "NearestTiesToAway" : rho.rounding;
  const t = roundingAddends(rounding, N);
  const lowNormal = minNormalExponent(f) + 127;
  set(SLOT.magOffset, (f.bias - 127) * 2 ** (P - 1));
  set(SLOT.remainderMask, 2 ** shift - 1);
  set(SLOT.normalMin, lowNormal < -200 ? INT_MIN : lowNormal > 255 ? 0x7fffffff : lowNormal * 2 ** 23);
  // The subnormal path runs only where some float32 lies below MinNormal (then 0 ≤ −minQ < 149 + P).
  const scaled = lowNormal > -22 ? -minQ : 0;
  const e1 = Math.min(scaled, 127);
  block.fill(f32Bits(2 ** e1), SLOT.scale1 * 4, SLOT.scale1 * 4 + 4);
  block.fill(f32Bits(2 ** (scaled - e1)), SLOT.scale2 * 4, SLOT.scale2 * 4 + 4);
  set(SLOT.zeroMagnitude, (minQ + P + f.bias - 2) * 2 ** (P - 1));
  set(SLOT.flushBelow, f.subnormals === "flush" ? 2 ** (P - 1) : INT_MIN);
  set(SLOT.maxMagnitude, f.maxFiniteMagnitude);
  set(SLOT.tBase, t.base);
  set(SLOT.tOdd, t.odd);
  set(SLOT.tEven, t.even);
  set(SLOT.tPositive, t.positive);
  set(SLOT.tNegative, t.negative);
  set(SLOT.fractionMask, t.mask);
  const stageC = rounding === "StochasticC";
  set(SLOT.cHalf, stageC ? 2 ** (31 - N) - 1 : 0);
  set(SLOT.cBit, stageC ? 1 : 0);
  set(SLOT.randomMask, N > 0 ? ~(2 ** (32 - N) - 1) : 0);
  set(SLOT.signBit, f.signBit);
  set(SLOT.unsigned, f.signed ? 0 : ALL);
  set(SLOT.noZero, f.zero ? 0 : ALL);
  // ωSaturate/ωEncode outcomes (§4.7.5–4.7.6) and the vendor sign rules, read off the reference with exact probes:
  // far above MaxFinite, far below MinFinite, ±∞, NaN of either sign, −0; +0 stands for every positive zero result
  // (below MinFinite in formats without zero, and the only such lane of the E8M0 cast, whose subnormals are quirks).
  set(SLOT.negativeZero, f.zero ? probe(f, rho, finite(-1, 0n, 0)) : 0);
  set(SLOT.above, probe(f, rho, finite(1, 1n, 1 << 20)));
  set(SLOT.belowNegative, probe(f, rho, finite(-1, 1n, 1 << 20)));
  set(SLOT.belowPositive, probe(f, rho, finite(1, 0n, 0)));
  set(SLOT.infPositive, probe(f, rho, { kind: "infinity", sign: 1 }));
  set(SLOT.infNegative, probe(f, rho, { kind: "infinity", sign: -1 }));
  const nanPositive = probe(f, rho, { kind: "nan", sign: 1 });
  set(SLOT.nanPositive, nanPositive);
  set(SLOT.nanNegative, probe(f, rho, { kind: "nan", sign: -1 }));
  // numpy float16 keeps the top P − 1 payload bits of a NaN and stays NaN (its float32 → float16 cast truncates the payload).
  const keepPayload = f.nanPayload === "keep" && f.infinity && f.hasNaN;
  set(SLOT.keepPayload, keepPayload ? ALL : 0);
  set(SLOT.keepOffset, keepPayload ? f.infMagnitude - nanPositive : 0);
  const quirk = rho.vendor === "ml_dtypes_e8m0";
  set(SLOT.quirk, quirk ? ALL : 0);
  set(SLOT.quirkThreshold, quirk ? f32Bits(2 ** minQ) : 0);
  set(SLOT.minPositive, f.minPositiveCode);
  set(SLOT.key0, key0);
  set(SLOT.key1, key1);
  const scalars = SLOTS * 4;
  block[scalars + SCALAR.shift] = shift;
  block[scalars + SCALAR.fractionShift] = 32 - shift;
  block[scalars + SCALAR.cShift] = 32 - N;
  block[scalars + SCALAR.randomShift] = 32 - N;
  block[scalars + SCALAR.random] = kind;
  block[scalars + SCALAR.fields] = N > 0 ? fieldsLog2(N) : 0;
  block[scalars + SCALAR.wide] = f.K > 8 ? 1 : 0;
  block[scalars + SCALAR.stageC] = stageC ? 1 : 0;
  block[scalars + SCALAR.fast] = fastPath(f, rho, block, keepPayload);
  return block;
}

/**
 * Fills the fast-path slots and returns its variant, or FAST.none. The fast path rounds NearestTiesToEven (the
 * float-add trick for subnormal results), StochasticA/B/C (R' added at the fraction bits) or the other modes (an
 * addend on the float32 bits, a threshold on the fraction of subnormal results) with MinNormal ≥ 2^−127,
 * so every float32 subnormal has the subnormal quantum, and saturates with a clamp: it applies when the overflow
 * code is MaxFinite or the next magnitude (∞ or NaN), with the sign ORed in for negative values of signed formats
 * (one clamp for both signs except in the directed variant); negative values of unsigned formats, ±∞ and NaN take
 * their probed codes.
 */
function fastPath(f: Format, rho: ResolvedProjection, block: Int32Array, keepPayload: boolean): number {
  const word = (slot: number) => block[slot * 4]!;
  const set = (slot: number, v: number) => block.fill(v | 0, slot * 4, slot * 4 + 4);
  const scalars = SLOTS * 4;
  const P = f.P;
  const minQ = f.minQuantumExponent;
  const lowNormal = minNormalExponent(f);
  // Float32 subnormals must all have the subnormal quantum 2^minQ (MinNormal ≥ 2^−127; then 2^−126 splits the paths).
  if (rho.vendor !== "none" || !f.zero || f.subnormals !== "gradual" || lowNormal < -127) return FAST.none;
  if (rho.rounding === "NearestTiesToEven") {
    if (minQ + 23 > 127) return FAST.none;
  } else if (isStochastic(rho.rounding)) {
    // stochasticMagnitude: codes at bit c0 with NS fraction bits below; every product must stay below 2^32.
    const N = rho.stochasticBits;
    const twice = rho.rounding === "StochasticB";
    const NS = N + (twice ? 1 : 0);
    const c0 = f.K <= 8 ? 23 : 16;
    const shift = 24 - P;
    const limit = word(SLOT.above);
    // Subnormal results: y = |x|·2^(NS − minQ) capped at MinNormal's 2^yBits (float32 subnormals must lie below
    // MinNormal, so MinNormal ≥ 2^−126); exact integers up to 2^23.
    const yBits = lowNormal + NS - minQ;
    // Seeded R comes from bytes or halves of the stream words (fieldsLog2 > 0): N ≤ 16.
    if (N > 16 || (f.K <= 8 && NS - minQ > 127) || lowNormal < -126 || shift > c0 || NS > c0 || yBits > 23 || yBits - NS + c0 > 32 || limit * 2 ** shift >= 2 ** 32 || limit >= 2 ** (32 - c0)) return FAST.none;
    block.fill(f32Bits(2 ** yBits), SLOT.stochasticYCap * 4, SLOT.stochasticYCap * 4 + 4);
    const d = shift - NS;
    set(SLOT.stochasticMask, d > 0 ? ~(2 ** d - 1) : ALL);
    set(SLOT.stochasticClamp, limit * 2 ** shift);
    set(SLOT.stochasticUp, 2 ** (c0 - shift));
    set(SLOT.stochasticSubnormalUp, 2 ** (c0 - NS));
    const e1 = Math.min(NS - minQ, 127);
    block.fill(f32Bits(2 ** e1), SLOT.stochasticScale * 4, SLOT.stochasticScale * 4 + 4);
    block.fill(f32Bits(2 ** (NS - minQ - e1)), SLOT.stochasticScale2 * 4, SLOT.stochasticScale2 * 4 + 4);
    set(SLOT.stochasticOneAt, twice ? 2 ** (31 - N) : 0);
    const rnite = rho.rounding === "StochasticC" && d > 0;
    set(SLOT.stochasticCRebias, (f.bias - 127) * 2 ** 23 + (rnite ? 2 ** (d - 1) - 1 : 0));
    set(SLOT.stochasticCBit, rnite ? 2 ** d : INT_MIN); // bit 31 of |x| is never set: nothing to round
  } else {
    // Directed, ToOdd, TiesToAway: T on the float32 bits (2^(24−P) = one unit of the code) and the threshold G on
    // bits(ν) of a subnormal result (ν > 0 ⇔ bits > 0; ν ≥ ½ ⇔ bits > 0x3effffff).
    const unit = 2 ** (24 - P);
    const t = { base: 0, odd: 0, negative: 0, positive: 0 };
    const g = { base: 0x7fffffff, odd: 0, negative: 0, positive: 0 };
    const never = 0x7fffffff;
    switch (rho.rounding) {
      case "TowardZero":
        break;
      case "TowardMaxMagnitude":
        Object.assign(t, { base: unit - 1 });
        Object.assign(g, { base: 0 });
        break;
      case "TowardPositive":
        Object.assign(t, { positive: unit - 1 });
        Object.assign(g, { base: 0, negative: never });
        break;
      case "TowardNegative":
        Object.assign(t, { negative: unit - 1 });
        Object.assign(g, { base: 0, positive: never });
        break;
      case "NearestTiesToAway":
        Object.assign(t, { base: unit / 2 });
        Object.assign(g, { base: 0x3effffff });
        break;
      case "ToOdd":
        Object.assign(t, { base: unit - 1, odd: 1 - unit });
        Object.assign(g, { base: 0, odd: never });
        break;
      default:
        return FAST.none;
    }
    set(SLOT.directedTBase, t.base);
    set(SLOT.directedTOdd, t.odd);
    set(SLOT.directedTNegative, t.negative);
    set(SLOT.directedTPositive, t.positive);
    set(SLOT.directedGBase, g.base);
    set(SLOT.directedGOdd, g.odd);
    set(SLOT.directedGNegative, g.negative);
    set(SLOT.directedGPositive, g.positive);
    block[scalars + SCALAR.directed] = 1;
  }
  const max = f.maxFiniteMagnitude;
  const above = word(SLOT.above);
  const belowNegative = word(SLOT.belowNegative);
  // Clamps: MaxFinite or the next magnitude; a negative lane's code is its clamp with the sign bit ORed in. The
  // directed variant clamps each sign on its own, the others need one clamp for both.
  const limits = [max, max + 1];
  const limitNegative = f.signed ? (limits.find((m) => (m | f.signBit) === belowNegative) ?? -1) : above;
  const directed = block[scalars + SCALAR.directed] === 1;
  if (!limits.includes(above) || limitNegative < 0 || (!directed && limitNegative !== above)) return FAST.none;
  set(SLOT.directedLimitNegative, limitNegative);
  const zeroSign = word(SLOT.negativeZero);
  if (zeroSign !== 0 && zeroSign !== f.signBit) return FAST.none;
  set(SLOT.fastRebias, (f.bias - 127) * 2 ** 23);
  set(SLOT.fastHalf, 2 ** (23 - P) - 1);
  set(SLOT.fastMagic, f32Bits(2 ** (minQ + 23)));
  set(SLOT.fastNormalBits, (Math.max(lowNormal, -126) + 127) * 2 ** 23);
  set(SLOT.fastLimit, above);
  // Narrow-lane constants: each i32 word holds four bytes or two halves of the same value.
  const narrow = (slot: number, v: number) => set(slot, f.K <= 8 ? (v & 0xff) * 0x01010101 : (v & 0xffff) * 0x10001);
  narrow(SLOT.narrowSignBit, f.signBit);
  narrow(SLOT.narrowZeroClear, zeroSign === 0 ? f.signBit : 0);
  narrow(SLOT.narrowUnsigned, f.signed ? 0 : 0xffff);
  narrow(SLOT.narrowBelowNegative, f.signed ? 0 : belowNegative);
  narrow(SLOT.narrowInfPositive, word(SLOT.infPositive));
  narrow(SLOT.narrowInfNegative, word(SLOT.infNegative));
  narrow(SLOT.narrowNaNPositive, word(SLOT.nanPositive));
  narrow(SLOT.narrowNaNNegative, word(SLOT.nanNegative));
  narrow(SLOT.narrowOne, 1);
  narrow(SLOT.narrowKeepOffset, word(SLOT.keepOffset));
  if (f.K <= 8) return keepPayload ? FAST.none : FAST.bytes;
  return keepPayload ? FAST.wideKeep : FAST.wide;
}

const blocks = new WeakMap<Format, Map<string, Int32Array>>();

function cachedBlock(f: Format, rho: ResolvedProjection, kind: number, key0: number, key1: number): Int32Array {
  let perFormat = blocks.get(f);
  if (!perFormat) blocks.set(f, (perFormat = new Map()));
  const key = `${rho.rounding}/${rho.saturation}/${rho.stochasticBits}/${rho.vendor}/${kind}/${key0}/${key1}`;
  let block = perFormat.get(key);
  if (!block) {
    block = constantBlock(f, rho, kind, key0, key1);
    if (perFormat.size > 64) perFormat.clear();
    perFormat.set(key, block);
  }
  return block;
}

function randomKind(random: WasmRandom): number {
  if (random === undefined) return RANDOM_KIND.none;
  if ("seed" in random) return RANDOM_KIND.seed;
  return random.array instanceof Uint8Array ? RANDOM_KIND.u8 : random.array instanceof Uint16Array ? RANDOM_KIND.u16 : RANDOM_KIND.u32;
}

/**
 * The constant words of a parameter block for (f, ρ) and the random source, or undefined when the kernel does not
 * implement the case exactly (the caller runs the reference). For hosts placing blocks themselves (minifloat/parallel).
 */
export function encodeBlock(f: Format, rho: ResolvedProjection, random: WasmRandom): Int32Array | undefined {
  if (!encodeSupported(f, rho) || isStochastic(rho.rounding) !== (random !== undefined)) return undefined;
  const [key0, key1] = random !== undefined && "seed" in random ? seedKeys(random.seed) : [0, 0];
  return cachedBlock(f, rho, randomKind(random), key0, key1);
}

/**
 * Projects src into out (validated by the caller: Uint8Array codes for K ≤ 8, Uint16Array up to 16 bits, R < 2^N)
 * with the Wasm kernel and returns the current view of out (a new view when out lives in Wasm memory that grew).
 * Returns undefined, having written nothing, when the kernels are unavailable or (f, ρ) is not supported: the
 * caller then runs quantizeReference. `first` is the absolute index of src[0] (seeded R_i for a part of a larger array).
 */
export function quantizeWasm<T extends Uint8Array | Uint16Array>(src: Float32Array, f: Format, rho: ResolvedProjection, out: T, random: WasmRandom, first = 0): T | undefined {
  const k = kernels();
  const block = k && encodeBlock(f, rho, random);
  if (!k || !block) return undefined;
  const srcNow = keep<WasmView>(src);
  const outNow = keep<T>(out);
  const extra = random !== undefined && "array" in random ? [keep<WasmView>(random.array)] : [];
  // The block sits in the kernel's static data, so writing it cannot grow memory.
  const params = k.encodeParams();
  new Int32Array(memoryBuffer(), params, BLOCK_WORDS).set(block);
  stream(srcNow(), outNow(), (s, d, count, start, extraPtrs) => k.encodeF32(params, s, d, count, first + start, extraPtrs[0] ?? 0), {
    extra: extra.map((a) => a()),
  });
  return outNow();
}
