// P3109 block operations (Interim Report v4.0 §5): a block is a pair (s, [x1…xB]) of a scale code s in
// format fs and B ≥ 1 element codes in format fx. Every operation is exact: ω-values (BigInt significands), one
// projection per result (ωProject_{fr,ρ}); inexact quotients reach the projection as round-to-odd values.
import { ArgumentTypeError, CodeRangeError, ProjectionError, describe, requireInteger } from "../errors.js";
import { project } from "../exact/cast.js";
import { operandValue } from "../exact/decode.js";
import { type Projection, type ResolvedProjection, isStochastic, resolveProjection } from "../exact/projection.js";
import { type Exact, NAN, ZERO, bitLength, compareFinite, finite, normalize } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { type FormatLike, resolveFormat } from "../api/scalar.js";
import { Add, Divide, Multiply } from "../ops/arithmetic.js";
import { MIN_MAX_OPS, MaximumFinite } from "../ops/extrema.js";
import { operationInfo } from "../ops/registry.js";
import { stickyPrecision } from "../ops/sticky.js";
import { checkOptions } from "../options.js";
import { type RandomArray, resolveRandom } from "../random.js";

/** A scaled block: the scale code and the element codes (formats are parameters of each operation). */
export interface ScaledBlock {
  readonly scale: number;
  readonly elements: number[];
}

/** A projection ρ for block results; stochastic modes take one R per result element in `random`. */
export interface BlockProjection extends Omit<Projection, "random"> {
  /** R_i per result element (stochastic roundings only): a Uint8Array, Uint16Array or Uint32Array, each R < 2^N. */
  random?: RandomArray;
}

const BLOCK_PROJECTION_KEYS = ["rounding", "saturation", "stochasticBits", "random"] as const satisfies readonly (keyof BlockProjection)[];

interface Resolved {
  readonly f: Format;
  readonly rho: ResolvedProjection;
  readonly precision: number;
  readonly random: (i: number) => number;
}

function resolve(fr: FormatLike, projection: BlockProjection | undefined, count: number, where: string, frArg = "fr"): Resolved {
  const f = resolveFormat(fr, frArg);
  const { random, ...rest } = checkOptions(projection, BLOCK_PROJECTION_KEYS, where);
  const rho = resolveProjection(f, rest as Projection, where, "P3109");
  const source = resolveRandom(rho, count, random === undefined ? {} : { random }, where);
  const pick = source ? source.at : () => 0;
  return { f, rho, precision: stickyPrecision(f, rho), random: pick };
}

function requireCodes(codes: unknown, f: Format, argument: string, minLength = 1): number[] {
  if (codes === null || typeof codes !== "object" || typeof (codes as ArrayLike<number>).length !== "number") {
    throw new ArgumentTypeError(argument, `got ${describe(codes)}; allowed: an array of ${f.name} codes`);
  }
  const list = Array.from(codes as ArrayLike<number>);
  if (list.length < minLength) throw new CodeRangeError(argument, `has ${list.length} elements; allowed: a block of B ≥ ${minLength} codes`);
  list.forEach((c, i) => requireInteger(`${argument}[${i}]`, c, 0, f.codeCount - 1));
  return list;
}

function requireBlock(block: unknown, fs: Format, fx: Format, argument: string): ScaledBlock {
  if (block === null || typeof block !== "object") throw new ArgumentTypeError(argument, `got ${describe(block)}; allowed: { scale, elements }`);
  const b = block as ScaledBlock;
  requireInteger(`${argument}.scale`, b.scale, 0, fs.codeCount - 1);
  return { scale: b.scale, elements: requireCodes(b.elements, fx, `${argument}.elements`) };
}

/** ωBlockDecode_{B,fs,fx}(s, [x]): Z_i = ωMultiply(ωDecode_fs(s), ωDecode_fx(x_i)) (0·∞ → NaN, NaN scale → all NaN). */
export function blockDecode(block: ScaledBlock, fs: FormatLike, fx: FormatLike): Exact[] {
  const s = resolveFormat(fs, "fs");
  const x = resolveFormat(fx, "fx");
  const b = requireBlock(block, s, x, "block");
  return decodeBlock(b, s, x);
}

function decodeBlock(b: ScaledBlock, fs: Format, fx: Format): Exact[] {
  const S = operandValue(b.scale, fs);
  return b.elements.map((c) => Multiply([S, operandValue(c, fx)], 0));
}

const sgn = (x: Exact): number => (x.kind === "finite" && x.significand === 0n ? 0 : x.sign);

/** An element value: exact, or an ω-result that can be delivered at any requested precision (`sticky.ts`). */
type ElementValue = Exact | ((precision: number) => Exact);

