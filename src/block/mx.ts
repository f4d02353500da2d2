// Block-scaled tensors: OCP MX v1.0 (MXFP8/6/4, MXINT8; E8M0 scale per block of 32) and NVFP4 (E2M1, blocks of
// 16, E4M3 scale, optional float32 tensor scale), or a custom { element, scale, blockSize }. One parameterised
// path: the scheme's constants drive both the scalar reference here and the Wasm kernel (src/block/wasm.ts).
// Decisions (README "Block formats and dot products"): a NaN or ±∞ in a block gives the
// NaN scale (the whole block decodes to NaN); an all-zero block gets the smallest scale (E8M0 code 0 = 2^−127;
// NVFP4 2^−6); the shared exponent is clamped to [−127, 127]; elements are rounded (default RNE) and saturated;
// MXINT8 is symmetric (±127/64 when quantizing; 0x80 = −2 is decoded); a trailing partial block is a block of
// the remaining elements.
import { ArgumentTypeError, CodeRangeError, ProjectionError, describe, requireInteger } from "../errors.js";
import { decodeExact } from "../exact/decode.js";
import { project } from "../exact/cast.js";
import { type ResolvedProjection, type Rounding, ROUNDINGS, isStochastic, resolveProjection } from "../exact/projection.js";
import { maxFiniteValue, valueTableOrNaN } from "../exact/tables.js";
import { float32Bits, float32FromBits, fromNumber } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { format, integerFormat } from "../format/registry.js";
import { type FormatLike, resolveFormat } from "../api/scalar.js";
import { rejectRemoved } from "../api/validate.js";
import { checkOptions } from "../options.js";
import { finiteAmaxBits } from "./wasm.js";

export const MX_SCHEMES = ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8", "nvfp4"] as const;
export type SchemeName = (typeof MX_SCHEMES)[number];

/** MXINT8's elements as a sign–magnitude format: magnitudes k·2^−6 for k = 0…127 (P = 7, one exponent bit, bias 1). */
export const MXINT8_ELEMENT: Format = integerFormat("mxint8_element", "MX", 8, 1);

/** A resolved scheme: every constant the reference and the kernel need. */
export interface BlockScheme {
  readonly name: string;
  readonly element: Format;
  readonly scale: Format;
  readonly blockSize: number;
  /** "pow2": the OCP rule, scale 2^(⌊log2 amax⌋ − emax) in a P = 1 scale format; "ratio": amax / MaxFinite(element) rounded into the scale format (NVFP4). */
  readonly rule: "pow2" | "ratio";
  /** ⌊log2 MaxFinite(element)⌋ (OCP emax_elem). */
  readonly emax: number;
  /** Elements stored as two's complement bytes (MXINT8). */
  readonly twosComplement: boolean;
  /** 4-bit elements, two per byte, the first in the low nibble. */
  readonly packed: boolean;
  /** Range of the power-of-two scale exponent (E8M0: −127 … 127). */
  readonly minScaleExp: number;
  readonly maxScaleExp: number;
}

/** A custom scheme: any element format of ≤ 8 bits, a scale format of ≤ 8 bits, a block size. */
export interface CustomScheme {
  element: FormatLike;
  scale: FormatLike;
  blockSize: number;
}

const schemes = new Map<string, BlockScheme>();

function build(name: string, element: Format, scale: Format, blockSize: number, twosComplement = false): BlockScheme {
  const maxElem = maxFiniteValue(element);
  const rule = scale.P === 1 ? "pow2" : "ratio";
  let minScaleExp = 0;
  let maxScaleExp = 0;
  if (rule === "pow2") {
    const lo = decodeExact(scale.minPositiveCode, scale);
    const hi = decodeExact(scale.maxFiniteMagnitude, scale);
    minScaleExp = lo.kind === "finite" ? lo.exponent : 0;
    maxScaleExp = hi.kind === "finite" ? hi.exponent : 0;
  }
  return Object.freeze({
    name,
    element,
    scale,
    blockSize,
    rule,
    emax: Math.floor(Math.log2(maxElem)),
    twosComplement,
    packed: element.K <= 4,
    minScaleExp,
    maxScaleExp,
  });
}

