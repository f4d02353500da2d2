// The Wasm path of quantizeBlocks (assembly/block.ts): round to nearest even, any block size (even when packed),
// trailing partial blocks included. Power-of-two scales (OCP MX) for element formats with an IEEE-style layout and
// gradual subnormals; ratio scales (NVFP4: amax / (MaxFinite·T) rounded into the scale format) for sign–magnitude
// elements of at most 8 magnitudes, whose codes the kernel counts against per-scale float32 thresholds computed
// here exactly. Streams the input through the fixed scratch region (memory does not grow with the input).
import { float32Bits, float32FromBits } from "../exact/value.js";
import { kernels } from "../wasm/instance.js";
import { CHUNK, allocBytesRaw, freeBytesRaw, keep, memoryBuffer, stream } from "../wasm/memory.js";
import { maxFiniteValue as maxValue, valueTableOrNaN } from "../exact/tables.js";
import type { BlockPlan, BlockScheme } from "./mx.js";

/** Byte offsets in mxQuantize's parameter block (layout in assembly/block.ts). */
const R_DENOM = 160;
const R_SHIFT = 184;
const R_DIVIDE = 188;
const THRESHOLDS = 272;
/** Words per scale code in the kernel's table: 7 thresholds (magnitude codes 0…7), then S·T. */
const THRESHOLD_SLOTS = 8;

/** Whether the ratio kernel's layout assumptions hold for a scheme (checked once per scheme). */
const ratioLayout = new WeakMap<BlockScheme, boolean>();

/**
 * Ratio rule layout: element magnitudes 0…m (m ≤ 7) ascending with code, negatives at signBit + magnitude; the
 * scale's codes from MinNormal to MaxFinite are consecutive float64 bit patterns stepped by 2^(52 − M), so the
 * kernel's rounding on the float64 bits gives the code by subtraction.
 */
function ratioLayoutHolds(s: BlockScheme): boolean {
  let ok = ratioLayout.get(s);
  if (ok !== undefined) return ok;
  const e = s.element;
  const ev = valueTableOrNaN(e);
  const m = e.maxFiniteMagnitude;
  ok = !s.twosComplement && e.P >= 2 && m >= 1 && m <= 7 && ev[0] === 0;
  for (let c = 1; ok && c <= m; c++) ok = ev[c]! > ev[c - 1]! && ev[e.signBit + c] === -ev[c]!;
  const sc = s.scale;
  const sv = valueTableOrNaN(sc);
  const step = 2n ** BigInt(52 - (sc.P - 1));
  const bits = (v: number) => new BigUint64Array(Float64Array.of(v).buffer)[0]!;
  const base = bits(sv[sc.minNormalCode]!);
  ok &&= sc.P >= 2 && sc.P <= 8 && sv[sc.minNormalCode]! > 0 && sc.maxFiniteMagnitude >= sc.minNormalCode;
  for (let c = sc.minNormalCode; ok && c <= sc.maxFiniteMagnitude; c++) ok = bits(sv[c]!) === base + BigInt(c - sc.minNormalCode) * step;
  ratioLayout.set(s, ok);
  return ok;
}

/** Whether the pow2 rule's rounding of a scaled float32 (magnitude4: one addition at its quantum) holds for an element format. */
function quantumCountHolds(e: BlockScheme["element"]): boolean {
  // MaxFinite < 2^64: magnitudes past it, up to +∞, count above its code in the kernel (it clamps the codes, not y).
  return e.subnormals === "gradual" && e.minQuantumExponent >= -100 && e.bias + e.P < 120 && maxValue(e) < 2 ** 64;
}

/**
 * Ratio rule: whether one float32 division |x| / (S·T) followed by the pow2 rule's rounding gives RNE(|x| / (S·T))
 * for every scale code. It does when S·T and every midpoint μ of the element grid times S·T are normal float32s: a
 * float32 |x| ≠ μ·S·T lies at least one float32 spacing of μ·S·T away, and that spacing divided by S·T exceeds half
 * an ulp of μ (S·T's significand is below 2 when μ·S·T's binade is μ's plus S·T's, below 4 when one higher; where
 * μ·S·T is a power of two the spacing below it halves, but then μ is not one, or S·T is and the division is exact).
 * So the quotient never rounds onto a midpoint it is not on, and the second rounding sees the exact quotient's side.
 */
