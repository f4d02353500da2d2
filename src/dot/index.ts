// Dot products of 8-bit (or packed 4-bit) codes with narrow partial sums and the exact dot product,
// plus batched matrix × vector and matrix × matrix. Validation and semantics live here; src/dot/reference.ts is
// the scalar reference and src/dot/wasm.ts the Wasm kernel path (bit-identical, checked by the tests).
import { ArgumentTypeError, CodeRangeError, describe, requireInteger } from "../errors.js";
import type { Format } from "../format/model.js";
import { type FormatLike, resolveFormat } from "../api/scalar.js";
import { OVERFLOW_MODES, type OverflowMode, type PartialsName, overflowMode, partialsFormat } from "./partials.js";
import { type DotContext, dotContext, dotReference } from "./reference.js";
import { dotKernel } from "./wasm.js";
import { quantize } from "../api/bulk.js";
import { rejectRemoved, requireAttached, requireCodesIn } from "../api/validate.js";

export { requireCodesIn };
import { checkOptions } from "../options.js";
import { format } from "../format/registry.js";

export type DotOverflow = OverflowMode | "exact";

export interface DotOptions {
  /** Operand formats: one for both, or [format of a, format of b]; codes of at most 8 bits. */
  formats: FormatLike | readonly [FormatLike, FormatLike];
  /** Format of the partial sums (default "binary16"). */
  partials?: PartialsName;
  /**
   * What a projection into the partials does when the rounded magnitude exceeds MaxFinite (default "OvINF"):
   * "OvSAT" ±MaxFinite, "OvINF" ±∞, "OvNAN" NaN. "exact": BlockDotProduct semantics — the exact sum of the exact
   * products rounded once into the partials format (NearestTiesToEven, SatNone: ±∞ beyond MaxFinite).
   */
  overflow?: DotOverflow;
  /** BLK: products per block summed exactly before one projection (default 16; 1 … 8192). */
  blockSize?: number;
  /** 4-bit formats only: two codes per byte, the first element in the low nibble. */
  packed?: boolean;
  /** Number of elements of packed operands (default: 2 × bytes). */
  length?: number;
}

export const DOT_OVERFLOW_MODES: readonly DotOverflow[] = [...OVERFLOW_MODES, "exact"];
/** Largest BLK: float64 block sums of binary16 partials (multiples of 2^−24 below 2^16) stay exact up to 2^13 terms. */
export const MAX_BLOCK = 8192;

export interface ResolvedDot {
  readonly fa: Format;
  readonly fb: Format;
  readonly ctx: DotContext;
  readonly packed: boolean;
}

/** The option keys of each dot-product call. */
const DOT_KEYS = ["formats", "partials", "overflow", "blockSize", "packed", "length"] as const satisfies readonly (keyof DotOptions)[];
const ROWS_KEYS = ["formats", "partials", "overflow", "blockSize", "out"] as const;
const MAT_KEYS = ["formats", "partials", "overflow", "blockSize", "scales", "out"] as const satisfies readonly (keyof MatOptions | "out")[];

export function resolveDot(options: DotOptions | undefined, allowed: readonly string[] = DOT_KEYS): ResolvedDot {
  if (options === null || typeof options !== "object") {
    throw new ArgumentTypeError("options", `got ${describe(options)}; allowed: an object { ${allowed.join(", ")} }`);
  }
  rejectRemoved(options);
  checkOptions(options, allowed);
  const formats = options.formats;
  const [la, lb] = Array.isArray(formats) ? (formats as readonly [FormatLike, FormatLike]) : [formats as FormatLike, formats as FormatLike];
  if (Array.isArray(formats) && formats.length !== 2) {
    throw new ArgumentTypeError("options.formats", `got an array of length ${formats.length}; allowed: a format or [format of a, format of b]`);
  }
  const fa = resolveFormat(la, "options.formats[0]");
  const fb = resolveFormat(lb, "options.formats[1]");
  const packed = options.packed ?? false;
  if (typeof packed !== "boolean") throw new ArgumentTypeError("options.packed", `got ${describe(packed)}; allowed: true or false`);
  for (const [f, name] of [
    [fa, "options.formats[0]"],
    [fb, "options.formats[1]"],
  ] as const) {
    const limit = packed ? 4 : 8;
    if (f.K > limit)
      throw new CodeRangeError(
        name,
        `${f.name} has ${f.K}-bit codes; allowed: formats of at most ${limit} bits${packed ? " (packed operands hold two 4-bit codes per byte)" : ""}`,
      );
  }
  const partials = partialsFormat(options.partials ?? "binary16");
  const mode = overflowMode(options.overflow ?? "OvINF", DOT_OVERFLOW_MODES) as DotOverflow;
  const block = requireInteger("options.blockSize", options.blockSize ?? 16, 1, MAX_BLOCK);
  return { fa, fb, ctx: dotContext(fa, fb, partials, mode, block), packed };
}