/**
 * ωBlockProject_{B,fs,fr,ρ}(s, [X]): Z_i = NaN if S or X_i is NaN; 0 if S = 0 (even for X_i = ±∞);
 * sgn(X_i)·sgn(S) if S = ±∞; otherwise ωDivide(X_i, S); r_i = ωProject_{fr,ρ}(Z_i).
 */
function projectBlock(scale: number, fs: Format, values: ElementValue[], r: Resolved): number[] {
  const S = operandValue(scale, fs);
  return values.map((v, i) => {
    let Z: Exact;
    const X = typeof v === "function" ? v(r.precision) : v;
    if (S.kind === "nan" || X.kind === "nan") Z = NAN;
    else if (S.kind === "finite" && S.significand === 0n) Z = ZERO;
    else if (S.kind === "infinity") {
      const s = sgn(X) * S.sign;
      Z = s === 0 ? ZERO : finite(s > 0 ? 1 : -1, 1n, 0);
    } else if (typeof v === "function" && !isPowerOfTwo(S)) Z = divideOnce(v, S, r.precision);
    else Z = Divide([X, S], r.precision);
    return project(Z, r.f, r.rho, r.random(i));
  });
}

function isPowerOfTwo(x: Exact): boolean {
  return x.kind === "finite" && (x.significand & (x.significand - 1n)) === 0n;
}

/**
 * ωDivide(X, S) rounded to odd at `precision` bits, where X is an ω-result known only as round-to-odd values at
 * requested precisions q. An inexact X lies strictly between its neighbours at q bits, so when both neighbours
 * divided by S round to the same odd value (round-to-odd is monotone), so does X/S; an ω-result with fewer than q
 * significant bits is exact and is divided once. Division by a power of two needs none of this (it only shifts).
 */
function divideOnce(omegaAt: (q: number) => Exact, S: Exact, precision: number): Exact {
  for (let q = precision + 32; q <= 1 << 16; q *= 2) {
    const t = normalize(omegaAt(q));
    if (t.kind !== "finite" || t.significand === 0n || bitLength(t.significand) < q) return Divide([t, S], precision);
    const lo = Divide([finite(t.sign, t.significand - 1n, t.exponent), S], precision);
    const hi = Divide([finite(t.sign, t.significand + 1n, t.exponent), S], precision);
    if (lo.kind === "finite" && hi.kind === "finite" && compareFinite(lo, hi) === 0) return lo;
  }
  throw new Error("internal: ωDivide of an ω-result did not converge (please report this input)");
}

/** ωBlockProject as a public operation on exact values (e.g. results of other ω-operations). */
export function blockProject(scale: number, fs: FormatLike, values: readonly Exact[], fr: FormatLike, projection?: BlockProjection): number[] {
  const s = resolveFormat(fs, "fs");
  requireInteger("scale", scale, 0, s.codeCount - 1);
  if (!Array.isArray(values) || values.length < 1) throw new CodeRangeError("values", `got ${describe(values)}; allowed: B ≥ 1 exact values`);
  return projectBlock(scale, s, values, resolve(fr, projection, values.length, "projection"));
}

/** ConvertToBlock_{B,fx,fs,fr,ρ}([x], s) = (s, ωBlockProject(s, [ωDecode(x_i)])): the scale is an input. */
export function convertToBlock(x: ArrayLike<number>, fx: FormatLike, scale: number, fs: FormatLike, fr: FormatLike, projection?: BlockProjection): ScaledBlock {
  const fxf = resolveFormat(fx, "fx");
  const fsf = resolveFormat(fs, "fs");
  const codes = requireCodes(x, fxf, "x");
  requireInteger("scale", scale, 0, fsf.codeCount - 1);
  const r = resolve(fr, projection, codes.length, "projection");
  return {
    scale,
    elements: projectBlock(
      scale,
      fsf,
      codes.map((c) => operandValue(c, fxf)),
      r,
    ),
  };
}

/** ConvertFromBlock_{B,fs,fx,fr,ρ}((s, [x])) = [ωProject_{fr,ρ}(Z_i)] with Z = ωBlockDecode(s, [x]). */
export function convertFromBlock(block: ScaledBlock, fs: FormatLike, fx: FormatLike, fr: FormatLike, projection?: BlockProjection): number[] {
  const fsf = resolveFormat(fs, "fs");
  const fxf = resolveFormat(fx, "fx");
  const b = requireBlock(block, fsf, fxf, "block");
  const r = resolve(fr, projection, b.elements.length, "projection");
  return decodeBlock(b, fsf, fxf).map((Z, i) => project(Z, r.f, r.rho, r.random(i)));
}