/** Resolves a scheme name or a custom { element, scale, blockSize }. */
export function blockScheme(scheme: SchemeName | CustomScheme | BlockScheme, argument = "scheme"): BlockScheme {
  if (typeof scheme === "string") {
    const key = scheme.toLowerCase();
    let s = schemes.get(key);
    if (!s) {
      const E8M0 = format("float8_e8m0fnu");
      const table: Record<string, () => BlockScheme> = {
        mxfp8_e4m3: () => build("mxfp8_e4m3", format("float8_e4m3fn"), E8M0, 32),
        mxfp8_e5m2: () => build("mxfp8_e5m2", format("float8_e5m2"), E8M0, 32),
        mxfp6_e3m2: () => build("mxfp6_e3m2", format("float6_e3m2fn"), E8M0, 32),
        mxfp6_e2m3: () => build("mxfp6_e2m3", format("float6_e2m3fn"), E8M0, 32),
        mxfp4: () => build("mxfp4", format("float4_e2m1fn"), E8M0, 32),
        mxint8: () => build("mxint8", MXINT8_ELEMENT, E8M0, 32, true),
        nvfp4: () => build("nvfp4", format("float4_e2m1fn"), format("float8_e4m3fn"), 16),
      };
      const make = table[key];
      if (!make) throw new ArgumentTypeError(argument, `got ${describe(scheme)}; allowed: ${MX_SCHEMES.join(", ")} or { element, scale, blockSize }`);
      s = make();
      schemes.set(key, s);
    }
    return s;
  }
  if (scheme === null || typeof scheme !== "object") {
    throw new ArgumentTypeError(argument, `got ${describe(scheme)}; allowed: ${MX_SCHEMES.join(", ")} or { element, scale, blockSize }`);
  }
  if ("rule" in scheme && "emax" in scheme) return scheme as BlockScheme;
  const c = scheme as CustomScheme;
  const element = resolveFormat(c.element, `${argument}.element`);
  const scale = resolveFormat(c.scale, `${argument}.scale`);
  if (element.K > 8) throw new CodeRangeError(`${argument}.element`, `${element.name} has ${element.K}-bit codes; allowed: element formats of at most 8 bits`);
  if (scale.K > 8) throw new CodeRangeError(`${argument}.scale`, `${scale.name} has ${scale.K}-bit codes; allowed: scale formats of at most 8 bits`);
  if (!scale.hasNaN)
    throw new CodeRangeError(`${argument}.scale`, `${scale.name} has no NaN; allowed: a scale format with a NaN code (blocks holding NaN or ±∞ store it)`);
  if (scale.signed && scale.P !== 1 && !scale.zero)
    throw new CodeRangeError(`${argument}.scale`, `${scale.name}: allowed: a P = 1 scale (powers of two) or a format with positive finite values`);
  const blockSize = requireInteger(`${argument}.blockSize`, c.blockSize, 1, 2 ** 20);
  return build(`custom(${element.name}, ${scale.name}, ${blockSize})`, element, scale, blockSize, false);
}

export interface BlockQuantizeOptions {
  /** Element rounding (deterministic P3109 modes; default NearestTiesToEven). Elements always saturate. */
  rounding?: Rounding;
  /** Block size override (default: the scheme's, 32 for MX, 16 for NVFP4). */
  blockSize?: number;
  /** "pow2" schemes: use this shared exponent for every block instead of the amax rule (still clamped to the scale range). */
  scaleExponent?: number;
  /** "ratio" schemes (NVFP4): the float32 tensor scale T, or "auto" = fround(amax_tensor / (MaxFinite(scale)·MaxFinite(element))). */
  tensorScale?: number | "auto";
  /**
   * Arrays to write into instead of new ones: ceil(n / blockSize) scale codes and the element bytes (views into Wasm
   * memory, from allocBytes, are written in place without copies).
   */
  out?: { scales: Uint8Array; elements: Uint8Array };
}

const BLOCK_QUANTIZE_KEYS = ["rounding", "blockSize", "scaleExponent", "tensorScale", "out"] as const satisfies readonly (keyof BlockQuantizeOptions)[];

