// Scalar decode and encode: the exact core behind the public API contract.
import { ArgumentTypeError, CodeRangeError, describe, requireInteger } from "../errors.js";
import { decodeExact as decodeExactCore } from "../exact/decode.js";
import { project } from "../exact/cast.js";
import { type Projection, requireRandom, resolveProjection } from "../exact/projection.js";
import { type Exact, fromNumber, toNumberExact } from "../exact/value.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { checkOptions } from "../options.js";

/** A format or its name. */
export type FormatLike = Format | string;

export function resolveFormat(fmt: FormatLike, argument = "fmt"): Format {
  if (typeof fmt !== "string" && !(fmt && typeof fmt === "object" && "K" in fmt)) {
    throw new ArgumentTypeError(argument, `got ${describe(fmt)}; allowed: a format name or a Format from format()`);
  }
  return format(fmt);
}

/** Codes are integers in [0, 2^K) for formats of up to 32 bits. */
export function requireCode(f: Format, code: unknown, argument = "code"): number {
  if (f.K > 32) throw new CodeRangeError("fmt", `${f.name} codes do not fit a number; use fromFloat64Bits / float64 values`);
  return requireInteger(argument, code, 0, f.codeCount - 1);
}

/** The exact datum of a code (P3109 §4.7.2): value = sign · significand · 2^exponent. */
export function decodeExact(code: number, fmt: FormatLike): Exact {
  const f = resolveFormat(fmt);
  return decodeExactCore(requireCode(f, code), f);
}

/** The exact value of a code as a float64; throws CodeRangeError when it is not exactly representable. */
export function decode(code: number, fmt: FormatLike): number {
  const f = resolveFormat(fmt);
  const x = decodeExactCore(requireCode(f, code), f);
  const v = toNumberExact(x);
  if (v === undefined) {
    throw new CodeRangeError("code", `${code} of ${f.name} is ${describeExact(x)}, which a float64 cannot hold exactly; use decodeExact`);
  }
  return v;
}

/** Projects a float64 value into the format (P3109 §4.7.3) and returns the code. */
export function encode(value: number, fmt: FormatLike, options?: Projection): number {
  const f = resolveFormat(fmt);
  if (typeof value !== "number") throw new ArgumentTypeError("value", `got ${describe(value)}; allowed: a number`);
  return encodeExact(fromNumber(value), f, options);
}

/** Projects an exact value (e.g. beyond float64's range) into the format and returns the code. */
/** The options of the scalar projections. */
const PROJECTION_KEYS = ["rounding", "saturation", "stochasticBits", "random"] as const satisfies readonly (keyof Projection)[];

export function encodeExact(value: Exact, fmt: FormatLike, options?: Projection): number {
  const f = resolveFormat(fmt);
  requireExact(value);
  requireCode(f, 0);
  const rho = resolveProjection(f, checkOptions(options, PROJECTION_KEYS));
  return project(value, f, rho, requireRandom(rho, options?.random));
}

/** Throws ArgumentTypeError unless `value` is an Exact (e.g. from decodeExact): NaN, ±Inf or ±significand·2^exponent. */
function requireExact(value: unknown): void {
  const x = value as Partial<Record<"kind" | "sign" | "significand" | "exponent", unknown>> | null;
  const ok =
    typeof x === "object" &&
    x !== null &&
    (x.sign === 1 || x.sign === -1) &&
    (x.kind === "nan" ||
      x.kind === "infinity" ||
      (x.kind === "finite" && typeof x.significand === "bigint" && x.significand >= 0n && Number.isSafeInteger(x.exponent)));
  if (!ok)
    throw new ArgumentTypeError(
      "value",
      `got ${describe(value)}; allowed: an Exact { kind: "finite", sign: 1 | -1, significand: bigint ≥ 0, exponent: integer } or { kind: "nan" | "infinity", sign }`,
    );
}

/**
 * ωProject (P3109 §4.7.3) of an exact real: the result is a P3109 datum also in external formats (+0 for every
 * zero, the canonical NaN), unlike `encodeExact`, which keeps IEEE signs of zero and NaN in formats that have them.
 */
export function omegaProject(value: Exact, fmt: FormatLike, options?: Projection): number {
  const f = resolveFormat(fmt);
  requireCode(f, 0);
  const rho = resolveProjection(f, checkOptions(options, PROJECTION_KEYS), "options", "P3109");
  return project(value, f, rho, requireRandom(rho, options?.random));
}

export function describeExact(x: Exact): string {
  if (x.kind === "nan") return "NaN";
  if (x.kind === "infinity") return x.sign > 0 ? "+Inf" : "-Inf";
  return `${x.sign < 0 ? "-" : ""}0x${x.significand.toString(16)}p${x.exponent}`;
}
