// Reference bulk conversion: quantize Float32Array/Float64Array into codes and dequantize codes into float32.
// The Wasm kernels replace the inner loops; validation and the choice of path live in plan.ts.
import { ArgumentTypeError, CodeRangeError, describe } from "../errors.js";
import { type ConversionFlags, project } from "../exact/cast.js";
import { type Projection, ROUNDINGS, type ResolvedProjection, isStochastic, resolveProjection } from "../exact/projection.js";
import { beyondOdd32 } from "../exact/round-to-odd.js";
import { type BulkProjection, conversionTable, decodeTable32, valuesFitFloat32 } from "../exact/tables.js";
import { format } from "../format/registry.js";
import { fromFloat32Bits, fromNumber } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { type FormatLike, resolveFormat } from "./scalar.js";
import { dequantizeVia32, dequantizeWasm } from "../wasm/decode.js";
import { WasmArray, keep } from "../wasm/memory.js";
import { kernels } from "../wasm/instance.js";
import { roundToOddWasm } from "../wasm/odd.js";
import { quantizeWasm } from "../wasm/encode.js";
import { type QuantizeOptions, type QuantizePlan, planQuantize, wasmRandom } from "./plan.js";
import { type CodeArray, type Float16ArrayLike, float16ArrayType, requireAttached, requireCodes, requireOutput, requireSeparate } from "./validate.js";

export type { Float16ArrayLike } from "./validate.js";
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
  if (run.kernel === "encodeF64") {
    const written = quantizeOdd(src as Float64Array, f, rho, out as Uint8Array | Uint16Array);
    if (written) return written;
  }
  quantizeReference(src, f, rho, out, random?.at, plan.flags);
  return out;
}

/** Elements per part of float64 input rounded to float32 to odd (bounded scratch, whatever the input size). */
const ODD_PART = 65536;

/**
 * float64 input through the float32 kernel, part by part: each part rounded to float32 to odd in Wasm (one rounding
 * overall, see src/exact/round-to-odd.ts); NaNs (their payloads and signs) and |x| ≥ 2^128 then projected by the
 * reference. The codes, or undefined (nothing written) when the kernel does not run.
 */
function quantizeOdd(src: Float64Array, f: Format, rho: ResolvedProjection, out: Uint8Array | Uint16Array): CodeArray | undefined {
  if (!kernels()) return undefined;
  // Views of Wasm memory are re-made after the allocation below, which may grow it.
  const [xs, ys] = [keep(src), keep(out)];
  const part = new WasmArray(Float32Array, Math.min(ODD_PART, src.length));
  let beyond = 0;
  try {
    for (let at = 0; at < src.length; at += ODD_PART) {
      const x = xs().subarray(at, at + ODD_PART);
      // part.array anew after each call: the stream scratch of the first may grow the memory.
      beyond += roundToOddWasm(x, part.array.subarray(0, x.length))!;
      if (!quantizeWasm(part.array.subarray(0, x.length), f, rho, ys().subarray(at, at + x.length), undefined)) return undefined;
    }
  } finally {
    part.free();
  }
  const [x, y] = [xs(), ys()];
  if (beyond > 0) for (let i = 0; i < x.length; i++) if (beyondOdd32(x[i]!)) quantizeReference(x.subarray(i, i + 1), f, rho, y.subarray(i, i + 1));
  return y;
}

/**
 * Quantizes float32/float64 values — or binary16 (a Float16Array, or Uint16Array bits with from: "float16") and
 * bfloat16 (Uint16Array bits with from: "bfloat16") values, each exact in float32 — into codes of the format
 * (P3109 §4.7.3 projection per element).
 */
export function quantize(src: Float32Array | Float64Array | Uint16Array | Float16ArrayLike, fmt: FormatLike, options?: QuantizeOptions): CodeArray {
  return runQuantize(planQuantize(src, fmt, options));
}

/** The element type of dequantize's output: float32 values, or binary16 / bfloat16 bit patterns. */
export type DequantizeTarget = "float32" | "float16" | "bfloat16";

export interface DequantizeOptions {
  /** Output (length = codes.length): a Float32Array; for float16 a Float16Array or a Uint16Array; for bfloat16 a Uint16Array. */
  out?: Float32Array | Uint16Array | Float16ArrayLike;
  /** Output element type (default "float32"). */
  to?: DequantizeTarget;
  /** With to: "float16": a Uint16Array of binary16 bits even where the runtime has Float16Array. */
  bits?: boolean;
}

export const DEQUANTIZE_KEYS = ["out", "to", "bits"] as const satisfies readonly (keyof DequantizeOptions)[];
const TARGETS = { float32: "binary32", float16: "binary16", bfloat16: "bfloat16" } as const;

