// Block encoders for the writer: float32 → Q8_0, MXFP4 and NVFP4 as ggml's reference quantizers
// (quantize_row_*_ref), and MXFP4/NVFP4 blocks from scales and E2M1 codes the caller already chose (e.g. with
// minifloat's MX quantizer or from a gpt-oss or ModelOpt checkpoint).
import { CodeRangeError } from "../../errors.js";
import { unpackCodes } from "../../api/packed.js";
import { quantize } from "../kernels.js";
import { KVALUES, MXFP4_HALF_SCALES, MXFP4_LAYOUT, NVFP4_HALF_SCALES, NVFP4_LAYOUT } from "./decode.js";
import { float32Bits } from "../../exact/value.js";
import { blockAmax } from "../../block/bands.js";
import { type NibbleLayout, e2m1NearestWasm, e2m1PackWasm, q8ElementsWasm, ue4m3ScalesWasm } from "../../wasm/ggml.js";
import { requireBelow } from "../../wasm/decode.js";
import { keep } from "../../wasm/memory.js";
import { kernels } from "../../wasm/instance.js";

/** IEEE conversion to binary16/bfloat16 as ggml's GGML_FP32_TO_FP16 (round to nearest even, overflow to ∞). */
export const IEEE_RNE = { rounding: "NearestTiesToEven", saturation: "SatNone" } as const;

/**
 * Q8_0 blocks {f16 d; int8 qs[32]} of float32 values (a multiple of 32), step for step in float32 as ggml:
 * d = amax / 127, id = 1/d (0 when d = 0), q = roundf(x · id) (ties away from zero), d stored as binary16.
 * Values are finite (ggml's float-to-int8 conversion of ∞ or NaN is undefined); where 1/d overflows (amax below
 * 127 · 2^−128), q is 0 and so is d in binary16.
 */
export function quantizeQ8_0(given: Float32Array): Uint8Array {
  const blocks = requireBlocks(given, 32, "Q8_0");
  const values = keep(given); // a view of Wasm memory is re-made after the kernels' allocations
  const amax = blockAmaxes(values(), 32, "Q8_0");
  const d = new Float32Array(blocks);
  const ids = new Float32Array(blocks);
  for (let b = 0; b < blocks; b++) {
    d[b] = Math.fround(amax[b]! / 127);
    ids[b] = d[b] === 0 ? 0 : Math.fround(1 / d[b]!);
  }
  const out = new Uint8Array(34 * blocks);
  if (!q8ElementsWasm(values(), ids, out)) {
    const q = new Int8Array(out.buffer);
    const x = values();
    for (let b = 0; b < blocks; b++) {
      for (let j = 0; j < 32; j++) {
        const v = Math.fround(x[32 * b + j]! * ids[b]!);
        q[34 * b + 2 + j] = Number.isFinite(v) ? Math.sign(v) * Math.round(Math.abs(v)) : 0;
      }
    }
  }
  const scales = quantize(d, "binary16", IEEE_RNE);
  for (let b = 0; b < blocks; b++) {
    out[34 * b] = scales[b]! & 255;
    out[34 * b + 1] = scales[b]! >> 8;
  }
  return out;
}

/**
 * MXFP4 blocks of float32 values (a multiple of 32) as ggml's quantize_row_mxfp4_ref: e = floor(log2f(amax)) − 2 +
 * 127 (0 when amax = 0; log2f is float32, so an amax just below a power of two may count as that power), then each
 * element the nearest kvalue · 2^(e − 128) by float32 |error|, the first of equals. Values are finite.
 */
export function quantizeMxfp4(given: Float32Array): Uint8Array {
  const blocks = requireBlocks(given, 32, "MXFP4");
  const values = keep(given); // a view of Wasm memory is re-made after the kernels' allocations
  const amax = blockAmaxes(values(), 32, "MXFP4");
  // The float-to-uint8 conversion keeps the low 8 bits (only amax below 2^−125 goes negative), as ggml on common
  // hardware and NumPy do.
  const e = new Uint8Array(blocks);
  for (let b = 0; b < blocks; b++) e[b] = amax[b]! > 0 ? (Math.floor(Math.fround(Math.log2(amax[b]!))) - 2 + 127) & 255 : 0;
  const out = new Uint8Array(17 * blocks);
  nibbles(values(), e, MXFP4_HALF_SCALES, out, MXFP4_LAYOUT);
  return out;
}

/**
 * NVFP4 blocks of float32 values (a multiple of 64) as ggml's quantize_row_nvfp4_ref: per 16-element sub-block the
 * scale byte ggml_fp32_to_ue4m3(amax / 6) (no second-level scale), then each element the nearest kvalue · d/2 as
 * in MXFP4. Values are finite.
 */