/** A block-scaled tensor: one scale code per block, element codes (packed for 4-bit elements). */
export interface BlockTensor {
  readonly scheme: BlockScheme;
  readonly length: number;
  /** Elements per block (the scheme's unless options.blockSize changed it). */
  readonly blockSize: number;
  readonly scales: Uint8Array;
  readonly elements: Uint8Array;
  /** The float32 second-level scale ("ratio" schemes; 1 when none was asked for). */
  readonly tensorScale?: number;
}

/** The resolved settings of one quantizeBlocks call. */
export interface BlockPlan {
  readonly scheme: BlockScheme;
  readonly blockSize: number;
  readonly rho: ResolvedProjection;
  readonly fixedExp?: number;
  readonly tensorScale: number;
}

/** ⌊log2 |v|⌋ of a float32 from its exponent bits; −127 for zero and subnormals (the torchao/CUDA rule). */
export function float32Exponent(v: number): number {
  return ((float32Bits(v) >>> 23) & 0xff) - 127;
}

export function planBlocks(src: Float32Array, scheme: BlockScheme, options: BlockQuantizeOptions | undefined): BlockPlan {
  if (options !== null && typeof options === "object") rejectRemoved(options);
  const o = checkOptions(options, BLOCK_QUANTIZE_KEYS);
  const rounding = o.rounding ?? "NearestTiesToEven";
  if (!(ROUNDINGS as readonly string[]).includes(rounding) || isStochastic(rounding)) {
    throw new ProjectionError("options.rounding", `got ${describe(rounding)}; allowed: ${ROUNDINGS.filter((r) => !isStochastic(r)).join(", ")}`);
  }
  const rho = resolveProjection(scheme.element, { rounding, saturation: "SatFinite" }, "options");
  const blockSize = requireInteger("options.blockSize", o.blockSize ?? scheme.blockSize, 1, 2 ** 20);
  let fixedExp: number | undefined;
  if (o.scaleExponent !== undefined) {
    if (scheme.rule !== "pow2")
      throw new ArgumentTypeError("options.scaleExponent", `only allowed for power-of-two scale schemes; ${scheme.name} computes amax / MaxFinite`);
    fixedExp = requireInteger("options.scaleExponent", o.scaleExponent, scheme.minScaleExp, scheme.maxScaleExp);
  }
  let tensorScale = 1;
  if (o.tensorScale !== undefined) {
    if (scheme.rule !== "ratio")
      throw new ArgumentTypeError("options.tensorScale", `only allowed for NVFP4-style schemes (${scheme.name} uses power-of-two scales)`);
    if (o.tensorScale === "auto") {
      const t = Math.fround(float32FromBits(finiteAmaxBits(src)) / (maxValue(scheme.scale) * maxValue(scheme.element)));
      tensorScale = t > 0 && Number.isFinite(t) ? t : 1;
    } else {
      const t = o.tensorScale;
      if (typeof t !== "number" || !(t > 0) || !Number.isFinite(t) || Math.fround(t) !== t) {
        throw new CodeRangeError("options.tensorScale", `got ${describe(t)}; allowed: a positive finite float32 value or "auto"`);
      }
      tensorScale = t;
    }
  }
  return { scheme, blockSize, rho, ...(fixedExp !== undefined && { fixedExp }), tensorScale };
}

/** MaxFinite of an element or scale format as a float64 (the table service's maxFiniteValue). */
export const maxValue = maxFiniteValue;

/** Smallest positive normal value of a format (the NVFP4 scale clamp). */
function minNormalValue(f: Format): number {
  return valueTableOrNaN(f)[f.minNormalCode]!;
}

/** Sign–magnitude element code → stored byte (two's complement for MXINT8). */
function storeCode(s: BlockScheme, code: number): number {
  if (!s.twosComplement) return code;
  const mag = code & 0x7f;
  return code & 0x80 ? (256 - mag) & 0xff : mag;
}