export function divisionHolds(plan: BlockPlan): boolean {
  const s = plan.scheme;
  const ev = valueTableOrNaN(s.element);
  const sv = valueTableOrNaN(s.scale);
  // A float32 value (fround keeps it) that is finite and not below MinNormal.
  const normal = (v: number) => Math.fround(v) === v && v >= 2 ** -126 && v < Infinity;
  if (!quantumCountHolds(s.element)) return false;
  for (let c = s.scale.minNormalCode; c <= s.scale.maxFiniteMagnitude; c++) {
    const d = sv[c]! * plan.tensorScale;
    if (!normal(d)) return false;
    for (let j = 0; j < s.element.maxFiniteMagnitude; j++) if (!normal(((ev[j]! + ev[j + 1]!) / 2) * d)) return false;
  }
  return true;
}

/** Whether the kernel computes exactly what quantizeBlocksReference computes for this plan. */
export function kernelApplies(plan: BlockPlan): boolean {
  const s = plan.scheme;
  const e = s.element;
  const common = plan.rho.rounding === "NearestTiesToEven" && plan.blockSize <= CHUNK && !(s.packed && plan.blockSize % 2) && e.signed && e.zero && e.K <= 8;
  if (!common) return false;
  if (s.rule === "ratio") return ratioLayoutHolds(s);
  return quantumCountHolds(e) && s.scale.K <= 8 && s.scale.P === 1 && s.scale.signBit === 0;
}

/** The smallest float32 above t (t ≥ 0; +∞ past the largest finite). */
function nextUp32(t: number): number {
  const f = Math.fround(t);
  if (f > t) return f;
  return float32FromBits(float32Bits(f) + 1);
}

/**
 * Ratio rule: per scale code from MinNormal to MaxFinite, the smallest float32 |x| whose quotient |x| / (S·T)
 * rounds (RNE) to magnitude code j + 1, for j = 0…6 (+∞ past the element's largest magnitude). The midpoint
 * between magnitudes j and j + 1 times S·T has at most 5 + 8 + 24 significant bits, so it is exact in float64; a
 * quotient exactly on it rounds to the even code.
 */
function ratioThresholds(plan: BlockPlan): Float32Array {
  const s = plan.scheme;
  const ev = valueTableOrNaN(s.element);
  const sv = valueTableOrNaN(s.scale);
  const m = s.element.maxFiniteMagnitude;
  const first = s.scale.minNormalCode;
  const out = new Float32Array((s.scale.maxFiniteMagnitude - first + 1) * THRESHOLD_SLOTS).fill(Infinity);
  for (let c = first; c <= s.scale.maxFiniteMagnitude; c++) {
    for (let j = 0; j < m; j++) {
      const t = ((ev[j]! + ev[j + 1]!) / 2) * sv[c]! * plan.tensorScale;
      const tieUp = (j + 1) % 2 === 0;
      out[(c - first) * THRESHOLD_SLOTS + j] = Math.fround(t) === t && tieUp ? t : nextUp32(t);
    }
    out[(c - first) * THRESHOLD_SLOTS + 7] = sv[c]! * plan.tensorScale;
  }
  return out;
}

/** Parameter blocks of recent plans (a ratio block holds up to 2,048 thresholds, worth keeping for repeated calls). */
const paramCache = new WeakMap<BlockScheme, Map<string, Uint8Array>>();

function cachedParams(plan: BlockPlan): Uint8Array {
  let perScheme = paramCache.get(plan.scheme);
  if (!perScheme) paramCache.set(plan.scheme, (perScheme = new Map()));
  const key = `${plan.blockSize}/${plan.fixedExp}/${plan.tensorScale}`;
  let params = perScheme.get(key);
  if (!params) {
    params = mxParams(plan);
    if (perScheme.size > 16) perScheme.clear();
    perScheme.set(key, params);
  }
  return params;
}

