// Operation specializations Op<f1, …, fn, fr, ρ> (P3109 §4.1, §4.3): a validated, callable operation with fixed
// operand formats, result format and projection. Scalars go through the exact core (ωDecode → ω-function →
// ωProject); arrays of ≤ 8-bit codes go through tables built once per specialization from that same core.
import { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError, describe } from "../errors.js";
import { project, projectBig } from "../exact/cast.js";
import { operandValue } from "../exact/decode.js";
import { type ResolvedProjection, type Rounding, type Saturation, isStochastic, requireRandom, resolveProjection } from "../exact/projection.js";
import { exactValues } from "../exact/tables.js";
import type { Exact } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { type RandomOptions, resolveRandom } from "../random.js";
import { checkOptions } from "../options.js";
import { CLASS_NAMES, Class, type ClassName } from "./comparison.js";
import { applyTableWasm } from "./lut-kernel.js";
import { NextGreaterThan, NextLessThan } from "./next.js";
import { type QueryResult, RoundOf, SatOf, formatQuery } from "./queries.js";
import { type OpInfo, operationInfo, operationNames } from "./registry.js";
import { stickyPrecision } from "./sticky.js";
import { requireAttached, requireCodesIn } from "../api/validate.js";

/** A code: a number for formats of up to 32 bits; a bigint (the IEEE bit pattern) for binary64. */
export type Code = number | bigint;
export type FormatRef = Format | string;

export interface OperationSpec {
  /** Operand formats in operand order (P3109 formats and binary16, bfloat16, binary32, binary64). */
  operands?: readonly FormatRef[];
  /** Result format of numeric operations. */
  result?: FormatRef;
  /** Projection ρ of numeric operations; defaults (NearestTiesToEven, SatNone). */
  rounding?: Rounding;
  saturation?: Saturation;
  /** N of the stochastic roundings (1 ≤ N ≤ 32). */
  stochasticBits?: number;
}

/** Array of codes: Uint8Array (≤ 8 bits), Uint16Array (≤ 16), Uint32Array (≤ 32), BigUint64Array or Float64Array (binary64). */
export type CodeArrayLike = Uint8Array | Uint16Array | Uint32Array | BigUint64Array | Float64Array;

/** map's options: the output array, and for stochastic roundings the random bits as quantize takes them. */
export interface MapOptions extends RandomOptions {
  /** Output array (see `outputType`); allocated when omitted. */
  out?: CodeArrayLike;
}

const SPEC_KEYS = ["operands", "result", "rounding", "saturation", "stochasticBits"] as const satisfies readonly (keyof OperationSpec)[];
const MAP_KEYS = ["out", "random", "seed", "seedIndex"] as const satisfies readonly (keyof MapOptions)[];
/** What map validates random bits against when the operation takes none. */
const NO_RANDOM = { rounding: "NearestTiesToEven" } as ResolvedProjection;

export type Result = Code | boolean | ClassName | QueryResult | Rounding | Saturation;

export interface Specialization {
  /** Applies the operation to operand codes; a stochastic rounding takes `{ random: R }` as a last argument. */
  (...args: (Code | { random?: number })[]): Result;
  readonly operation: string;
  readonly info: OpInfo;
  readonly operands: readonly Format[];
  /** Result format (numeric operations and NextGreaterThan/NextLessThan). */
  readonly result: Format | undefined;
  readonly projection: ResolvedProjection | undefined;
  /** Report-style name, e.g. "Add<Binary8p3se, Binary8p3se, Binary8p4se, (NearestTiesToEven, SatNone)>". */
  readonly signature: string;
  /** The ω-result before projection (numeric operations): the exact real or its round-to-odd value. */
  omega(...codes: Code[]): Exact;
  /**
   * Elementwise over code arrays (one per operand, equal lengths), with an optional options object last.
   * Results: codes of the result format (numeric, Next*), 0/1 bytes (predicates) or CLASS_NAMES indices (Class).
   */
  map(...args: (CodeArrayLike | MapOptions)[]): CodeArrayLike;
}

const EXTERNAL = new Set(["binary16", "bfloat16", "binary32", "binary64"]);