/**
 * ConvertToBlockMaxAbsFinite_{B,fx,fs,fr,ρs,ρ}([x]): S = reduce(ωMaximumFinite, [NaN, |X_1| … |X_B|]) (the largest
 * finite magnitude; +∞ only if every non-NaN input is infinite; NaN only if all are NaN), s = ωProject_{fs,ρs}(S),
 * elements = ωBlockProject(s, [X]). The scale is the maximum itself, not an OCP-MX power of two.
 */
export function convertToBlockMaxAbsFinite(
  x: ArrayLike<number>,
  fx: FormatLike,
  fs: FormatLike,
  fr: FormatLike,
  scaleProjection?: Omit<Projection, "random"> & { random?: number },
  projection?: BlockProjection,
): ScaledBlock {
  const fxf = resolveFormat(fx, "fx");
  const fsf = resolveFormat(fs, "fs");
  const codes = requireCodes(x, fxf, "x");
  const { random: rs, ...rest } = scaleProjection ?? {};
  const rhoS = resolveProjection(fsf, rest, "scaleProjection", "P3109");
  if (isStochastic(rhoS.rounding) !== (rs !== undefined)) {
    throw new ProjectionError("scaleProjection.random", `got ${describe(rs)}; allowed: one R (0 ≤ R < 2^N) exactly when the scale rounding is stochastic`);
  }
  const r = resolve(fr, projection, codes.length, "projection");
  const X = codes.map((c) => operandValue(c, fxf));
  let S: Exact = NAN;
  for (const v of X) S = MaximumFinite([S, v.kind === "finite" ? { ...v, sign: 1 } : v.kind === "infinity" ? { kind: "infinity", sign: 1 } : v], 0);
  const scale = project(S, fsf, rhoS, rs ?? 0);
  return { scale, elements: projectBlock(scale, fsf, X, r) };
}

/** BlockReduceAdd: ωProject_{fr,ρ}(reduce(ωAdd, [0, Z_1 … Z_B])), the exact sum rounded once. */
export function blockReduceAdd(
  block: ScaledBlock,
  fs: FormatLike,
  fx: FormatLike,
  fr: FormatLike,
  projection?: Omit<Projection, "stochasticBits"> & { stochasticBits?: number },
): number {
  return reduceBlock(block, fs, fx, fr, projection, Add, ZERO);
}

/** BlockReduceMultiply: ωProject_{fr,ρ}(reduce(ωMultiply, [1, Z_1 … Z_B])), the exact product rounded once. */
export function blockReduceMultiply(block: ScaledBlock, fs: FormatLike, fx: FormatLike, fr: FormatLike, projection?: Projection): number {
  return reduceBlock(block, fs, fx, fr, projection, Multiply, finite(1, 1n, 0));
}

function scalarProjection(fr: FormatLike, projection: Projection | undefined): { f: Format; rho: ResolvedProjection; R: number } {
  const f = resolveFormat(fr, "fr");
  const { random, ...rest } = projection ?? {};
  const rho = resolveProjection(f, rest, "projection", "P3109");
  if (isStochastic(rho.rounding) !== (random !== undefined)) {
    throw new ProjectionError("projection.random", `got ${describe(random)}; allowed: one R (0 ≤ R < 2^N) exactly when the rounding is stochastic`);
  }
  if (random !== undefined) requireInteger("projection.random", random, 0, 2 ** rho.stochasticBits - 1);
  return { f, rho, R: random ?? 0 };
}

function reduceBlock(
  block: ScaledBlock,
  fs: FormatLike,
  fx: FormatLike,
  fr: FormatLike,
  projection: Projection | undefined,
  op: typeof Add,
  start: Exact,
): number {
  const fsf = resolveFormat(fs, "fs");
  const fxf = resolveFormat(fx, "fx");
  const b = requireBlock(block, fsf, fxf, "block");
  const { f, rho, R } = scalarProjection(fr, projection);
  let acc = start;
  for (const Z of decodeBlock(b, fsf, fxf)) acc = op([acc, Z], 0);
  return project(acc, f, rho, R);
}

/**
 * BlockDotProduct_{B,fsx,fx,fsy,fy,fr,ρ}((sx,[x]), (sy,[y])) = ωProject_{fr,ρ}(reduce(ωAdd, [0, ωMultiply(X_i, Y_i) …]))
 * with X, Y block-decoded: the exact dot product, one rounding.
 */