/**
 * The scale code and the divisor of one block (reference rule). pow2: shared exponent = float32 exponent bits of
 * amax − emax, clamped; ratio: amax / (MaxFinite(element)·T), clamped to [MinNormal, MaxFinite] of the scale
 * format, rounded RNE into it (float64 quotient: exact for the comparisons that decide the rounding, see
 * quantizeElement). NaN/±∞ in the block → the NaN scale code and divisor NaN.
 */
export function blockScale(src: Float32Array, start: number, end: number, plan: BlockPlan): { code: number; divisor: number } {
  const s = plan.scheme;
  let amax = 0;
  for (let i = start; i < end; i++) {
    const a = Math.abs(src[i]!);
    if (!(a <= 3.4028234663852886e38)) return { code: nanScaleCode(s), divisor: NaN };
    if (a > amax) amax = a;
  }
  if (s.rule === "pow2") {
    const e = plan.fixedExp ?? Math.min(s.maxScaleExp, Math.max(s.minScaleExp, float32Exponent(amax) - s.emax));
    const code = project(fromNumber(2 ** e), s.scale, resolveProjection(s.scale, { rounding: "NearestTiesToEven", saturation: "SatFinite" }), 0);
    return { code, divisor: 2 ** e };
  }
  const ratio = amax / (maxValue(s.element) * plan.tensorScale);
  const clamped = Math.min(maxValue(s.scale), Math.max(minNormalValue(s.scale), ratio));
  const code = project(fromNumber(clamped), s.scale, resolveProjection(s.scale, { rounding: "NearestTiesToEven", saturation: "SatFinite" }), 0);
  const S = valueTableOrNaN(s.scale)[code]!;
  return { code, divisor: S * plan.tensorScale };
}

function nanScaleCode(s: BlockScheme): number {
  return s.scale.nanCode; // every scheme's scale format has a NaN (checked by blockScheme)
}

/**
 * One element: v / divisor projected into the element format (saturating). The float64 quotient is exact for
 * power-of-two divisors; otherwise (divisor = S·T with ≤ 4 + 24 significant bits) v − g·divisor is either 0 or at
 * least 2^−32 relative for every grid point or midpoint g of the element format (≤ 4 bits), far above float64's
 * 2^−53, so the correctly rounded quotient lies on the same side of every g as the exact one: every deterministic
 * rounding of it equals the rounding of the exact quotient.
 */
export function quantizeElement(v: number, divisor: number, plan: BlockPlan): number {
  return storeCode(plan.scheme, project(fromNumber(v / divisor), plan.scheme.element, plan.rho, 0));
}

/** Scalar reference of quantizeBlocks (exact projection per element). */
export function quantizeBlocksReference(src: Float32Array, plan: BlockPlan, scales: Uint8Array, elements: Uint8Array, firstBlock = 0): void {
  const n = src.length;
  const B = plan.blockSize;
  const packed = plan.scheme.packed;
  for (let start = firstBlock * B, k = firstBlock; start < n; start += B, k++) {
    const end = Math.min(n, start + B);
    const { code, divisor } = blockScale(src, start, end, plan);
    scales[k] = code;
    for (let i = start; i < end; i++) {
      const c = divisor === divisor ? quantizeElement(src[i]!, divisor, plan) : 0;
      if (packed) elements[i >> 1] = i & 1 ? elements[i >> 1]! | (c << 4) : c;
      else elements[i] = c;
    }
  }
}

/** Element storage bytes for n elements. */
export function elementBytes(scheme: BlockScheme, n: number): number {
  return scheme.packed ? Math.ceil(n / 2) : n;
}

/** Element value of a stored code (two's complement for MXINT8: 0x80 = −2). */
export function elementValues(scheme: BlockScheme): Float64Array {
  const out = new Float64Array(256);
  const f = scheme.element;
  const values = valueTableOrNaN(f);
  for (let c = 0; c < 256; c++) {
    if (scheme.twosComplement) out[c] = ((c << 24) >> 24) / 64;
    else out[c] = c < f.codeCount ? values[c]! : NaN;
  }
  return out;
}

/** Scale value of every scale code (NaN for NaN codes); a copy, so callers may write to it. */
export function scaleValues(scheme: BlockScheme): Float64Array {
  return valueTableOrNaN(scheme.scale).slice();
}