/** P3109 formats and the four external formats of §4.8 are the formats P3109 operations accept. */
export function requireOperationFormat(fmt: unknown, argument: string): Format {
  if (typeof fmt !== "string" && !(fmt && typeof fmt === "object" && "K" in fmt)) {
    throw new ArgumentTypeError(argument, `got ${describe(fmt)}; allowed: a format name or a Format from format()`);
  }
  const f = format(fmt as FormatRef);
  if (f.family !== "P3109" && !(f.family === "IEEE" && EXTERNAL.has(f.name))) {
    throw new FormatError(
      argument,
      `got ${f.name}; allowed: a P3109 format Binary{K}p{P}{s|u}{e|f} or an external format binary16, bfloat16, binary32, binary64`,
    );
  }
  return f;
}

/** ω-value of a code, validated against its format. */
function operand(code: unknown, f: Format, argument: string): Exact {
  if (f.K === 64) {
    if (typeof code !== "bigint" || code < 0n || code >= 1n << 64n) {
      throw new CodeRangeError(argument, `got ${describe(code)}; allowed: a binary64 bit pattern as a bigint in [0, 2^64)`);
    }
    return operandValue(code, f);
  }
  if (typeof code !== "number" || !Number.isInteger(code) || code < 0 || code >= f.codeCount) {
    throw new CodeRangeError(argument, `got ${describe(code)}; allowed: a ${f.name} code, an integer in [0, ${f.codeCount - 1}]`);
  }
  return f.K <= 16 ? exactValues(f)[code]! : operandValue(code, f);
}

/** Typed array holding codes of f. */
export function codeArrayFor(f: Format): typeof Uint8Array | typeof Uint16Array | typeof Uint32Array | typeof BigUint64Array {
  if (f.K <= 8) return Uint8Array;
  if (f.K <= 16) return Uint16Array;
  if (f.K <= 32) return Uint32Array;
  return BigUint64Array;
}

function signatureOf(info: OpInfo, operands: readonly Format[], result: Format | undefined, rho: ResolvedProjection | undefined): string {
  const params = operands.map((f) => f.name);
  if (info.kind === "numeric" && result) params.push(result.name);
  if (rho) params.push(`(${rho.rounding}, ${rho.saturation}${rho.stochasticBits ? `, N=${rho.stochasticBits}` : ""})`);
  return `${info.name}<${params.join(", ")}>`;
}

/**
 * Op<operands…, result, ρ>: a callable specialization of a P3109 operation.
 *
 *     const add = specialize("Add", { operands: ["Binary8p3se", "Binary8p4se"], result: "binary16" });
 *     add(0x40, 0x48)            // → binary16 bit pattern of 3.0
 *     add.map(xs, ys)            // Uint16Array of binary16 codes
 *
 * Format queries take the queried format as the single operand format: specialize("MaxFiniteOf", { operands: [f] })().
 * RoundOf/SatOf take only the projection. Codes of binary64 are bigints (BigUint64Array or Float64Array in `map`).
 */
export function specialize(name: string, spec: OperationSpec = {}): Specialization {
  if (typeof name !== "string") throw new ArgumentTypeError("name", `got ${describe(name)}; allowed: an operation name (${operationNames().join(", ")})`);
  const info = operationInfo(name);
  if (!info) throw new ArgumentTypeError("name", `unknown operation ${JSON.stringify(name)}; allowed: ${operationNames().join(", ")}`);
  checkOptions(spec, SPEC_KEYS, "spec");
  const operandList = spec.operands ?? [];
  if (!Array.isArray(operandList)) throw new ArgumentTypeError("spec.operands", `got ${describe(operandList)}; allowed: an array of formats`);
  const wantOperands = info.kind === "query" ? 1 : info.arity;
  if (operandList.length !== wantOperands) {
    throw new CodeRangeError(
      "spec.operands",
      `has ${operandList.length} formats; allowed: ${wantOperands} for ${name}${info.kind === "query" ? " (the queried format)" : ""}`,
    );
  }
  const operands = operandList.map((f, i) => requireOperationFormat(f, `spec.operands[${i}]`));
  const projectionGiven = spec.rounding !== undefined || spec.saturation !== undefined || spec.stochasticBits !== undefined;

  let result: Format | undefined;
  let rho: ResolvedProjection | undefined;
  if (info.kind === "numeric") {
    if (spec.result === undefined)
      throw new FormatError("spec.result", `${name} needs a result format; allowed: a P3109 format or binary16, bfloat16, binary32, binary64`);
    result = requireOperationFormat(spec.result, "spec.result");
    rho = resolveProjection(
      result,
      {
        rounding: spec.rounding ?? "NearestTiesToEven",
        saturation: spec.saturation ?? "SatNone",
        ...(spec.stochasticBits !== undefined && { stochasticBits: spec.stochasticBits }),
      },
      "spec",
      "P3109",
    );
  } else if (info.kind === "projection") {
    rho = resolveProjection(
      format("binary32"),
      {
        rounding: spec.rounding ?? "NearestTiesToEven",
        saturation: spec.saturation ?? "SatNone",
        ...(spec.stochasticBits !== undefined && { stochasticBits: spec.stochasticBits }),
      },
      "spec",
    );
  } else {
    if (projectionGiven) throw new ProjectionError("spec", `${name} has no floating-point result; rounding, saturation and stochasticBits are not allowed`);
    if (info.kind === "next") {
      if (operands[0]!.family !== "P3109")
        throw new FormatError("spec.operands[0]", `got ${operands[0]!.name}; allowed: a P3109 format (${name} is code arithmetic in P3109 formats, §4.16)`);
      if (spec.result !== undefined && requireOperationFormat(spec.result, "spec.result") !== operands[0]) {
        throw new FormatError("spec.result", `${name} returns a code of its operand format ${operands[0]!.name}; omit result or pass that format`);
      }
      result = operands[0];
    } else if (spec.result !== undefined) {
      throw new FormatError("spec.result", `${name} has no floating-point result; omit result`);
    }
  }
  return build(info, operands, result, rho);
}