/** mxQuantize's parameter block for a plan (layout in assembly/block.ts). */
function mxParams(plan: BlockPlan): Uint8Array {
  const s = plan.scheme;
  const e = s.element;
  const M = e.P - 1;
  const ratio = s.rule === "ratio";
  const thresholds = ratio ? ratioThresholds(plan) : new Float32Array(0);
  const bytes = new Uint8Array(THRESHOLDS + thresholds.byteLength);
  const words = new Int32Array(bytes.buffer, 0, R_DIVIDE / 4 + 1);
  const vectors = [
    0x7fffffff,
    e.maxFiniteMagnitude * 0x01010101,
    0x7f800000,
    (23 - M) << 23,
    float32Bits(2 ** (e.minQuantumExponent + 23)),
    e.signBit * 0x01010101,
    0x000f000f,
  ];
  const negZero = e.negativeZero === "zero" && e.policy.signedZeroAndNaN;
  const scalars = [
    plan.blockSize,
    s.emax,
    plan.fixedExp ?? -10000,
    s.minScaleExp,
    s.maxScaleExp,
    ratio ? s.scale.minNormalCode : s.scale.minPositiveCode - s.minScaleExp,
    s.scale.nanCode,
    M,
    s.packed ? 1 : 0,
    s.twosComplement ? 1 : 0,
    negZero ? 1 : 0,
    ratio ? 1 : 0,
  ];
  words.set([...vectors.flatMap((v) => [v, v, v, v]), ...scalars]);
  if (ratio) {
    const sv = valueTableOrNaN(s.scale);
    // MaxFinite(element)·T is exact (≤ 4 + 24 significant bits), as the reference multiplies it.
    new Float64Array(bytes.buffer, R_DENOM, 3).set([maxValue(e) * plan.tensorScale, sv[s.scale.minNormalCode]!, maxValue(s.scale)]);
    words[R_SHIFT / 4] = 52 - (s.scale.P - 1);
    words[R_DIVIDE / 4] = divisionHolds(plan) ? 1 : 0;
    new Float32Array(bytes.buffer, THRESHOLDS).set(thresholds);
  }
  return bytes;
}

/**
 * Runs the kernel when it applies: returns the current views of scales and elements (re-created if memory grew), or
 * undefined for the reference to run instead.
 */
export function quantizeBlocksKernel(src: Float32Array, plan: BlockPlan, scales: Uint8Array, elements: Uint8Array): [Uint8Array, Uint8Array] | undefined {
  const k = kernels();
  if (!k || !kernelApplies(plan)) return undefined;
  const B = plan.blockSize;
  // Taken before allocating: a memory growth detaches Wasm views, keep() re-creates them at the same address.
  const [srcNow, scalesNow, elementsNow] = [keep(src), keep(scales), keep(elements)];
  if (src.length === 0) return [scalesNow(), elementsNow()];
  const params = cachedParams(plan);
  const p = allocBytesRaw(params.byteLength);
  try {
    new Uint8Array(memoryBuffer(), p, params.length).set(params);
    stream(srcNow(), elementsNow(), (s, d, count, _first, [sc]) => k.mxQuantize(p, s, count, sc!, d), {
      group: B,
      outGroupBytes: plan.scheme.packed ? B / 2 : B,
      outputs: [{ array: scalesNow(), groupBytes: 1 }],
    });
  } finally {
    freeBytesRaw(p, params.byteLength);
  }
  return [scalesNow(), elementsNow()];
}

/** The largest finite |x| of src as float32 bits (0 when there is none): tensorScale "auto". */
export function finiteAmaxBits(src: Float32Array): number {
  const k = kernels();
  if (k) {
    let top = 0;
    stream(src, null, (s, _d, count) => {
      top = k.amaxFinite(s, count, top) >>> 0;
    });
    return top;
  }
  // |x| orders like its bits; NaN and ±∞ are ≥ 0x7f800000.
  const bits = new Uint32Array(src.buffer, src.byteOffset, src.length);
  let top = 0;
  for (let i = 0; i < bits.length; i++) {
    const m = bits[i]! & 0x7fffffff;
    if (m > top && m < 0x7f800000) top = m;
  }
  return top;
}
