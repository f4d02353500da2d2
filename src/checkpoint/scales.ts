// The scale rules of the tools that write each checkpoint convention, in their float32 arithmetic (torch and
// Triton compute in float32): per block a stored scale and the float32 factor every element is divided (or, for
// gpt-oss, multiplied) by before its one rounding into the element format. Math.fround(a / b) and
// Math.fround(a * b) of float32 operands are the float32 results exactly (binary64 has more than 2·24 + 2 bits,
// so the double rounding is innocuous). docs/cli.md lists the sources and the decisions for zero blocks.
import type { Rounding } from "../exact/projection.js";
import { valueTableOrNaN } from "../exact/tables.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { quantize } from "../io/kernels.js";
import type { CheckpointScheme } from "./schemes.js";
import { float32Bits } from "../exact/value.js";

/** The conventions minifloat writes (a subset of the shared catalogue, which may name more than the writer knows). */
export const PRODUCED_SCHEMES = [
  "deepseek-fp8",
  "compressed-tensors-fp8",
  "compressed-tensors-nvfp4",
  "compressed-tensors-mxfp4",
  "modelopt-fp8",
  "modelopt-nvfp4",
  "gpt-oss-mxfp4",
] as const satisfies readonly CheckpointScheme[];

export type ProducedScheme = (typeof PRODUCED_SCHEMES)[number];

export type Granularity = "tensor" | "channel" | "block";

/** How one scheme quantizes a weight [N, K]: block geometry, scale rule, element format. */
export interface ScaleRule {
  readonly element: Format;
  /** Element rounding of the tool (elements always saturate: the tools clamp to ±MaxFinite first). */
  readonly rounding: Rounding;
  /** Block rows × columns of the [N, K] view; 0 = the whole dimension. */
  readonly block: readonly [number, number];
  /** safetensors dtype of the block scales. */
  readonly scaleDtype: "F32" | "F8_E4M3" | "U8";
  /** Elements are multiplied by the factor (gpt-oss: by 1/scale) rather than divided. */
  readonly multiply: boolean;
  /** A −0 quotient gets code 0: the tool takes the E2M1 sign from y < 0 (ModelOpt) or sign(y)·|q| (compressed-tensors). */
  readonly unsignedZero?: boolean;
  /** The tool first rounds the weight to bfloat16 (transformers' quantize_to_mxfp4: w.to(torch.bfloat16)). */
  readonly bfloat16Input?: boolean;
  /** Second-level float32 scale from the tensor's amax (the NVFP4 schemes), or undefined. */
  tensorScale?(amax: number): number;
  /** Stored scales (F32 values or 8-bit codes) and float32 factors of blocks with these amax values. */
  blockScales(amax: Float32Array, tensorScale: number): { stored: Float32Array | Uint8Array; factor: Float32Array };
}

const E4M3 = format("float8_e4m3fn");
const E2M1 = format("float4_e2m1fn");
const E4M3_VALUE = valueTableOrNaN(E4M3);
/** 2^(c − 127) and 2^(127 − c) by E8M0 code c (0xFF unused by the rules here): looked up per block, not computed. */
const E8M0_VALUE = Float32Array.from({ length: 256 }, (_, c) => 2 ** (c - 127));
const E8M0_INVERSE = Float32Array.from({ length: 256 }, (_, c) => 2 ** (127 - c));

/** E4M3 codes of non-negative float32 values, RNE and clamped to ±448 (torch: clamp, then .to(float8_e4m3fn)). */
function e4m3Codes(v: Float32Array): Uint8Array {
  return quantize(v, E4M3, { rounding: "NearestTiesToEven", saturation: "SatFinite" }) as Uint8Array;
}

/** FP8 per tensor/channel/block: S = fl32(amax / 448), elements fl32(W / S); `zero` replaces S of an all-zero block. */
function fp8Rule(block: readonly [number, number], zero: number): ScaleRule {
  return {
    element: E4M3,
    rounding: "NearestTiesToEven",
    block,
    scaleDtype: "F32",
    multiply: false,
    blockScales(amax) {
      const s = new Float32Array(amax.length);
      for (let i = 0; i < s.length; i++) s[i] = amax[i] === 0 ? zero : Math.fround(amax[i]! / 448);
      return { stored: s, factor: s };
    },
  };
}

/** What the two NVFP4 producers share: E2M1 elements (RNE, −0 stored as +0) in blocks of 16 along K, E4M3 scales that divide. */
const NVFP4_LAYOUT = {
  element: E2M1,
  rounding: "NearestTiesToEven",
  unsignedZero: true,
  block: [1, 16],
  scaleDtype: "F8_E4M3",
  multiply: false,
} as const satisfies Partial<ScaleRule>;