function build(info: OpInfo, operands: readonly Format[], result: Format | undefined, rho: ResolvedProjection | undefined): Specialization {
  const arity = info.kind === "query" || info.kind === "projection" ? 0 : info.arity;
  const stochastic = rho !== undefined && info.kind === "numeric" && isStochastic(rho.rounding);
  const precision = result && rho ? stickyPrecision(result, rho) : 0;
  const wide = result?.K === 64;

  const omegaOf = (values: Exact[]): Exact => info.omega!(values, precision);
  // rho has P3109 datum semantics: ωEncodeExternal(0) = +0 and one NaN also in external formats (§4.8).
  const encode = (x: Exact, R: number): Code => (wide ? projectBig(x, result!, rho!, R) : project(x, result!, rho!, R));

  /** The result of decoded operands (R only for stochastic roundings). */
  const evaluate = (values: Exact[], codes: ArrayLike<Code>, R: number): Result => {
    switch (info.kind) {
      case "numeric":
        return encode(omegaOf(values), R);
      case "predicate":
        return info.predicate!(values, operands);
      case "class":
        return Class(values[0]!, operands[0]!);
      case "next":
        return info.name === "NextGreaterThan" ? NextGreaterThan(codes[0] as number, operands[0]!) : NextLessThan(codes[0] as number, operands[0]!);
      case "query":
        return formatQuery(info.name as never, operands[0]!);
      case "projection":
        return info.name === "RoundOf" ? RoundOf(rho!) : SatOf(rho!);
    }
  };

  const call = (...args: (Code | { random?: number })[]): Result => {
    let R = 0;
    let codes = args as Code[];
    const last = args[args.length - 1];
    if (args.length === arity + 1 && typeof last === "object" && last !== null) {
      codes = args.slice(0, arity) as Code[];
      if (!rho || info.kind !== "numeric") throw new ProjectionError("options", `${info.name} takes no options`);
      R = requireRandom(rho, (last as { random?: number }).random);
    } else if (stochastic) {
      throw new ProjectionError("options.random", `${rho!.rounding} needs { random: R } after the operands, with 0 ≤ R < 2^N = ${2 ** rho!.stochasticBits}`);
    }
    if (codes.length !== arity) throw new CodeRangeError("operands", `got ${codes.length} codes; allowed: ${arity} for ${info.name}`);
    const values = codes.map((c, i) => operand(c, operands[i]!, `operand ${i}`));
    return evaluate(values, codes, R);
  };

  const spec = call as Specialization;
  const omega = (...codes: Code[]): Exact => {
    if (info.kind !== "numeric") throw new ArgumentTypeError("omega", `${info.name} has no ω-value; only numeric operations do`);
    if (codes.length !== arity) throw new CodeRangeError("operands", `got ${codes.length} codes; allowed: ${arity} for ${info.name}`);
    return omegaOf(codes.map((c, i) => operand(c, operands[i]!, `operand ${i}`)));
  };

  // Tables (built on first use): all operands of ≤ 8 bits and at most 65 536 operand combinations.
  const tableable = arity >= 1 && operands.every((f) => f.K <= 8) && operands.reduce((n, f) => n * f.codeCount, 1) <= 65536 && !wide;
  let resultTable: Uint8Array | Uint16Array | Uint32Array | undefined;
  let omegaTable: Exact[] | undefined;
  let thresholds: { lo: Uint32Array; hi: Uint32Array; t: Uint32Array } | undefined;
  const combinations = operands.reduce((n, f) => n * f.codeCount, 1);

  /** Calls fn(values, codes, index) for every operand combination, index = Σ code_i · stride_i (row-major). */
  const forEachCombination = (fn: (values: Exact[], codes: number[], index: number) => void): void => {
    const counts = operands.map((f) => f.codeCount);
    const decoded = operands.map((f) => exactValues(f));
    const total = counts.reduce((a, b) => a * b, 1);
    const codes = new Array<number>(arity).fill(0);
    for (let index = 0; index < total; index++) {
      let rest = index;
      for (let k = arity - 1; k >= 0; k--) {
        codes[k] = rest % counts[k]!;
        rest = Math.floor(rest / counts[k]!);
      }
      fn(
        codes.map((c, k) => decoded[k]![c]!),
        codes,
        index,
      );
    }
  };

  const tables = (): void => {
    if (resultTable || omegaTable) return;
    if (stochastic) {
      const t: Exact[] = [];
      forEachCombination((values, _codes, index) => (t[index] = omegaOf(values)));
      omegaTable = t;
      return;
    }
    const type = info.kind === "numeric" || info.kind === "next" ? (codeArrayFor(result!) as typeof Uint8Array) : Uint8Array;
    const t = new type(operands.reduce((n, f) => n * f.codeCount, 1));
    forEachCombination((values, codes, index) => {
      const r = evaluate(values, codes, 0);
      t[index] = typeof r === "boolean" ? (r ? 1 : 0) : info.kind === "class" ? CLASS_NAMES.indexOf(r as ClassName) : (r as number);
    });
    resultTable = t;
  };

  /**
   * Stochastic roundings round away from zero iff an expression increasing in R reaches 2^N (§4.7.4), so each table
   * entry is described by the codes for "down" and "up" and the smallest R giving "up", found by bisection with the
   * projection itself. Built only for arrays long enough to amortise the ≤ N + 1 projections per entry.
   */
  const thresholdTables = (): NonNullable<typeof thresholds> => {
    if (thresholds) return thresholds;
    tables();
    const maxR = 2 ** rho!.stochasticBits - 1;
    const lo = new Uint32Array(combinations);
    const hi = new Uint32Array(combinations);
    const t = new Uint32Array(combinations);
    omegaTable!.forEach((v, index) => {
      const down = encode(v, 0) as number;
      const up = encode(v, maxR) as number;
      lo[index] = down;
      hi[index] = up;
      if (down === up) return;
      let a = 0; // encode(v, a) = down
      let b = maxR; // encode(v, b) = up
      while (b - a > 1) {
        const mid = a + Math.floor((b - a) / 2);
        if (encode(v, mid) === up) b = mid;
        else a = mid;
      }
      t[index] = b;
    });
    return (thresholds = { lo, hi, t });
  };

  /** Each element's table index: Σ code_k · stride_k over every operand, row-major as forEachCombination numbers them. */
  const tableIndex = (arrays: readonly Uint8Array[]): ArrayLike<number> => {
    if (arity === 1) return arrays[0]!;
    const index = new Uint32Array(arrays[0]!.length);
    for (let k = 0; k < arity; k++) {
      const codes = arrays[k]!;
      const count = operands[k]!.codeCount;
      for (let i = 0; i < index.length; i++) index[i] = index[i]! * count + codes[i]!;
    }
    return index;
  };

  const map = (...args: (CodeArrayLike | MapOptions)[]): CodeArrayLike => {
    if (arity === 0) throw new ArgumentTypeError("map", `${info.name} has no operands to map over`);
    let options: MapOptions = {};
    const last = args[args.length - 1];
    if (args.length > 0 && !ArrayBuffer.isView(last)) {
      options = checkOptions(args.pop() as MapOptions, MAP_KEYS);
    }
    if (args.length !== arity) throw new CodeRangeError("arrays", `got ${args.length} code arrays; allowed: ${arity} for ${info.name}`);
    const arrays = (args as CodeArrayLike[]).map((a, i) => requireCodeArray(a, operands[i]!, `arrays[${i}]`));
    const n = arrays[0]!.length;
    arrays.forEach((a, i) => {
      if (a.length !== n) throw new CodeRangeError(`arrays[${i}]`, `has length ${a.length}; allowed: ${n} (the length of arrays[0])`);
    });
    const random = resolveRandom(stochastic ? rho! : NO_RANDOM, n, options)?.at;
    const out = outputArray(info, result, n, options.out);
    const outBig = out instanceof BigUint64Array ? out : undefined;
    const outNum = outBig ? undefined : (out as Uint8Array | Uint16Array | Uint32Array);

    if (tableable) {
      arrays.forEach((a, i) => requireCodesIn(a as Uint8Array, operands[i]!, `arrays[${i}]`));
      tables();
      const a = arrays[0] as Uint8Array;
      if (resultTable) {
        const t = resultTable;
        const b8 = arity === 2 ? (arrays[1] as Uint8Array) : undefined;
        if (
          arity <= 2 &&
          t instanceof Uint8Array &&
          outNum instanceof Uint8Array &&
          applyTableWasm(t, a, b8, arity === 2 ? operands[1]!.codeCount : 0, outNum)
        ) {
          return out;
        }
        const index = tableIndex(arrays as Uint8Array[]);
        for (let i = 0; i < n; i++) outNum![i] = t[index[i]!]!;
      } else if (n >= 4 * combinations || thresholds) {
        const { lo, hi, t } = thresholdTables();
        const index = tableIndex(arrays as Uint8Array[]);
        for (let i = 0; i < n; i++) {
          const k = index[i]!;
          outNum![i] = lo[k] !== hi[k] && random!(i) >= t[k]! ? hi[k]! : lo[k]!;
        }
      } else {
        const t = omegaTable!;
        const index = tableIndex(arrays as Uint8Array[]);
        for (let i = 0; i < n; i++) outNum![i] = encode(t[index[i]!]!, random!(i)) as number;
      }
      return out;
    }

    const values = new Array<Exact>(arity);
    const codes = new Array<Code>(arity);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < arity; k++) {
        const c = arrays[k]![i]!;
        codes[k] = c;
        values[k] = operand(c, operands[k]!, `arrays[${k}][${i}]`);
      }
      const r = evaluate(values, codes, random ? random(i) : 0);
      if (outBig) outBig[i] = r as bigint;
      else outNum![i] = typeof r === "boolean" ? (r ? 1 : 0) : info.kind === "class" ? CLASS_NAMES.indexOf(r as ClassName) : (r as number);
    }
    return out;
  };

  Object.defineProperties(spec, {
    operation: { value: info.name },
    info: { value: info },
    operands: { value: Object.freeze([...operands]) },
    result: { value: result },
    projection: { value: rho },
    signature: { value: signatureOf(info, operands, result, rho) },
    omega: { value: omega },
    map: { value: map },
    toString: { value: () => spec.signature },
  });
  return spec;
}