function requireBytes(x: unknown, argument: string): Uint8Array {
  if (!(x instanceof Uint8Array)) throw new ArgumentTypeError(argument, `got ${describe(x)}; allowed: a Uint8Array of codes`);
  return requireAttached(x, argument);
}

/** Unpacks 4-bit codes (first element in the low nibble) into one code per byte. */
export function unpackNibbles(src: Uint8Array, n: number, argument: string): Uint8Array {
  if (src.length !== Math.ceil(n / 2))
    throw new CodeRangeError(argument, `has ${src.length} bytes; allowed: ceil(${n} / 2) = ${Math.ceil(n / 2)} for ${n} packed 4-bit codes`);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = i & 1 ? src[i >> 1]! >> 4 : src[i >> 1]! & 15;
  return out;
}

/** CodeRangeError naming `argument[i]` for the first code ≥ 2^K (formats of fewer than 8 bits). */
/**
 * The dot product Σ a_i·b_i of two code vectors with narrow partials: each product rounded into the
 * partials format (RNE), each block of BLK products summed exactly and projected once, the block results added
 * one by one to a running total projected after every addition; every projection applies the overflow mode.
 * Returns the final partial (a float64 holding a value of the partials format, ±∞ or NaN; zero is +0).
 */
export function dot(a: Uint8Array, b: Uint8Array, options: DotOptions): number {
  const r = resolveDot(options);
  let ca = requireBytes(a, "a");
  let cb = requireBytes(b, "b");
  let n: number;
  if (r.packed) {
    n = options.length ?? 2 * ca.length;
    requireInteger("options.length", n, 0, 2 ** 32);
    ca = unpackNibbles(ca, n, "a");
    cb = unpackNibbles(cb, n, "b");
  } else {
    if (options.length !== undefined) throw new ArgumentTypeError("options.length", "only allowed with packed: true");
    if (ca.length !== cb.length) throw new CodeRangeError("b", `has length ${cb.length}; allowed: the length of a (${ca.length})`);
    n = ca.length;
  }
  requireCodesIn(ca, r.fa, "a");
  requireCodesIn(cb, r.fb, "b");
  const out = dotKernel(ca, cb, n, 1, 1, r.ctx, undefined);
  return out ? out[0]! : dotReference(ca, 0, cb, 0, n, r.ctx);
}

/** Scales of a batched product: E8M0 codes (2^(code − 127); 0xFF = NaN), one per row or one per row and block. */
export interface MatScales {
  /** Scales of the rows of `a`: `rows` codes (per row) or `rows × ceil(cols / BLK)` codes (per block). */
  a?: Uint8Array;
  /** Scales of `x` (matvec: 1 or ceil(cols / BLK) codes) or of the rows of `b` (matmul: like `a`). */
  b?: Uint8Array;
}

export interface MatOptions extends Omit<DotOptions, "length" | "packed"> {
  /** Power-of-two scales applied to each block's exact sum before its projection into the partials. */
  scales?: MatScales;
}

/** Exponent function of one pair of scale vectors; validates lengths (per row or per block). */
function scaleFunction(
  scales: MatScales | undefined,
  rows: number,
  rowsB: number,
  blocks: number,
): (rowA: number, rowB: number) => ((k: number) => number) | undefined {
  if (scales === undefined) return () => undefined;
  if (typeof scales !== "object" || scales === null)
    throw new ArgumentTypeError("options.scales", `got ${describe(scales)}; allowed: { a?: Uint8Array, b?: Uint8Array } of E8M0 codes`);
  const pick = (s: Uint8Array | undefined, count: number, argument: string): ((row: number, k: number) => number) => {
    if (s === undefined) return () => 0;
    requireBytes(s, argument);
    const exp = (c: number) => (c === 0xff ? NaN : c - 127);
    if (s.length === count) return (row) => exp(s[row]!);
    if (s.length === count * blocks) return (row, k) => exp(s[row * blocks + k]!);
    throw new CodeRangeError(argument, `has ${s.length} codes; allowed: ${count} (one per row) or ${count * blocks} (one per row and block of BLK)`);
  };
  const sa = pick(scales.a, rows, "options.scales.a");
  const sb = pick(scales.b, rowsB, "options.scales.b");
  return (ra, rb) => (k) => sa(ra, k) + sb(rb, k);
}

