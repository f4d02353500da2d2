// Reference bulk conversion: quantize Float32Array/Float64Array into codes and dequantize codes into float32.
// The Wasm kernels replace the inner loops; validation and the choice of path live in plan.ts.
import { CodeRangeError } from "../errors.js";
import { type ConversionFlags, project } from "../exact/cast.js";
import type { ResolvedProjection } from "../exact/projection.js";
import { decodeTable32 } from "../exact/tables.js";
import { fromFloat32Bits, fromNumber } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { type FormatLike, resolveFormat } from "./scalar.js";
import { dequantizeWasm } from "../wasm/decode.js";
import { quantizeWasm } from "../wasm/encode.js";
import { type QuantizeOptions, type QuantizePlan, planQuantize, wasmRandom } from "./plan.js";
import { type CodeArray, OUT_KEYS, requireCodes, requireOutput } from "./validate.js";
import { checkOptions } from "../options.js";

export type { CodeArray } from "./validate.js";
export type { QuantizeOptions, RandomArray } from "./plan.js";

/** Projects every element of src into the format (reference implementation, exact BigInt arithmetic). */
export function quantizeReference(
  src: Float32Array | Float64Array,
  f: Format,
  rho: ResolvedProjection,
  out: CodeArray,
  random?: (i: number) => number,
  flags?: ConversionFlags,
): void {
  const f32 = src instanceof Float32Array ? new Uint32Array(src.buffer, src.byteOffset, src.length) : undefined;
  for (let i = 0; i < src.length; i++) {
    const x = f32 ? fromFloat32Bits(f32[i]!) : fromNumber(src[i]!);
    out[i] = project(x, f, rho, random ? random(i) : 0, flags);
  }
}

/** Runs a planned quantize on the calling thread: the path the plan chose, writing the plan's output (or a new array). */
export function runQuantize(plan: QuantizePlan): CodeArray {
  const { src, f, rho, random, run } = plan;
  const out = plan.out ?? new plan.type(src.length);
  if (run.kernel === "encodeF32") {
    const first = random?.kind === "seed" ? random.seedIndex : 0;
    const written = quantizeWasm(src as Float32Array, f, rho, out as Uint8Array | Uint16Array, wasmRandom(random), first);
    if (written) return written;
  }
  quantizeReference(src, f, rho, out, random?.at, plan.flags);
  return out;
}

/** Quantizes float32/float64 values into codes of the format (P3109 §4.7.3 projection per element). */
export function quantize(src: Float32Array | Float64Array, fmt: FormatLike, options?: QuantizeOptions): CodeArray {
  return runQuantize(planQuantize(src, fmt, options));
}

/** Dequantizes codes into float32 (exact where the value fits binary32; see decodeTable32). */
export function dequantize(codes: CodeArray, fmt: FormatLike, options?: { out?: Float32Array }): Float32Array {
  const f = resolveFormat(fmt);
  const { out: given } = checkOptions(options, OUT_KEYS);
  requireCodes(codes, f);
  const out = requireOutput(given, Float32Array, codes.length);
  const fast = dequantizeWasm(codes, f, out, decodeTable32);
  if (fast) return fast;
  const table = decodeTable32(f);
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  const limit = f.codeCount;
  for (let i = 0; i < codes.length; i++) {
    if (codes[i]! >= limit) throw new CodeRangeError(`codes[${i}]`, `is ${codes[i]}; allowed: a ${f.name} code in [0, ${limit - 1}]`);
  }
  for (let i = 0; i < codes.length; i++) bits[i] = table[codes[i]!]!;
  return out;
}