/** ModelOpt NVFP4 (NVFP4QTensor): weight_scale_2 = fl32(amax / 2688); block e4m3(max(fl32(amax_b / fl32(6·s2)), 2^−9)), 0 → 1. */
const modeloptNvfp4: ScaleRule = {
  ...NVFP4_LAYOUT,
  // A zero tensor would give 0/0 = NaN block scales in the tool; 1 keeps every scale finite (the blocks are zero).
  tensorScale: (amax) => (amax === 0 ? 1 : Math.fround(amax / 2688)),
  blockScales(amax, s2) {
    const six = Math.fround(6 * s2);
    const ratio = new Float32Array(amax.length);
    for (let i = 0; i < ratio.length; i++) {
      const r = Math.fround(amax[i]! / six);
      ratio[i] = r === 0 ? 1 : Math.max(r, 2 ** -9);
    }
    const codes = e4m3Codes(ratio);
    const factor = new Float32Array(codes.length);
    for (let i = 0; i < codes.length; i++) factor[i] = E4M3_VALUE[codes[i]!]! * s2;
    return { stored: codes, factor };
  },
};

/**
 * compressed-tensors NVFP4 (calculate_qparams, generate_gparam, _quantize): global = fl32(2688 / amax); block
 * e4m3(min(fl32(global · fl32(amax_b / 6)), 448)), a zero code replaced by the e4m3 eps 0.125; elements divided by
 * fl32(scale / global).
 */
const compressedNvfp4: ScaleRule = {
  ...NVFP4_LAYOUT,
  // The tool clamps amax to FLT_MIN; 2688 / FLT_MIN overflows to ∞ (then ∞·0 = NaN scales): 1 instead.
  tensorScale(amax) {
    const g = Math.fround(2688 / Math.max(amax, 2 ** -126));
    return Number.isFinite(g) ? g : 1;
  },
  blockScales(amax, global) {
    const scaled = new Float32Array(amax.length);
    for (let i = 0; i < scaled.length; i++) scaled[i] = Math.min(Math.fround(global * Math.fround(amax[i]! / 6)), 448);
    const codes = e4m3Codes(scaled);
    const eps = 0x20; // e4m3 0.125
    const factor = new Float32Array(codes.length);
    for (let i = 0; i < codes.length; i++) {
      if (codes[i] === 0) codes[i] = eps;
      factor[i] = E4M3_VALUE[codes[i]!]! / global;
    }
    return { stored: codes, factor };
  },
};

/**
 * compressed-tensors MXFP4 (round_to_power_2, generate_mxfp4_scales): amax rounded to a power of two upward when
 * its significand is ≥ 1.75 (the bfloat16 bit trick, +2^5 on 7 mantissa bits), code = 127 + log2 − 2, clamped to
 * [0, 254]; a zero block (log2 0 = −∞) gets code 0.
 */
const compressedMxfp4: ScaleRule = {
  element: E2M1,
  rounding: "NearestTiesToEven",
  unsignedZero: true,
  block: [1, 32],
  scaleDtype: "U8",
  multiply: false,
  blockScales(amax) {
    const codes = new Uint8Array(amax.length);
    const factor = new Float32Array(amax.length);
    for (let i = 0; i < codes.length; i++) {
      const b = float32Bits(amax[i]!);
      const e = (b >>> 23) - 127 + ((b & 0x7fffff) >= 0x600000 ? 1 : 0);
      codes[i] = amax[i] === 0 ? 0 : Math.min(254, Math.max(0, 127 + e - 2));
      factor[i] = E8M0_VALUE[codes[i]!]!;
    }
    return { stored: codes, factor };
  },
};

/**
 * gpt-oss (transformers quantize_to_mxfp4 → triton_kernels downcast_to_mxfp_torch, ROUND_UP): d = fl32(amax / 6)
 * rounded up to a power of two by its bits ((d + 0x7FFFFF) & 0x7F800000), code = its biased exponent; elements
 * multiplied by 1/2^(code − 127) (0 for code 0, so a zero block stays zero) and rounded half away from zero.
 */
const gptOssMxfp4: ScaleRule = {
  element: E2M1,
  rounding: "NearestTiesToAway",
  bfloat16Input: true,
  block: [1, 32],
  scaleDtype: "U8",
  multiply: true,
  blockScales(amax) {
    const codes = new Uint8Array(amax.length);
    const factor = new Float32Array(amax.length);
    for (let i = 0; i < codes.length; i++) {
      codes[i] = ((float32Bits(Math.fround(amax[i]! / 6)) + 0x7fffff) >>> 23) & 0xff;
      factor[i] = codes[i] === 0 ? 0 : E8M0_INVERSE[codes[i]!]!;
    }
    return { stored: codes, factor };
  },
};

/**
 * The rule of a scheme. Zero blocks of the FP8 schemes: compressed-tensors replaces a zero scale by float32 eps
 * (2^−23) as the tool does; DeepSeek and ModelOpt, whose formulas would divide 0 by 0, store 1.
 */
export function scaleRule(scheme: ProducedScheme, granularity: Granularity = "tensor"): ScaleRule {
  switch (scheme) {
    case "deepseek-fp8":
      return fp8Rule([128, 128], 1);
    case "compressed-tensors-fp8":
      return fp8Rule(granularity === "block" ? [128, 128] : granularity === "channel" ? [1, 0] : [0, 0], 2 ** -23);
    case "modelopt-fp8":
      return fp8Rule([0, 0], 1);
    case "modelopt-nvfp4":
      return modeloptNvfp4;
    case "compressed-tensors-nvfp4":
      return compressedNvfp4;
    case "compressed-tensors-mxfp4":
      return compressedMxfp4;
    case "gpt-oss-mxfp4":
      return gptOssMxfp4;
  }
}
