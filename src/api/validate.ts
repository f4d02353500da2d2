// Argument checks shared by the bulk calls (single-thread, packed, pool): input, output and code arrays.
import { ArgumentTypeError, CodeRangeError, describe } from "../errors.js";
import { decodeTable32 } from "../exact/tables.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { requireUnfreed } from "../wasm/memory.js";

export type CodeArray = Uint8Array | Uint16Array | Uint32Array;

/** The code array type of a format: one byte per code up to 8 bits, uint16 up to 16, uint32 up to 32. */
export function codeArrayType(f: Format): typeof Uint8Array | typeof Uint16Array | typeof Uint32Array {
  if (f.K <= 8) return Uint8Array;
  if (f.K <= 16) return Uint16Array;
  if (f.K <= 32) return Uint32Array;
  throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; code arrays hold formats of up to 32 bits (use Float64Array for binary64)`);
}

/** A native Float16Array (Chrome 135, Firefox 129, Safari 18.2, Node 24), typed structurally: Node 20's lib has none. */
export interface Float16ArrayLike extends ArrayBufferView {
  readonly length: number;
  [index: number]: number;
}

/** The runtime's Float16Array, where it has one (Chrome 135, Firefox 129, Safari 18.2, Node 24; not Node 20). */
export function float16ArrayType(): { new (n: number): Float16ArrayLike; readonly name: string } | undefined {
  return (globalThis as { Float16Array?: { new (n: number): Float16ArrayLike; readonly name: string } }).Float16Array;
}

/**
 * The values to quantize as float32/float64: the array itself, or 16-bit input (a Float16Array, or a Uint16Array of
 * binary16 or bfloat16 bits with `from`) widened to float32, which holds every such value exactly.
 */
export function requireInput(src: unknown, from?: unknown): Float32Array | Float64Array {
  const F16 = float16ArrayType();
  if (from !== undefined && from !== "float16" && from !== "bfloat16") {
    throw new ArgumentTypeError("options.from", `got ${describe(from)}; allowed: float16 or bfloat16 (for 16-bit input bits)`);
  }
  if (F16 && src instanceof F16 && from !== "bfloat16") {
    const view = requireAttached(src, "src");
    return widen(new Uint16Array(view.buffer, view.byteOffset, view.length), format("binary16"));
  }
  if (from !== undefined) {
    if (!(src instanceof Uint16Array)) throw new ArgumentTypeError("src", `got ${describe(src)}; allowed: a Uint16Array of ${from} bits (options.from)`);
    return widen(requireAttached(src, "src"), format(from === "float16" ? "binary16" : "bfloat16"));
  }
  if (!(src instanceof Float32Array || src instanceof Float64Array)) {
    throw new ArgumentTypeError("src", `got ${describe(src)}; allowed: a Float32Array or Float64Array, a Float16Array, or a Uint16Array with options.from`);
  }
  return requireAttached(src, "src");
}

/** 16-bit bits as float32: a table gather (decodeTable32 is exact for binary16 and bfloat16, NaN payloads kept). */
function widen(bits: Uint16Array, f: Format): Float32Array {
  const table = decodeTable32(f);
  const out = new Float32Array(bits.length);
  const u32 = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) u32[i] = table[bits[i]!]!;
  return out;
}

/**
 * A detached array reads as empty, and a freed Wasm view may hold another allocation's data: rejecting both keeps a
 * transferred buffer or a freed handle from giving a silently wrong result.
 */
export function requireAttached<T extends ArrayBufferView>(a: T, argument: string): T {
  requireUnfreed(a, argument);
  // SharedArrayBuffer is not defined in pages that are not cross-origin isolated.
  if (a.byteLength > 0 || (typeof SharedArrayBuffer !== "undefined" && a.buffer instanceof SharedArrayBuffer) || a.buffer.byteLength > 0) return a;
  try {
    new Uint8Array(a.buffer);
  } catch {
    throw new ArgumentTypeError(argument, `is a ${a.constructor.name} whose ArrayBuffer was detached (transferred); allowed: an array with a live buffer`);
  }
  return a;
}

/** Checks every code of `codes` below f's code count (nothing to check when the array's width holds only codes). */
export function requireCodesIn(codes: CodeArray, f: Format, argument: string): void {
  if (f.codeCount >= 2 ** (8 * codes.BYTES_PER_ELEMENT)) return;
  for (let i = 0; i < codes.length; i++) {
    if (codes[i]! >= f.codeCount) throw new CodeRangeError(`${argument}[${i}]`, `is ${codes[i]}; allowed: a ${f.name} code in [0, ${f.codeCount - 1}]`);
  }
}

/**
 * Refuses an output sharing bytes with an input (each named as the caller's argument): every path would read bytes it
 * has already written over, and the pool's parts would race.
 */
export function requireSeparate(
  out: ArrayBufferView | undefined,
  inputs: ReadonlyArray<readonly [ArrayBufferView | undefined, string]>,
  outName = "options.out",
): void {
  for (const [input, name] of inputs) {
    if (!out || !input || out.buffer !== input.buffer || out.byteLength === 0 || input.byteLength === 0) continue;
    if (out.byteOffset < input.byteOffset + input.byteLength && input.byteOffset < out.byteOffset + out.byteLength) {
      throw new ArgumentTypeError(outName, `overlaps ${name}; allowed: a separate array`);
    }
  }
}

/** Checks a caller's output array (undefined stays undefined: the caller allocates). */
export function requireOutputArray<T extends CodeArray | Float32Array>(
  out: unknown,
  type: { readonly name: string; prototype: T },
  n: number,
  argument = "options.out",
): T | undefined {
  if (out === undefined) return undefined;
  if (!(out instanceof (type as unknown as { new (): T })))
    throw new ArgumentTypeError(argument, `got ${describe(out)}; allowed: a ${type.name} of length ${n}`);
  requireAttached(out, argument);
  if (out.length !== n) throw new CodeRangeError(argument, `has length ${out.length}; allowed: ${n} (the input length)`);
  return out;
}

/** The caller's output array, checked, or a new one of n elements. */
export function requireOutput<T extends CodeArray | Float32Array>(
  out: unknown,
  type: { new (n: number): T; readonly name: string },
  n: number,
  argument = "options.out",
): T {
  return requireOutputArray(out, type, n, argument) ?? new type(n);
}

export function requireCodes(codes: unknown, f: Format, argument = "codes"): CodeArray {
  const type = codeArrayType(f);
  if (!(codes instanceof type)) throw new ArgumentTypeError(argument, `got ${describe(codes)}; allowed: a ${type.name} of ${f.name} codes`);
  return requireAttached(codes, argument);
}

/** Options of 0.1 that would now be ignored silently: a typed error says what replaced them (CHANGELOG 0.2.0). */
/** The options of calls whose only option is the output array. */
export const OUT_KEYS = ["out"] as const;

export function rejectRemoved(options: object): void {
  if ("block" in options) throw new ArgumentTypeError("options.block", "was renamed; allowed: options.blockSize");
  if ("wasm" in options) throw new ArgumentTypeError("options.wasm", "was removed; allowed: useKernels(false) to run the TypeScript reference");
}
