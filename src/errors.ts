// The error contract of the public API: every rejection names the argument, the value and what is allowed.

/** Unknown format name, or format parameters outside their allowed ranges. */
export class FormatError extends Error {
  override readonly name = "FormatError";
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(`${argument}: ${message}`);
  }
}

/** A projection option (rounding, saturation, stochastic bits, random value) that is not allowed. */
export class ProjectionError extends Error {
  override readonly name = "ProjectionError";
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(`${argument}: ${message}`);
  }
}

/** A code, index, length or value outside the range the operation accepts. */
export class CodeRangeError extends RangeError {
  override readonly name = "CodeRangeError";
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(`${argument}: ${message}`);
  }
}

/** An argument of the wrong type (e.g. a Uint16Array where codes of an 8-bit format belong in a Uint8Array). */
export class ArgumentTypeError extends TypeError {
  override readonly name = "ArgumentTypeError";
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(`${argument}: ${message}`);
  }
}

export type MiniFloatError = FormatError | ProjectionError | CodeRangeError | ArgumentTypeError;

/** Describes a value for an error message without dumping large objects. */
export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number" || typeof value === "boolean" || value === undefined || value === null) {
    return String(value);
  }
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${(value as { length?: number }).length ?? value.byteLength})`;
  if (Array.isArray(value)) return `Array(${value.length})`;
  return Object.prototype.toString.call(value);
}

/** Throws CodeRangeError unless `value` is an integer in [lo, hi]. */
export function requireInteger(argument: string, value: unknown, lo: number, hi: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < lo || value > hi) {
    throw new CodeRangeError(argument, `got ${describe(value)}; allowed: an integer in [${lo}, ${hi}]`);
  }
  return value;
}
