// The numbers of one weight tensor: scales, codes and the exact values DequantizeLinear gives back.
//
// Scale rule: s = amax / MaxFinite(format) rounded once to the scale's type (float32, or float16 for float16
// weights), over the tensor, an output channel or a block along the reduction axis; amax = 0 gives s = 1, and a
// quotient that underflows gives the smallest positive subnormal of the scale type (s is never 0, ∞ or NaN). Where s
// rounded up so far that MaxFinite · s rounds to ∞ in the weight's type (amax near float16's 65504: 448 · 146.25 =
// 65520 is ∞ in float16), s is the next value down, and the largest weights saturate to MaxFinite · s instead.
//
// Codes: q = quantize(w / s, format, SatFinite) with the library's exact quantize: round to nearest, ties to even,
// overflow after rounding clamps to ±MaxFinite.
//
// Both quotients are computed in float64 and rounded once, which gives the rounding of the exact quotient: each is
// n / d with n, d of ≤ 24 significant bits (weights and amax are float32 or float16 values, s a float32 or float16,
// MaxFinite of a format of ≤ 16 bits has ≤ 16), rounded to a precision p ≤ 24. If n / d is a grid point or midpoint
// g of that precision, float64 holds it exactly; otherwise n differs from g·d (≤ 25 + 24 bits) by at least 2^−49 of
// its size, so n / d lies at least that far from g, beyond float64's 2^−53 relative error: the float64 quotient is
// on the same side of every g as the exact one.
//
// Values: q · s is exact in float64 (≤ 16 + 24 significant bits); it is rounded once into the weight's type.
import { quantizeBlocks } from "../block/index.js";
import { elementValues, maxValue, scaleValues } from "../block/mx.js";
import { dequantize, quantize } from "../api/bulk.js";
import type { BlockScheme } from "../block/mx.js";
import type { CodeArray } from "../api/validate.js";
import { valueTableOrNaN } from "../exact/tables.js";
import type { Format } from "../format/model.js";
import { DataType } from "./dtypes.js";
import { OnnxError } from "./errors.js";

export type Granularity =
  | { readonly kind: "tensor" }
  | { readonly kind: "axis" }
  | { readonly kind: "block"; readonly size: number }
  | { readonly kind: "none" };

/** Which axes of a weight are its output channels and its reduction (K) axis. */
export interface WeightAxes {
  readonly channel: number;
  readonly reduction: number;
}

export interface ScaledWeight {
  /** Element codes, one per element (sign–magnitude for INT4, as the format encodes them; Uint16Array above 8 bits). */
  readonly codes: CodeArray;
  /** The stored scale values (exact in the scale's type); length 1 when the granularity is "none" (s = 1). */
  readonly scales: Float64Array;
  readonly scaleDims: number[];
  /** DequantizeLinear's axis and block_size attributes (undefined: per tensor). */
  readonly axis?: number;
  readonly blockSize?: number;
  /** q · s, exact. */
  readonly values: Float64Array;
}

interface Groups {
  readonly count: number;
  /** Group of element i; undefined: one group. */
  readonly of: Uint32Array | undefined;
  readonly dims: number[];
  readonly axis?: number;
  readonly blockSize?: number;
}

/** The scale group of every element: row-major over the scale's shape (ONNX's layout for per-axis and blocked scales). */
function groups(dims: readonly number[], axes: WeightAxes, g: Granularity): Groups {
  const n = dims.reduce((a, b) => a * b, 1);
  if (g.kind === "tensor" || g.kind === "none") return { count: 1, of: undefined, dims: [] };
  const axis = g.kind === "axis" ? axes.channel : axes.reduction;
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const d = dims[axis]!;
  const of = new Uint32Array(n);
  if (g.kind === "axis") {
    for (let i = 0; i < n; i++) of[i] = Math.floor(i / inner) % d;
    return { count: d, of, dims: [d], axis };
  }
  const nb = Math.ceil(d / g.size);
  for (let i = 0; i < n; i++) {
    const outer = Math.floor(i / (inner * d));
    const a = Math.floor(i / inner) % d;
    of[i] = (outer * nb + Math.floor(a / g.size)) * inner + (i % inner);
  }
  const scaleDims = dims.slice();
  scaleDims[axis] = nb;
  return { count: (n / d) * nb, of, dims: scaleDims, axis, blockSize: g.size };
}

function requireFinite(name: string, values: Float32Array): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i]!)) throw new OnnxError(name, `holds ${values[i]} at element ${i}; allowed: finite weights (scales come from amax)`);
  }
}

/** x rounded once (to nearest even) into FLOAT or FLOAT16; ∞ beyond the type's range. */
function roundToType(x: number, type: number): number {
  return type === DataType.FLOAT16 ? dequantize(quantize(Float64Array.of(x), "binary16"), "binary16")[0]! : Math.fround(x);
}