/**
 * y = A·x for row-major codes A (rows × cols) and x (cols): one narrow-partials dot product per row (the same
 * semantics as dot()). Results as float32 (every partials value is a float32), or as binary16 bit patterns when
 * `options.out` is a Uint16Array (exact for binary16 partials; bfloat16/binary32 partials are rounded to nearest even).
 */
export function matvec<T extends Float32Array | Uint16Array = Float32Array>(
  a: Uint8Array,
  x: Uint8Array,
  rows: number,
  cols: number,
  options: MatOptions & { out?: T },
): T {
  return matmulChecked(a, x, rows, 1, cols, options, matmulArgs(a, x, rows, 1, cols, options, true, MATVEC_NAMES));
}

/**
 * C = A·Bᵀ for row-major codes A (m × k) and B (n × k) — B holds the columns of the right operand as rows (the
 * weight layout of a linear layer). C (m × n, row-major) holds one dot() per pair of rows, as float32 or (out: a
 * Uint16Array) as binary16 bit patterns.
 */
export function matmul<T extends Float32Array | Uint16Array = Float32Array>(
  a: Uint8Array,
  b: Uint8Array,
  m: number,
  n: number,
  k: number,
  options: MatOptions & { out?: T },
): T {
  const r = matmulArgs(a, b, m, n, k, options, true);
  return matmulChecked(a, b, m, n, k, options, r);
}

/** What errors call the arguments of a matrix product: its second operand and the dimensions m, n, k. */
export interface MatNames {
  readonly b: string;
  /** The names of m, n and k; n's is "" where the call fixes n = 1 (matvec). */
  readonly dims: readonly [string, string, string];
}

const MATMUL_NAMES: MatNames = { b: "b", dims: ["m", "n", "k"] };
/** matvec(a, x, rows, cols) is matmul(a, x, rows, 1, cols). */
export const MATVEC_NAMES: MatNames = { b: "x", dims: ["rows", "", "cols"] };

/**
 * Validates the arguments of matmul (and matvec: `names`), codes included when `codes` (the worker pool checks them
 * in parallel first), and returns the resolved options. The same typed errors, in the same order, as matmul.
 */
export function matmulArgs(
  a: Uint8Array,
  b: Uint8Array,
  m: number,
  n: number,
  k: number,
  options: MatOptions & { out?: Float32Array | Uint16Array },
  codes: boolean,
  names: MatNames = MATMUL_NAMES,
): ResolvedDot {
  const r = resolveDot(options as DotOptions, MAT_KEYS);
  const [mName, nName, kName] = names.dims;
  const dims = nName ? { [mName]: m, [nName]: n, [kName]: k } : { [mName]: m, [kName]: k };
  const shape = (...dimNames: string[]) => dimNames.filter((d) => d !== "");
  requireMatrices(a, b, dims, shape(mName, kName), shape(nName, kName), names.b);
  const out = options.out;
  const outShape = `${shape(mName, nName).join(" × ")} = ${m * n}`;
  if (out instanceof Uint16Array || out instanceof Float32Array) requireAttached(out, "options.out");
  if (out instanceof Uint16Array) {
    if (out.length !== m * n) throw new CodeRangeError("options.out", `has length ${out.length}; allowed: ${outShape}`);
  } else if (out !== undefined && (!(out instanceof Float32Array) || out.length !== m * n)) {
    throw new CodeRangeError("options.out", `got ${describe(out)}; allowed: a Float32Array of length ${outShape} (or a Uint16Array for binary16 results)`);
  }
  scaleFunction(options.scales, m, n, Math.max(1, Math.ceil(k / r.ctx.block)));
  if (codes) {
    requireCodesIn(a, r.fa, "a");
    requireCodesIn(b, r.fb, names.b);
  }
  return r;
}

/**
 * Checks row-major code matrices a and b (called `bName`): byte arrays, the named dimensions integers in [0, 2^32]
 * (in order), and each of the length its dimension names in `aShape` and `bShape` multiply to.
 */