export function blockDotProduct(
  x: ScaledBlock,
  fsx: FormatLike,
  fx: FormatLike,
  y: ScaledBlock,
  fsy: FormatLike,
  fy: FormatLike,
  fr: FormatLike,
  projection?: Projection,
): number {
  const bx = requireBlock(x, resolveFormat(fsx, "fsx"), resolveFormat(fx, "fx"), "x");
  const by = requireBlock(y, resolveFormat(fsy, "fsy"), resolveFormat(fy, "fy"), "y");
  if (bx.elements.length !== by.elements.length) {
    throw new CodeRangeError("y.elements", `has ${by.elements.length} codes; allowed: the block size of x (${bx.elements.length})`);
  }
  const { f, rho, R } = scalarProjection(fr, projection);
  const X = decodeBlock(bx, resolveFormat(fsx), resolveFormat(fx));
  const Y = decodeBlock(by, resolveFormat(fsy), resolveFormat(fy));
  let acc: Exact = ZERO;
  for (let i = 0; i < X.length; i++) acc = Add([acc, Multiply([X[i]!, Y[i]!], 0)], 0);
  return project(acc, f, rho, R);
}

/** Operations valid as an elementwise Block<Op> (§5.4). */
export const BLOCK_OPS = [
  "Convert",
  "Abs",
  "Negate",
  "Sqrt",
  "RSqrt",
  "Recip",
  "Exp",
  "Log",
  "ExpMinusOne",
  "LogOnePlus",
  "Exp2",
  "Log2",
  "Sin",
  "Cos",
  "Tan",
  "ArcSin",
  "ArcCos",
  "ArcTan",
  "Sinh",
  "Cosh",
  "Tanh",
  "ArcSinh",
  "ArcCosh",
  "ArcTanh",
  "SinPi",
  "CosPi",
  "TanPi",
  "ArcSinPi",
  "ArcCosPi",
  "ArcTanPi",
  "Softplus",
  "CopySign",
  "Add",
  "Subtract",
  "Multiply",
  "Divide",
  "Hypot",
  "ArcTan2",
  "ArcTan2Pi",
  ...MIN_MAX_OPS,
  "FMA",
  "FAA",
  "Clamp",
] as const;
export type BlockOpName = (typeof BLOCK_OPS)[number];

/** One operand of an elementwise block operation: the block and its scale and element formats. */
export interface BlockOperand {
  readonly block: ScaledBlock;
  readonly fs: FormatLike;
  readonly fx: FormatLike;
}

/**
 * Block<Op> (§5.4): decode every operand block, Z_i = ωOp(X_1i … X_ni), elements = ωBlockProject(sr, [Z]); the
 * result scale sr (a code of fs) is supplied by the caller and copied to the result.
 */
export function blockOp(
  op: BlockOpName,
  operands: readonly BlockOperand[],
  sr: number,
  fs: FormatLike,
  fr: FormatLike,
  projection?: BlockProjection,
): ScaledBlock {
  if (!(BLOCK_OPS as readonly string[]).includes(op)) throw new ArgumentTypeError("op", `got ${describe(op)}; allowed: ${BLOCK_OPS.join(", ")}`);
  const info = operationInfo(op);
  if (!info?.omega) throw new ArgumentTypeError("op", `${op} has no ω-function in this build (src/ops/registry.ts)`);
  if (!Array.isArray(operands) || operands.length !== info.arity) {
    throw new CodeRangeError("operands", `got ${describe(operands)}; allowed: ${info.arity} operand block(s) for ${op}`);
  }
  const decoded = operands.map((o, j) => {
    if (o === null || typeof o !== "object") throw new ArgumentTypeError(`operands[${j}]`, `got ${describe(o)}; allowed: { block, fs, fx }`);
    const s = resolveFormat(o.fs, `operands[${j}].fs`);
    const x = resolveFormat(o.fx, `operands[${j}].fx`);
    return decodeBlock(requireBlock(o.block, s, x, `operands[${j}].block`), s, x);
  });
  const B = decoded[0]!.length;
  decoded.forEach((d, j) => {
    if (d.length !== B) throw new CodeRangeError(`operands[${j}].block.elements`, `has ${d.length} codes; allowed: the block size of operands[0] (${B})`);
  });
  const fsf = resolveFormat(fs, "fs");
  requireInteger("sr", sr, 0, fsf.codeCount - 1);
  const r = resolve(fr, projection, B, "projection");
  // Z_i is divided by S_r before its one rounding: each ω-result is requested at the precision divideOnce needs.
  const Z = Array.from(
    { length: B },
    (_, i) => (q: number) =>
      info.omega!(
        decoded.map((d) => d[i]!),
        q,
      ),
  );
  return { scale: sr, elements: projectBlock(sr, fsf, Z, r) };
}
