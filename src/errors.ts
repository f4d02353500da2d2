// The error contract of the public API: every rejection names the argument, the value and what is allowed.

/**
 * The class every typed error is made from: `Base` keeps the standard kind (RangeError, TypeError) for instanceof,
 * `argument` names what was rejected, and the message starts with it.
 */
export function argumentError<N extends string>(Base: ErrorConstructor, name: N): ArgumentErrorClass<N> {
  return class extends Base {
    override readonly name: N = name;
    constructor(
      readonly argument: string,
      message: string,
    ) {
      super(`${argument}: ${message}`);
    }
  };
}

/** The constructor argumentError returns; named so that the declaration files do not spell out Error's statics. */
export interface ArgumentErrorClass<N extends string> {
  new (argument: string, message: string): Error & { readonly name: N; readonly argument: string };
}

/** Unknown format name, or format parameters outside their allowed ranges. */
export class FormatError extends argumentError(Error, "FormatError") {}

/** A projection option (rounding, saturation, stochastic bits, random value) that is not allowed. */
export class ProjectionError extends argumentError(Error, "ProjectionError") {}

/** A code, index, length or value outside the range the operation accepts. */
export class CodeRangeError extends argumentError(RangeError, "CodeRangeError") {}

/** An argument of the wrong type (e.g. a Uint16Array where codes of an 8-bit format belong in a Uint8Array). */
export class ArgumentTypeError extends argumentError(TypeError, "ArgumentTypeError") {}

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
