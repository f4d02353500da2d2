// The bulk planner: one place that validates a quantize call (format, projection, random bits, output, flags) and
// decides whether the Wasm encode kernel or the exact reference runs it. quantize, the pool and its workers all
// plan through here, so they accept the same options, throw the same errors and take the same path.
import { ArgumentTypeError, describe } from "../errors.js";
import type { ConversionFlags } from "../exact/cast.js";
import { type Projection, type ResolvedProjection, resolveProjection } from "../exact/projection.js";
import { odd32Covers } from "../exact/round-to-odd.js";
import type { Format } from "../format/model.js";
import { type RandomArray, type RandomOptions, type RandomSource, resolveRandom } from "../random.js";
import { type WasmRandom, encodeBlock, encodeVariant } from "../wasm/encode.js";
import { kernels } from "../wasm/instance.js";
import { type FormatLike, resolveFormat } from "./scalar.js";
import { type CodeArray, codeArrayType, requireInput, requireOutputArray, requireSeparate } from "./validate.js";
import { checkOptions } from "../options.js";

// The random-bit options and their validator live in random.ts (block and operation APIs share them).
export { type RandomArray, type RandomOptions, type RandomSource, resolveRandom };

export interface QuantizeOptions extends Omit<Projection, "random">, RandomOptions {
  /**
   * The input's element type when it is 16-bit bits: "float16" (a Uint16Array of binary16 bits; a Float16Array needs
   * no option) or "bfloat16" (a Uint16Array of bfloat16 bits). Every such value is exact in float32.
   */
  from?: "float16" | "bfloat16";
  /** Output codes (length = input length; Uint8Array for ≤ 8-bit formats, Uint16Array for 9…16 bits). */
  out?: CodeArray;
  /** Exception flags (counts) added to by this call. */
  flags?: ConversionFlags;
}

export const QUANTIZE_KEYS = [
  "rounding",
  "saturation",
  "stochasticBits",
  "seed",
  "seedIndex",
  "random",
  "out",
  "flags",
  "from",
] as const satisfies readonly (keyof QuantizeOptions)[];

/** The random source as the encode kernel takes it. */
export function wasmRandom(random: RandomSource | undefined): WasmRandom {
  if (!random) return undefined;
  return random.kind === "seed" ? { seed: random.seed } : { array: random.array };
}

/**
 * What runs a quantize call: the Wasm encode kernel (with its fast variant, or the generic path) on float32 input or
 * on float64 input rounded to float32 to odd (src/exact/round-to-odd.ts: exact for the formats it covers), or the
 * reference.
 */
export type QuantizeKernel =
  | { readonly kernel: "encodeF32" | "encodeF64"; readonly variant: ReturnType<typeof encodeVariant>; readonly block: Int32Array }
  | { readonly kernel: "reference" };

export interface QuantizePlan {
  readonly f: Format;
  readonly rho: ResolvedProjection;
  readonly src: Float32Array | Float64Array;
  /** The code array type of f. */
  readonly type: ReturnType<typeof codeArrayType>;
  /** The caller's output array (checked), or undefined: the runner allocates one. */
  readonly out: CodeArray | undefined;
  readonly random: RandomSource | undefined;
  readonly flags: ConversionFlags | undefined;
  readonly run: QuantizeKernel;
}

/** The counts a ConversionFlags object holds (src/exact/cast.ts newFlags). */
const FLAG_COUNTS = ["invalid", "denormal", "overflow", "underflow"] as const;

/** options.flags is added to, so it must hold every count as a non-negative integer already (newFlags() does). */
function checkFlags(flags: unknown): void {
  if (typeof flags !== "object" || flags === null) {
    throw new ArgumentTypeError("options.flags", `got ${describe(flags)}; allowed: a ConversionFlags object, e.g. newFlags()`);
  }
  for (const key of FLAG_COUNTS) {
    const count = (flags as Record<string, unknown>)[key];
    if (!Number.isSafeInteger(count) || (count as number) < 0) {
      throw new ArgumentTypeError(`options.flags.${key}`, `got ${describe(count)}; allowed: a non-negative integer count, as newFlags() starts with`);
    }
  }
}

/**
 * Validates quantize(src, fmt, options) and picks its path: the encode kernel for float32 input without flags when
 * the kernels are on (useKernels) and cover (format, projection, random source) exactly, else the reference.
 */
export function planQuantize(src: unknown, fmt: FormatLike, options: QuantizeOptions | undefined): QuantizePlan {
  const f = resolveFormat(fmt);
  const { seed, seedIndex, random, out, flags, from, ...projection } = checkOptions(options, QUANTIZE_KEYS);
  const input = requireInput(src, from);
  const type = codeArrayType(f);
  if (flags !== undefined) checkFlags(flags);
  const rho = resolveProjection(f, projection as Projection);
  const source = resolveRandom(rho, input.length, { seed, seedIndex, random });
  const given = requireOutputArray<CodeArray>(out, type, input.length);
  requireSeparate(given, [
    [input, "src"],
    [source?.kind === "array" ? source.array : undefined, "options.random"],
  ]);
  // float64 input takes the kernel through rounding to odd under deterministic roundings (stochastic ones read more
  // fraction bits than float32 keeps; a vendor cast is defined on float32 input).
  const viaOdd = input instanceof Float64Array && rho.stochasticBits === 0 && rho.vendor === "none" && odd32Covers(f);
  const block =
    (input instanceof Float32Array || viaOdd) && flags === undefined && kernels() !== undefined ? encodeBlock(f, rho, wasmRandom(source)) : undefined;
  const kernel = input instanceof Float32Array ? "encodeF32" : "encodeF64";
  const run: QuantizeKernel = block ? { kernel, variant: encodeVariant(block), block } : { kernel: "reference" };
  return { f, rho, src: input, type, out: given, random: source, flags, run };
}