function requireMatrices(a: Uint8Array, b: Uint8Array, dims: Record<string, number>, aShape: readonly string[], bShape: readonly string[], bName = "b"): void {
  requireBytes(a, "a");
  requireBytes(b, bName);
  for (const [name, value] of Object.entries(dims)) requireInteger(name, value, 0, 2 ** 32);
  requireShape(a, "a", dims, aShape);
  requireShape(b, bName, dims, bShape);
}

function requireShape(codes: Uint8Array, argument: string, dims: Record<string, number>, shape: readonly string[]): void {
  const length = shape.reduce((product, d) => product * dims[d]!, 1);
  if (codes.length !== length) throw new CodeRangeError(argument, `has length ${codes.length}; allowed: ${shape.join(" × ")} = ${length}`);
}

/** matmul after matmulArgs (codes checked or known valid). */
export function matmulChecked<T extends Float32Array | Uint16Array>(
  a: Uint8Array,
  b: Uint8Array,
  m: number,
  n: number,
  k: number,
  options: MatOptions & { out?: T },
  r: ResolvedDot,
): T {
  if (options.out instanceof Uint16Array) {
    const c = matmul32(a, b, m, n, k, options, r, new Float32Array(m * n));
    return quantize(c, BINARY16, { out: options.out }) as T;
  }
  return matmul32(a, b, m, n, k, options, r, (options.out as Float32Array | undefined) ?? new Float32Array(m * n)) as T;
}

const BINARY16 = format("binary16");

function matmul32(a: Uint8Array, b: Uint8Array, m: number, n: number, k: number, options: MatOptions, r: ResolvedDot, out: Float32Array): Float32Array {
  const blocks = Math.max(1, Math.ceil(k / r.ctx.block));
  const scale = scaleFunction(options.scales, m, n, blocks);
  const fast = dotKernel(a, b, k, m, n, r.ctx, options.scales ? { ...options.scales, blocks } : undefined, out);
  if (fast) return fast; // `out` re-created if it is a Wasm view and memory grew
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) out[i * n + j] = dotReference(a, i * k, b, j * k, k, r.ctx, scale(i, j));
  }
  return out;
}

/**
 * Row-wise dot products: out[i] = dot(row i of a, row i of b) for row-major codes a, b (rows × cols), with the
 * semantics of dot() (a batch of independent dot products, e.g. one per sample).
 */
export function dotRows(
  a: Uint8Array,
  b: Uint8Array,
  rows: number,
  cols: number,
  options: Omit<DotOptions, "length" | "packed"> & { out?: Float32Array },
): Float32Array {
  return dotRowsChecked(a, b, rows, cols, options, dotRowsArgs(a, b, rows, cols, options, true));
}

/** Validates the arguments of dotRows (codes included when `codes`) and returns the resolved options. */
export function dotRowsArgs(
  a: Uint8Array,
  b: Uint8Array,
  rows: number,
  cols: number,
  options: Omit<DotOptions, "length" | "packed"> & { out?: Float32Array },
  codes: boolean,
): ResolvedDot {
  const r = resolveDot(options as DotOptions, ROWS_KEYS);
  requireMatrices(a, b, { rows, cols }, ["rows", "cols"], ["rows", "cols"]);
  const out = options.out;
  // Attached first: a view from before a growth reads as empty, and its length would be the wrong complaint.
  if (out instanceof Float32Array) requireAttached(out, "options.out");
  if (out !== undefined && (!(out instanceof Float32Array) || out.length !== rows))
    throw new CodeRangeError("options.out", `got ${describe(out)}; allowed: a Float32Array of length rows = ${rows}`);
  if (codes) {
    requireCodesIn(a, r.fa, "a");
    requireCodesIn(b, r.fb, "b");
  }
  return r;
}

/** dotRows after dotRowsArgs (codes checked or known valid). */
export function dotRowsChecked(a: Uint8Array, b: Uint8Array, rows: number, cols: number, options: { out?: Float32Array }, r: ResolvedDot): Float32Array {
  const out = options.out ?? new Float32Array(rows);
  const fast = dotKernel(a, b, cols, rows, rows, r.ctx, undefined, out, true);
  if (fast) return fast;
  for (let i = 0; i < rows; i++) out[i] = dotReference(a, i * cols, b, i * cols, cols, r.ctx);
  return out;
}