/** Validates a code array for format f; Float64Array (binary64 only) is viewed as its bit patterns. */
function requireCodeArray(a: unknown, f: Format, argument: string): CodeArrayLike {
  if (f.K === 64) {
    if (a instanceof BigUint64Array) return a;
    if (a instanceof Float64Array) return new BigUint64Array(a.buffer, a.byteOffset, a.length);
    throw new ArgumentTypeError(argument, `got ${describe(a)}; allowed: a BigUint64Array or Float64Array of binary64 values`);
  }
  const type = codeArrayFor(f);
  if (!(a instanceof type)) throw new ArgumentTypeError(argument, `got ${describe(a)}; allowed: a ${type.name} of ${f.name} codes`);
  return requireAttached(a, argument) as CodeArrayLike;
}

/** Codes of formats narrower than their array's element must still be < 2^K. */
function outputArray(info: OpInfo, result: Format | undefined, n: number, out: unknown): CodeArrayLike {
  const type = info.kind === "numeric" || info.kind === "next" ? codeArrayFor(result!) : Uint8Array;
  if (out === undefined) return new type(n);
  if (type === BigUint64Array && out instanceof Float64Array) {
    if (out.length !== n) throw new CodeRangeError("options.out", `has length ${out.length}; allowed: ${n}`);
    return new BigUint64Array(out.buffer, out.byteOffset, out.length);
  }
  if (!(out instanceof type)) throw new ArgumentTypeError("options.out", `got ${describe(out)}; allowed: a ${type.name} of length ${n}`);
  if ((out as CodeArrayLike).length !== n)
    throw new CodeRangeError("options.out", `has length ${(out as CodeArrayLike).length}; allowed: ${n} (the input length)`);
  return out as CodeArrayLike;
}