/** One scale, rounded once into the scale type (FLOAT or FLOAT16), which is also the weight's type. */
function scaleOf(amax: number, max: number, scaleType: number): number {
  if (amax === 0) return 1;
  const s = roundToType(amax / max, scaleType);
  if (!(s > 0)) return scaleType === DataType.FLOAT16 ? 2 ** -24 : 2 ** -149;
  if (Number.isFinite(roundToType(max * s, scaleType))) return s;
  // The next value down of s (a normal far above MinNormal here): one step of its binade, or of the binade below
  // when s is a power of two.
  const e = Math.floor(Math.log2(s));
  const step = 2 ** (e - (scaleType === DataType.FLOAT16 ? 10 : 23));
  return s - (s === 2 ** e ? step / 2 : step);
}

/** Element format codes and scales of a weight (`values` hold the weight's exact values). */
export function quantizeScaled(
  name: string,
  values: Float32Array,
  dims: readonly number[],
  axes: WeightAxes,
  f: Format,
  g: Granularity,
  scaleType: number,
): ScaledWeight {
  requireFinite(name, values);
  const grp = groups(dims, axes, g);
  const amax = new Float64Array(grp.count);
  for (let i = 0; i < values.length; i++) {
    const a = Math.abs(values[i]!);
    const k = grp.of ? grp.of[i]! : 0;
    if (a > amax[k]!) amax[k] = a;
  }
  const max = maxValue(f);
  if (g.kind !== "none" && !(max <= 3.4028234663852886e38)) {
    throw new OnnxError("options.scale", `${f.name}'s largest value ${max} is beyond float32, so amax / MaxFinite underflows; allowed: "none"`);
  }
  const scales = g.kind === "none" ? Float64Array.of(1) : amax.map((a) => scaleOf(a, max, scaleType));
  const quotients = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) quotients[i] = values[i]! / scales[grp.of ? grp.of[i]! : 0]!;
  const codes = quantize(quotients, f, { saturation: "SatFinite" });
  // Code values as float64 (exact for every code a finite weight can round to: their magnitudes are ≤ MaxFinite).
  const table = valueTableOrNaN(f);
  const exact = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) exact[i] = table[codes[i]!]! * scales[grp.of ? grp.of[i]! : 0]!;
  return {
    codes,
    scales,
    scaleDims: grp.dims,
    ...(grp.axis !== undefined && { axis: grp.axis }),
    ...(grp.blockSize !== undefined && { blockSize: grp.blockSize }),
    values: exact,
  };
}

/**
 * A block scheme (MXFP8, MXFP4, NVFP4, …) along the reduction axis, as the library's quantizeBlocks computes it on
 * each row of the weight with that axis made contiguous and zero-padded to whole blocks (zeros change no block's
 * amax): element codes in the weight's order, the block scales' values (NVFP4: S · T, not a float32 in general) laid
 * out as DequantizeLinear's blocked scales, and the exact values, element value · scale value (· NVFP4's T). An
 * all-zero block of a FLOAT16 weight gets the scale 1 instead of MX's 2^−127, which float16 cannot hold (any scale
 * gives its zeros).
 */
export function quantizeBlockScheme(
  name: string,
  values: Float32Array,
  dims: readonly number[],
  axes: WeightAxes,
  scheme: BlockScheme,
  B: number,
  scaleType: number = DataType.FLOAT,
): ScaledWeight {
  requireFinite(name, values);
  const axis = axes.reduction;
  const d = dims[axis]!;
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const rows = values.length / d;
  const nb = Math.ceil(d / B);
  const padded = nb * B;
  const flat = new Float32Array(rows * padded);
  const at = (r: number, a: number): number => (Math.floor(r / inner) * d + a) * inner + (r % inner);
  for (let r = 0; r < rows; r++) for (let a = 0; a < d; a++) flat[r * padded + a] = values[at(r, a)]!;
  const q = quantizeBlocks(flat, scheme, { blockSize: B, ...(scheme.rule === "ratio" && { tensorScale: "auto" as const }) });
  const ev = elementValues(scheme);
  const sv = scaleValues(scheme);
  const t = q.tensorScale ?? 1;
  const codes = new Uint8Array(values.length);
  const exact = new Float64Array(values.length);
  const scales = new Float64Array(rows * nb);
  for (let r = 0; r < rows; r++) {
    const scaleRow = Math.floor(r / inner) * nb * inner + (r % inner);
    for (let k = 0; k < nb; k++) {
      const zero = scaleType === DataType.FLOAT16 && flat.subarray(r * padded + k * B, r * padded + (k + 1) * B).every((v) => v === 0);
      scales[scaleRow + k * inner] = zero ? 1 : sv[q.scales[r * nb + k]!]! * t;
    }
    for (let a = 0; a < d; a++) {
      const i = r * padded + a;
      const code = scheme.packed ? (q.elements[i >> 1]! >> ((i & 1) * 4)) & 0xf : q.elements[i]!;
      codes[at(r, a)] = code;
      exact[at(r, a)] = ev[code]! * scales[scaleRow + Math.floor(a / B) * inner]!;
    }
  }
  const scaleDims = dims.slice();
  scaleDims[axis] = nb;
  return { codes, scales, scaleDims, axis, blockSize: B, values: exact };
}

/** Exact values rounded once into FLOAT or FLOAT16, as raw little-endian bytes. */
export function roundInto(values: Float64Array, type: number): Uint8Array {
  const out = type === DataType.FLOAT16 ? (quantize(values, "binary16") as Uint16Array) : Float32Array.from(values);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