/**
 * Dequantizes codes into float32 (exact where the value fits binary32; see decodeTable32), or with `to` into
 * binary16 (a Float16Array where the runtime has one, else a Uint16Array of bits) or bfloat16 bits (a Uint16Array):
 * one table pass, each code's exact value rounded once (NearestTiesToEven) into the target.
 */
export function dequantize(codes: CodeArray, fmt: FormatLike, options?: { out?: Float32Array; to?: "float32" }): Float32Array;
export function dequantize(codes: CodeArray, fmt: FormatLike, options: DequantizeOptions & { to: "float16" | "bfloat16" }): Uint16Array | Float16ArrayLike;
export function dequantize(codes: CodeArray, fmt: FormatLike, options?: DequantizeOptions): Float32Array | Uint16Array | Float16ArrayLike {
  const f = resolveFormat(fmt);
  const { out: given, to = "float32", bits = false } = checkOptions(options, DEQUANTIZE_KEYS);
  if (!Object.hasOwn(TARGETS, to)) throw new ArgumentTypeError("options.to", `got ${describe(to)}; allowed: float32, float16 or bfloat16`);
  if (typeof bits !== "boolean") throw new ArgumentTypeError("options.bits", `got ${describe(bits)}; allowed: true or false`);
  requireCodes(codes, f);
  if (to !== "float32") return dequantize16(codes, f, to, given, bits);
  const out = requireOutput(given as Float32Array | undefined, Float32Array, codes.length);
  requireSeparate(out, [[codes, "codes"]]);
  const fast = dequantizeWasm(codes, f, out, decodeTable32);
  if (fast) return fast;
  gather(codes, f, decodeTable32(f), new Uint32Array(out.buffer, out.byteOffset, out.length));
  return out;
}

/**
 * Elements of each format converted to each 16-bit target without the conversion table. Converting each element
 * (decode, then the encode kernel: two passes) costs less than building the table for a short call, but repeated
 * short calls would pay it again and again: once they add up to the table's size, it is built (and used from then).
 */
const withoutTable = new WeakMap<Format, Map<Format, number>>();

function dequantize16(codes: CodeArray, f: Format, to: "float16" | "bfloat16", given: unknown, bits: boolean): Uint16Array | Float16ArrayLike {
  const plan = planDequantize16(codes, to, given, bits);
  const { target, rho } = plan;
  let counts = withoutTable.get(f);
  if (!counts) withoutTable.set(f, (counts = new Map()));
  const done = counts.get(target) ?? 0;
  if (done + codes.length < f.codeCount && valuesFitFloat32(f) && dequantizeVia32(codes, f, plan.dst(), target, rho, decodeTable32)) {
    counts.set(target, done + codes.length);
    return plan.result();
  }
  counts.set(target, f.codeCount);
  const table = table16(f, target, rho);
  if (!dequantizeWasm(codes, f, plan.dst(), decodeTable32, table)) gather(codes, f, table, plan.dst());
  return plan.result();
}

/** What dequantize's float16/bfloat16 output needs once validated (also minifloat/parallel's). */
export interface Dequantize16Plan {
  /** The array to return: re-created by keep() when it lives in Wasm memory that grew meanwhile. */
  readonly result: () => Uint16Array | Float16ArrayLike;
  /** A Uint16Array over the result's bytes (the same array when it is one). */
  readonly dst: () => Uint16Array;
  readonly target: Format;
  readonly rho: ResolvedProjection;
}

/** Validates (or allocates) dequantize's 16-bit output for `to`: a Float16Array where the runtime has one, else bits. */
export function planDequantize16(codes: CodeArray, to: "float16" | "bfloat16", given: unknown, bits: boolean): Dequantize16Plan {
  const F16 = to === "float16" ? float16ArrayType() : undefined;
  const n = codes.length;
  const allowed = F16 ? `a ${F16.name} or a Uint16Array` : "a Uint16Array";
  const out = given ?? (F16 && !bits ? new F16(n) : new Uint16Array(n));
  if (!(out instanceof Uint16Array || (F16 && out instanceof F16)))
    throw new ArgumentTypeError("options.out", `got ${describe(out)}; allowed: ${allowed} of length ${n} for ${to}`);
  const view = requireAttached(out as Uint16Array, "options.out");
  if (view.length !== n) throw new CodeRangeError("options.out", `has length ${view.length}; allowed: ${n} (the input length)`);
  requireSeparate(view, [[codes, "codes"]]);
  const target = format(TARGETS[to]);
  // A Float16Array output is written through a Uint16Array over its bytes; keep() re-creates an output in Wasm memory
  // (of its own type) when building or uploading the table grows the memory.
  const result = keep(out as Uint16Array) as () => Uint16Array | Float16ArrayLike;
  const dst = keep(out instanceof Uint16Array ? out : new Uint16Array(view.buffer, view.byteOffset, n));
  return { result, dst, target, rho: resolveProjection(target, RNE) };
}

