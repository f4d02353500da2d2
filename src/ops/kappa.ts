// κ-approximation (P3109 §4.4, Annex D): the number of representable values between the defined result â(x) and an
// approximate result ã(x), maximised over all operands — measured exhaustively — and two published approximate
// operations, ExpFast and SqrtFast, that are named differently from the exact ones as §4.4 requires.
import { ArgumentTypeError, CodeRangeError, FormatError, describe } from "../errors.js";
import { project } from "../exact/cast.js";
import { operandValue } from "../exact/decode.js";
import { type ResolvedProjection, isStochastic } from "../exact/projection.js";
import { type Exact, fromNumber, toNumberExact } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { type Code, type OperationSpec, type Specialization, specialize } from "./specialize.js";
import { checkOptions } from "../options.js";

/** An approximate operation with the same operand and result formats as the exact specialization it approximates. */
export type ApproximateOp = (...codes: number[]) => number;

export interface KappaPiece {
  /** Interval notation of the Kappas.yaml files, e.g. "[ -Inf, 0 )". */
  readonly label: string;
  /** Whether the operands (ω-values) belong to this piece; pieces should cover the operand space disjointly. */
  readonly contains: (operands: Exact[]) => boolean;
}

export interface KappaResult {
  /** NaN (NaN-ness differs somewhere), Infinity (MatchOnInfinity fails somewhere) or the maximal count. */
  readonly kappa: number;
  /** Operands where the maximum (or the first NaN / infinity mismatch) occurs. */
  readonly witness?: { operands: number[]; exact: number; approximate: number };
  /** κ per piece when pieces were given. */
  readonly pieces?: { label: string; kappa: number }[];
  /** Number of operand tuples examined. */
  readonly count: number;
}

/** Position of a finite code in the ascending order of the finite values (sign–magnitude codes; −0 and +0 coincide). */
function rank(code: number, f: Format): number {
  if (!f.signed) return code;
  return code >= f.signBit ? -(code - f.signBit) : code;
}

type Kind = "nan" | "finite" | "+inf" | "-inf";
function kindOf(code: number, f: Format): Kind {
  if (f.isNaNCode(code)) return "nan";
  if (f.isInfCode(code)) return f.isNegativeCode(code) ? "-inf" : "+inf";
  return "finite";
}

/**
 * κ of `approx` against the exact specialization, over every operand code tuple (at most 2^24 of them):
 * NaN if IsNaN(â) ≠ IsNaN(ã) anywhere; else ∞ if MatchOnInfinity fails anywhere; else
 * max #(((â, ã] ∪ [ã, â)) ∩ V) over the operands with a finite defined result — representable values between the
 * two results, counting ã and not â (κ = 0: exact; κ = 1: a neighbouring value).
 */
export function measureKappa(approx: ApproximateOp, exact: Specialization, options: { pieces?: readonly KappaPiece[] } = {}): KappaResult {
  checkOptions(options, ["pieces"]);
  const fr = exact.result;
  if (!fr || exact.info.kind !== "numeric") throw new FormatError("exact", `${exact.signature} has no floating-point result; κ applies to numeric operations`);
  if (fr.K > 32) throw new FormatError("exact.result", `${fr.name}: κ is measured for result formats of up to 32 bits`);
  if (exact.projection && isStochastic(exact.projection.rounding)) throw new FormatError("exact.projection", "κ is defined for deterministic projections");
  const counts = exact.operands.map((f) => f.codeCount);
  const total = counts.reduce((a, b) => a * b, 1);
  if (total > 2 ** 24) throw new CodeRangeError("exact.operands", `${total} operand tuples; allowed: at most 2^24 for an exhaustive κ`);
  const pieces = options.pieces ?? [];
  const pieceKappa = pieces.map(() => 0);
  let nanMismatch: KappaResult["witness"];
  let infMismatch: KappaResult["witness"];
  let best = 0;
  let bestWitness: KappaResult["witness"];
  const codes = new Array<number>(counts.length).fill(0);
  for (let index = 0; index < total; index++) {
    let rest = index;
    for (let k = counts.length - 1; k >= 0; k--) {
      codes[k] = rest % counts[k]!;
      rest = Math.floor(rest / counts[k]!);
    }
    const a = exact(...codes) as number;
    const b = approx(...codes);
    const ka = kindOf(a, fr);
    const kb = kindOf(b, fr);
    const witness = { operands: [...codes], exact: a, approximate: b };
    if ((ka === "nan") !== (kb === "nan")) {
      nanMismatch ??= witness;
      continue;
    }
    if (ka !== kb) {
      infMismatch ??= witness;
      continue;
    }
    if (ka !== "finite") continue;
    const between = Math.abs(rank(a, fr) - rank(b, fr));
    if (between > best) {
      best = between;
      bestWitness = witness;
    }
    if (pieces.length > 0) {
      const values = codes.map((c, k) => operandValue(c, exact.operands[k]!));
      pieces.forEach((p, i) => {
        if (p.contains(values)) pieceKappa[i] = Math.max(pieceKappa[i]!, between);
      });
    }
  }
  const kappa = nanMismatch ? NaN : infMismatch ? Infinity : best;
  const witness = nanMismatch ?? infMismatch ?? bestWitness;
  return {
    kappa,
    count: total,
    ...(witness && { witness }),
    ...(pieces.length > 0 && { pieces: pieces.map((p, i) => ({ label: p.label, kappa: pieceKappa[i]! })) }),
  };
}