export function quantizeNvfp4(given: Float32Array): Uint8Array {
  const blocks = requireBlocks(given, 64, "NVFP4");
  const values = keep(given); // a view of Wasm memory is re-made after the kernels' allocations
  const amax = blockAmaxes(values(), 16, "NVFP4");
  const ue = ue4m3ScalesWasm(amax, 6) ?? Uint8Array.from(amax, (a) => fp32ToUe4m3(Math.fround(a / 6)));
  const out = new Uint8Array(36 * blocks);
  nibbles(values(), ue, NVFP4_HALF_SCALES, out, NVFP4_LAYOUT);
  return out;
}

/**
 * The scale bytes and E2M1 nibbles of GGUF MXFP4/NVFP4 blocks: sub-block s has scale byte scales[s] (half-scale
 * halfScales[scales[s]]) at its block's head, and its elements' nearest kvalues (ggml's best_index_mxfp4) packed as
 * packHalves does after it.
 */
function nibbles(values: Float32Array, scales: Uint8Array, halfScales: Float32Array, out: Uint8Array, layout: NibbleLayout): void {
  const d = new Float32Array(scales.length);
  for (let s = 0; s < d.length; s++) d[s] = halfScales[scales[s]!]!;
  if (!e2m1NearestWasm(values, d, out, layout))
    for (let s = 0; s < scales.length; s++) nearestHalves(values, layout.width * s, layout.width / 2, d[s]!, out, nibblesAt(s, layout));
  putScales(out, scales, layout);
}

/**
 * ggml_fp32_to_ue4m3: a non-negative float32 to an E4M3 byte with the top mantissa bit below the kept three
 * rounding half up, saturating at 0x7E (448); subnormals round x · 512 + 0.5 down.
 */
function fp32ToUe4m3(x: number): number {
  if (!(x > 0)) return 0;
  const y = Math.min(x, 448);
  const bits = float32Bits(y);
  let exponent = ((bits >>> 23) & 255) - 127 + 7;
  if (exponent <= 0) return Math.min(7, Math.trunc(Math.fround(y * 512 + 0.5)));
  let mantissa = ((bits >>> 20) & 7) + ((bits >>> 19) & 1);
  if (mantissa > 7) {
    mantissa = 0;
    exponent++;
  }
  return exponent >= 15 ? 0x7e : (exponent << 3) | mantissa;
}

/** ggml's best_index_mxfp4 for elements [from, from + 2·half), packed as packHalves does. */
function nearestHalves(values: Float32Array, from: number, half: number, d: number, out: Uint8Array, at: number): void {
  for (let j = 0; j < half; j++) out[at + j] = nearest(values[from + j]!, d) | (nearest(values[from + j + half]!, d) << 4);
}

/** The first code whose kvalue · d is nearest x, distances in float32 (kvalue · d is exact; fround of the double difference is the float32 one). */
function nearest(x: number, d: number): number {
  let best = 0;
  let bestErr = Math.fround(Math.abs(KVALUES[0]! * d - x));
  for (let i = 1; i < 16; i++) {
    const err = Math.fround(Math.abs(KVALUES[i]! * d - x));
    if (err < bestErr) {
      best = i;
      bestErr = err;
    }
  }
  return best;
}

function requireBlocks(values: Float32Array, size: number, type: string): number {
  if (values.length % size !== 0) throw new CodeRangeError("values", `has ${values.length} elements; allowed: a multiple of the ${type} block size ${size}`);
  return values.length / size;
}

/** Largest |x| of each block of `width` values, refusing NaN and infinities (ggml's float-to-int conversion of them is undefined). */
function blockAmaxes(values: Float32Array, width: number, type: string): Float32Array {
  const amax = new Float32Array(values.length / width);
  const at = blockAmax(values, { rows: amax.length, K: width, width, bh: 1 }, amax);
  if (at >= 0) throw new CodeRangeError(`values[${at}]`, `is ${values[at]}; allowed: finite values (${type} encodes no NaN or infinity)`);
  return amax;
}

/**
 * MXFP4 blocks {u8 e; u8 qs[16]} from one E8M0 scale per 32 elements and one E2M1 code per element (in element
 * order). The value of a code is E2M1(code) · 2^(e − 127) in both the OCP MX reading and ggml's, except that
 * ggml reads code 8 (−0) as +0 and e = 255 (NaN in OCP MX) as 2^128.
 */
export function mxfp4Blocks(scales: Uint8Array, codes: Uint8Array): Uint8Array {
  requireCodes(scales, codes, 32, "MXFP4");
  return packBlocks(scales, codes, MXFP4_LAYOUT);
}