/** The 16-bit conversion table of f's codes into target under rho (built once, through the encode kernel when it runs). */
export function table16(f: Format, target: Format, rho: ResolvedProjection): Uint16Array {
  return conversionTable(f, target, rho, kernelProjection) as Uint16Array;
}

const RNE = { rounding: "NearestTiesToEven", saturation: "SatNone" } as const;

/** The tables' bulk route: the encode kernel over exact float32 values (undefined without kernels). */
const kernelProjection: BulkProjection = (values, target, rho) =>
  quantizeWasm(values, target, rho, new (target.K <= 8 ? Uint8Array : Uint16Array)(values.length), undefined);

export interface ConvertOptions extends Projection {
  /** Output codes (length = codes.length): a Uint8Array for targets of ≤ 8 bits, else a Uint16Array. */
  out?: Uint8Array | Uint16Array;
}

const CONVERT_KEYS = ["out", "rounding", "saturation"] as const satisfies readonly (keyof ConvertOptions)[];

/**
 * Codes of one format (≤ 16 bits) converted into another (≤ 16 bits): Convert<from, to, ρ> (P3109 §4.9.1), each
 * exact value rounded once under a deterministic projection (default: the target's). One pass through a per-code
 * table built once per (from, to, projection).
 */
export function convert(codes: CodeArray, from: FormatLike, to: FormatLike, options?: ConvertOptions): Uint8Array | Uint16Array {
  const { f, table, out } = planConvert(codes, from, to, options);
  if (table instanceof Uint16Array && dequantizeWasm(codes, f, out() as Uint16Array, decodeTable32, table)) return out();
  gather(codes, f, table, out());
  return out();
}

/** convert's arguments validated: the source format, the conversion table and the output (also minifloat/parallel's). */
export function planConvert(
  codes: CodeArray,
  from: FormatLike,
  to: FormatLike,
  options: ConvertOptions | undefined,
): { f: Format; table: Uint8Array | Uint16Array; out: () => Uint8Array | Uint16Array } {
  const f = resolveFormat(from, "from");
  const target = resolveFormat(to, "to");
  // Before the keys: a stochastic rounding's stochasticBits would otherwise be refused as an unknown option first.
  const rounding = typeof options === "object" && options !== null ? (options as Projection).rounding : undefined;
  if (typeof rounding === "string" && (ROUNDINGS as readonly string[]).includes(rounding) && isStochastic(rounding)) {
    const deterministic = ROUNDINGS.filter((r) => !isStochastic(r)).join(", ");
    throw new ArgumentTypeError(
      "options.rounding",
      `${rounding}: convert rounds through one table per code, so it takes no stochastic rounding; allowed: ${deterministic} (or dequantize, then quantize with a seed)`,
    );
  }
  const { out: given, ...projection } = checkOptions(options, CONVERT_KEYS);
  requireCodes(codes, f);
  if (target.K > 16)
    throw new CodeRangeError("to", `${target.name} has ${target.K}-bit codes; allowed: a format of at most 16 bits (use dequantize for float32)`);
  const rho = resolveProjection(target, projection, "options");
  // Taken before the table is built: building it may grow the Wasm memory an output there lives in.
  const checked =
    target.K <= 8
      ? requireOutput(given as Uint8Array | undefined, Uint8Array, codes.length)
      : requireOutput(given as Uint16Array | undefined, Uint16Array, codes.length);
  requireSeparate(checked, [[codes, "codes"]]);
  const out = keep(checked);
  return { f, table: conversionTable(f, target, rho, kernelProjection) as Uint8Array | Uint16Array, out };
}

/** dst[i] = table[codes[i]] after checking every code, so nothing is written for an out-of-range code. */
function gather(codes: CodeArray, f: Format, table: Uint32Array | Uint16Array | Uint8Array, dst: Uint32Array | Uint16Array | Uint8Array): void {
  const limit = f.codeCount;
  for (let i = 0; i < codes.length; i++) {
    if (codes[i]! >= limit) throw new CodeRangeError(`codes[${i}]`, `is ${codes[i]}; allowed: a ${f.name} code in [0, ${limit - 1}]`);
  }
  for (let i = 0; i < codes.length; i++) dst[i] = table[codes[i]!]!;
}