/** An approximate specialization: callable on codes, named `<Name><fx, fr, ρ>`, with the exact operation it approximates. */
export interface ApproximateSpecialization extends ApproximateOp {
  readonly name: string;
  readonly signature: string;
  readonly approximates: string;
  readonly operands: readonly Format[];
  readonly result: Format;
  readonly projection: ResolvedProjection;
  /** Elementwise over a Uint8Array of operand codes, via a 256-entry table. */
  map(codes: Uint8Array, options?: { out?: Uint8Array | Uint16Array | Uint32Array }): Uint8Array | Uint16Array | Uint32Array;
}

/**
 * ExpFast: e^x in float64 by range reduction (x = k·ln 2 + r, |r| ≤ ln2/2) and the degree-4 Taylor polynomial of e^r,
 * rounded once into the result format. Relative error ≲ 3·10⁻⁴ before the final rounding, so κ ≤ 1 near ties.
 */
function expFast(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  // A finite x has a finite e^x: beyond float64's range use its largest value, so directed roundings still saturate.
  if (x > 709) return Number.MAX_VALUE;
  if (x < -1100) return 0;
  const k = Math.round(x * Math.LOG2E);
  const r = x - k * Math.LN2;
  const p = 1 + r * (1 + r * (1 / 2 + r * (1 / 6 + r / 24)));
  return Math.min(Number.MAX_VALUE, p * 2 ** k); // k ≤ 1023 here; 2^k underflows to 0 below −1074
}

/**
 * SqrtFast: the classic bit-level estimate (halve the float64 exponent field and the fraction together) refined by
 * one Newton step, rounded once. Relative error ≲ 2·10⁻³ before the final rounding.
 */
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
function sqrtFast(x: number): number {
  if (Number.isNaN(x) || x < 0) return NaN;
  if (x === 0 || x === Infinity) return x;
  f64[0] = x;
  u64[0] = (u64[0]! >> 1n) + 0x1ff8000000000000n;
  const y = f64[0]!;
  return 0.5 * (y + x / y);
}

const APPROXIMATIONS: Record<string, { approximates: string; fn: (x: number) => number }> = {
  ExpFast: { approximates: "Exp", fn: expFast },
  SqrtFast: { approximates: "Sqrt", fn: sqrtFast },
};

export function approximationNames(): string[] {
  return Object.keys(APPROXIMATIONS);
}

/**
 * An approximate operation ExpFast / SqrtFast for an operand format of ≤ 8 bits (every such value is a float64)
 * and a result format of ≤ 32 bits; the projection is as for `specialize` (deterministic roundings only).
 */
export function approximate(name: string, spec: OperationSpec): ApproximateSpecialization {
  const a = APPROXIMATIONS[name];
  if (!a) throw new FormatError("name", `unknown approximate operation ${JSON.stringify(name)}; allowed: ${approximationNames().join(", ")}`);
  const exact = specialize(a.approximates, spec); // validates formats and projection the same way
  const fx = exact.operands[0]!;
  const fr = exact.result!;
  const rho = exact.projection!;
  if (fx.K > 8) throw new FormatError("spec.operands[0]", `got ${fx.name}; allowed: formats of at most 8 bits for ${name}`);
  if (fr.K > 32) throw new FormatError("spec.result", `got ${fr.name}; allowed: formats of at most 32 bits for ${name}`);
  if (isStochastic(rho.rounding)) throw new FormatError("spec.rounding", `${name} supports deterministic roundings only`);
  const table = new (fr.K <= 8 ? Uint8Array : fr.K <= 16 ? Uint16Array : Uint32Array)(fx.codeCount);
  for (let c = 0; c < fx.codeCount; c++) {
    const x = operandValue(c, fx);
    const v = a.fn(toNumberExact(x)!);
    const r = project(Number.isNaN(v) ? { kind: "nan", sign: 1 } : fromNumber(v === 0 ? 0 : v), fr, rho);
    table[c] = r;
  }
  const call = ((code: number): number => {
    if (!Number.isInteger(code) || code < 0 || code >= fx.codeCount)
      throw new CodeRangeError("code", `got ${code}; allowed: a ${fx.name} code in [0, ${fx.codeCount - 1}]`);
    return table[code]!;
  }) as ApproximateSpecialization;
  const signature = `${name}<${fx.name}, ${fr.name}, (${rho.rounding}, ${rho.saturation})>`;
  Object.defineProperties(call, {
    name: { value: name },
    signature: { value: signature },
    approximates: { value: exact.signature },
    operands: { value: exact.operands },
    result: { value: fr },
    projection: { value: rho },
    map: {
      value: (codes: Uint8Array, options: { out?: Uint8Array | Uint16Array | Uint32Array } = {}) => {
        const out = options.out ?? new (table.constructor as typeof Uint8Array)(codes.length);
        for (let i = 0; i < codes.length; i++) {
          const c = codes[i]!;
          if (c >= fx.codeCount) throw new CodeRangeError(`codes[${i}]`, `is ${c}; allowed: a ${fx.name} code in [0, ${fx.codeCount - 1}]`);
          out[i] = table[c]!;
        }
        return out;
      },
    },
    toString: { value: () => signature },
  });
  return call;
}

/** κ of an approximate specialization against its exact operation under the same formats and projection. */
export function kappaOf(approx: ApproximateSpecialization, options: { pieces?: readonly KappaPiece[] } = {}): KappaResult {
  if (typeof approx !== "function" || !APPROXIMATIONS[(approx as { name?: string }).name ?? ""]) {
    throw new ArgumentTypeError(
      "approx",
      `got ${describe(approx)}; allowed: an approximate specialization from approximate() (${approximationNames().join(", ")})`,
    );
  }
  const exact = specialize(APPROXIMATIONS[approx.name]!.approximates, {
    operands: approx.operands,
    result: approx.result,
    rounding: approx.projection.rounding,
    saturation: approx.projection.saturation,
  });
  return measureKappa(approx, exact, options);
}

export type { Code };