/** MXFP4 blocks from gpt-oss's packing: 16 bytes per block, byte i holding code 2i (low nibble) and 2i + 1 (high). */
export function mxfp4BlocksFromPairs(scales: Uint8Array, pairs: Uint8Array): Uint8Array {
  if (pairs.length !== 16 * scales.length) throw new CodeRangeError("pairs", `has ${pairs.length} bytes; allowed: 16 per scale (${16 * scales.length})`);
  return packBlocks(scales, pairs, MXFP4_LAYOUT, true);
}

/**
 * NVFP4 blocks {u8 d[4]; u8 qs[32]} from one E4M3 (float8_e4m3fn) scale per 16 elements, four per block, and one
 * E2M1 code per element: value E2M1(code) · E4M3(d). Scales are 0x00…0x7E (positive or zero; ggml ignores the
 * sign bit and reads 0x7F, NaN in E4M3, as 0).
 */
export function nvfp4Blocks(scales: Uint8Array, codes: Uint8Array): Uint8Array {
  requireCodes(scales, codes, 16, "NVFP4");
  requireNvfp4Scales(scales);
  return packBlocks(scales, codes, NVFP4_LAYOUT);
}

/** NVFP4 blocks from ModelOpt's (and compressed-tensors') packing: 8 bytes per scale, byte i holding code 2i (low nibble) and 2i + 1. */
export function nvfp4BlocksFromPairs(scales: Uint8Array, pairs: Uint8Array): Uint8Array {
  if (pairs.length !== 8 * scales.length) throw new CodeRangeError("pairs", `has ${pairs.length} bytes; allowed: 8 per scale (${8 * scales.length})`);
  requireNvfp4Scales(scales);
  return packBlocks(scales, pairs, NVFP4_LAYOUT, true);
}

function requireNvfp4Scales(scales: Uint8Array): void {
  if (scales.length % 4 !== 0)
    throw new CodeRangeError("scales", `has ${scales.length} scales; allowed: a multiple of 4 (one NVFP4 block holds four sub-blocks)`);
  requireBelowLimit(scales, 0x7f, "scales", "an E4M3 code in [0, 126] (non-negative, not NaN)");
}

/** Blocks of E2M1 codes already chosen (`paired`: two per byte, low nibble first): the nibbles and each sub-block's scale byte. */
function packBlocks(scales: Uint8Array, codes: Uint8Array, layout: NibbleLayout, paired = false): Uint8Array {
  const { width, per, stride } = layout;
  const out = new Uint8Array((scales.length / per) * stride);
  if (!e2m1PackWasm(codes, out, layout, paired)) {
    const unpacked = paired ? unpackCodes(codes, 4, 2 * codes.length) : codes;
    for (let s = 0; s < scales.length; s++) packHalves(unpacked, width * s, width / 2, out, nibblesAt(s, layout));
  }
  putScales(out, scales, layout);
  return out;
}

/** Where sub-block s keeps its nibbles: after its block's scale bytes, width/2 bytes per sub-block. */
function nibblesAt(s: number, { width, per, stride, head }: NibbleLayout): number {
  return Math.floor(s / per) * stride + head + (s % per) * (width / 2);
}

/** The scale byte of every sub-block at its block's head (after the nibbles: the kernels' chunks write whole blocks). */
function putScales(out: Uint8Array, scales: Uint8Array, { per, stride }: NibbleLayout): void {
  for (let s = 0; s < scales.length; s++) out[Math.floor(s / per) * stride + (s % per)] = scales[s]!;
}

/** Throws CodeRangeError naming the first byte ≥ limit (a Wasm max-scan tells whether there is one). */
function requireBelowLimit(bytes: Uint8Array, limit: number, argument: string, allowed: string): void {
  const k = kernels();
  if (k) requireBelow(k, bytes, limit, argument, allowed);
  else {
    const bad = bytes.findIndex((b) => b >= limit);
    if (bad >= 0) throw new CodeRangeError(`${argument}[${bad}]`, `is ${bytes[bad]}; allowed: ${allowed}`);
  }
}

function requireCodes(scales: Uint8Array, codes: Uint8Array, group: number, type: string): void {
  if (codes.length !== group * scales.length)
    throw new CodeRangeError("codes", `has ${codes.length} codes; allowed: ${group} per ${type} scale (${group * scales.length})`);
  requireBelowLimit(codes, 16, "codes", "an E2M1 code in [0, 15]");
}

/** Codes [from, from + 2·half) as `half` bytes: code j in the low nibble, code j + half in the high nibble. */
function packHalves(codes: Uint8Array, from: number, half: number, out: Uint8Array, at: number): void {
  for (let j = 0; j < half; j++) out[at + j] = codes[from + j]! | (codes[from + j + half]! << 4);
}
