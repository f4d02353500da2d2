// The bulk planner: one place that validates a quantize call (format, projection, random bits, output, flags) and
// decides whether the Wasm encode kernel or the exact reference runs it. quantize, the pool and its workers all
// plan through here, so they accept the same options, throw the same errors and take the same path.
import { ArgumentTypeError, CodeRangeError, ProjectionError, describe } from "../errors.js";
import type { ConversionFlags } from "../exact/cast.js";
import { type Projection, type ResolvedProjection, isStochastic, resolveProjection } from "../exact/projection.js";
import type { Format } from "../format/model.js";
import { randomR, seedKeys } from "../random.js";
import { type WasmRandom, encodeBlock, encodeVariant } from "../wasm/encode.js";
import { kernels } from "../wasm/instance.js";
import { type FormatLike, resolveFormat } from "./scalar.js";
import { type CodeArray, codeArrayType, requireInput, requireOutputArray } from "./validate.js";

export type RandomArray = Uint8Array | Uint16Array | Uint32Array;

/** Where the random bits R_i (P3109 §4.7.4) of a call with a stochastic rounding come from. */
export interface RandomOptions {
  /** Seed of the counter-based generator: R_i depends on (seed, seedIndex + i) alone. Integer in [0, 2^32). */
  seed?: number;
  /**
   * With `seed`: the stream index of element 0 (default 0), so a tensor converted in parts gives the same result as
   * in one call (part k passes the index of its first element). seedIndex + length ≤ 2^32.
   */
  seedIndex?: number;
  /** Caller-supplied R_i: a Uint8Array, Uint16Array or Uint32Array with one R per element, each < 2^N. */
  random?: RandomArray;
}

export interface QuantizeOptions extends Omit<Projection, "random">, RandomOptions {
  /** Output codes (length = input length; Uint8Array for ≤ 8-bit formats, Uint16Array for 9…16 bits). */
  out?: CodeArray;
  /** Exception flags (counts) added to by this call. */
  flags?: ConversionFlags;
}

/** A validated random source: R_i of element i is `at(i)`. */
export type RandomSource =
  | { readonly kind: "seed"; readonly seed: number; readonly seedIndex: number; readonly at: (i: number) => number }
  | { readonly kind: "array"; readonly array: RandomArray; readonly at: (i: number) => number };

/**
 * The one validator of random bits for every API that takes them: exactly one of `seed` (with optional
 * `seedIndex`) or `random` (a typed array of `n` values R < 2^N) for a stochastic rounding, neither otherwise.
 * Returns undefined for a deterministic rounding. `where` prefixes the argument names of errors.
 */
export function resolveRandom(rho: ResolvedProjection, n: number, source: RandomOptions, where = "options"): RandomSource | undefined {
  const { seed, seedIndex, random } = source;
  if (seedIndex !== undefined && seed === undefined) throw new ProjectionError(`${where}.seedIndex`, `only allowed together with ${where}.seed`);
  if (!isStochastic(rho.rounding)) {
    if (seed !== undefined || random !== undefined) {
      throw new ProjectionError(`${where}.${seed !== undefined ? "seed" : "random"}`, `only allowed with a stochastic rounding (rounding is ${rho.rounding})`);
    }
    return undefined;
  }
  if ((seed === undefined) === (random === undefined)) {
    throw new ProjectionError(where, `${rho.rounding} needs exactly one of ${where}.seed (an integer in [0, 2^32)) or ${where}.random (one R per element)`);
  }
  const N = rho.stochasticBits;
  if (seed !== undefined) {
    if (typeof seed !== "number" || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new ProjectionError(`${where}.seed`, `got ${describe(seed)}; allowed: an integer in [0, 2^32)`);
    }
    const first = seedIndex ?? 0;
    if (typeof first !== "number" || !Number.isInteger(first) || first < 0 || first + n > 2 ** 32) {
      throw new ProjectionError(`${where}.seedIndex`, `got ${describe(seedIndex)}; allowed: an integer ≥ 0 with seedIndex + length (${n}) ≤ 2^32`);
    }
    const [k0, k1] = seedKeys(seed);
    return { kind: "seed", seed, seedIndex: first, at: (i) => randomR(k0, k1, first + i, N) };
  }
  if (!(random instanceof Uint8Array || random instanceof Uint16Array || random instanceof Uint32Array)) {
    throw new ArgumentTypeError(`${where}.random`, `got ${describe(random)}; allowed: a Uint8Array, Uint16Array or Uint32Array with one R per element`);
  }
  if (random.length !== n) throw new CodeRangeError(`${where}.random`, `has length ${random.length}; allowed: the input length ${n}`);
  const limit = 2 ** N;
  for (let i = 0; i < n; i++) {
    if (random[i]! >= limit) throw new ProjectionError(`${where}.random`, `element ${i} is ${random[i]}; allowed: 0 ≤ R < 2^N = ${limit}`);
  }
  return { kind: "array", array: random, at: (i) => random[i]! };
}

/** The random source as the encode kernel takes it. */
export function wasmRandom(random: RandomSource | undefined): WasmRandom {
  if (!random) return undefined;
  return random.kind === "seed" ? { seed: random.seed } : { array: random.array };
}

/** What runs a quantize call: the Wasm encode kernel (with its fast variant, or the generic path) or the reference. */
export type QuantizeKernel = { readonly kernel: "encodeF32"; readonly variant: ReturnType<typeof encodeVariant>; readonly block: Int32Array } | { readonly kernel: "reference" };

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

/**
 * Validates quantize(src, fmt, options) and picks its path: the encode kernel for float32 input without flags when
 * the kernels are on (useKernels) and cover (format, projection, random source) exactly, else the reference.
 */
export function planQuantize(src: unknown, fmt: FormatLike, options: QuantizeOptions | undefined): QuantizePlan {
  const f = resolveFormat(fmt);
  const input = requireInput(src);
  const type = codeArrayType(f);
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ArgumentTypeError("options", `got ${describe(options)}; allowed: an object { rounding?, saturation?, stochasticBits?, seed?, seedIndex?, random?, out?, flags? }`);
  }
  const { seed, seedIndex, random, out, flags, ...projection } = options ?? {};
  if (flags !== undefined && (typeof flags !== "object" || flags === null)) {
    throw new ArgumentTypeError("options.flags", `got ${describe(flags)}; allowed: a ConversionFlags object, e.g. newFlags()`);
  }
  const rho = resolveProjection(f, projection as Projection);
  const source = resolveRandom(rho, input.length, { seed, seedIndex, random });
  const given = requireOutputArray<CodeArray>(out, type, input.length);
  const block = input instanceof Float32Array && flags === undefined && kernels() !== undefined ? encodeBlock(f, rho, wasmRandom(source)) : undefined;
  const run: QuantizeKernel = block ? { kernel: "encodeF32", variant: encodeVariant(block), block } : { kernel: "reference" };
  return { f, rho, src: input, type, out: given, random: source, flags, run };
}
