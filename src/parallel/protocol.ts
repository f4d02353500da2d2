// Messages between a Pool (pool.ts) and its workers (worker.ts), and the typed errors that cross between them.
import { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError } from "../errors.js";
import { CheckpointError } from "../checkpoint/errors.js";
import { IoError, SafetensorsError } from "../io/errors.js";
import { GgufError } from "../io/gguf/errors.js";
import type { ConversionFlags } from "../exact/cast.js";
import type { Projection } from "../exact/projection.js";
import type { FormatSpec } from "../format/model.js";
import type { KernelCall, WasmMemory, WasmModule } from "../wasm/abi.js";

/** Arrays a job reads and writes: views of SharedArrayBuffers (posting them shares the memory, nothing is copied). */
export type SharedView = Float32Array | Float64Array | Uint8Array | Uint16Array | Uint32Array;

interface JobBase {
  readonly id: number;
  /** Absolute index of the part's first element: seeded random bits and error indices count from the whole array. */
  readonly first: number;
  readonly format: FormatSpec;
  /** The caller's kernel switch (useKernels), applied by the worker before it runs the job. */
  readonly kernels: boolean;
}

/** Quantize src into out (one part of a larger array); `seed` keys R by absolute index, `random` is this part's R. */
export interface QuantizeJob extends JobBase {
  readonly op: "quantize";
  readonly src: Float32Array | Float64Array;
  readonly out: Uint8Array | Uint16Array | Uint32Array;
  readonly projection: Omit<Projection, "random">;
  readonly seed?: number;
  readonly random?: Uint8Array | Uint16Array | Uint32Array;
  readonly flags: boolean;
}

/** Check codes < 2^K (before any worker writes) or decode them into out. */
export interface DequantizeJob extends JobBase {
  readonly op: "check" | "dequantize";
  readonly codes: Uint8Array | Uint16Array | Uint32Array;
  readonly out?: Float32Array;
}

/**
 * Kernel calls on the pool's shared Wasm memory (raw pointer ABI of assembly/index.ts): the worker takes chunk numbers
 * from the i32 counter at byte address `counter` (Atomics.add) until they run out and calls `fn` with `calls[chunk]`.
 * The reply's value is the largest result of its calls.
 */
export interface WasmJob {
  readonly op: "wasm";
  readonly id: number;
  readonly first: number;
  readonly fn: KernelCall;
  readonly counter: number;
  readonly calls: ReadonlyArray<readonly number[]>;
}

/**
 * Batched dot products on a part (src/dot/index.ts): "check" validates the codes of `a` (named `argument`, indices
 * counted from `first`); "rows" is dotRows of `rows` row pairs; "matmul" is matmul of `rows` rows of a against the
 * n rows of b. Codes were checked before any part runs.
 */
export interface DotJob {
  readonly op: "dot";
  readonly id: number;
  readonly first: number;
  readonly kind: "check" | "rows" | "matmul";
  readonly formats: readonly [FormatSpec, FormatSpec];
  readonly options: { readonly partials?: string; readonly overflow?: string; readonly blockSize?: number };
  /** The caller's kernel switch (useKernels), applied by the worker before it runs the job. */
  readonly kernels: boolean;
  readonly a: Uint8Array;
  readonly b?: Uint8Array;
  readonly rows: number;
  readonly n: number;
  readonly k: number;
  readonly scales?: { readonly a?: Uint8Array; readonly b?: Uint8Array };
  readonly out?: Float32Array | Uint16Array;
  /** "check": the name of the operand `a` is ("a", else the second operand: "b", or matvec's "x"), for errors. */
  readonly argument?: string;
}

export type Job = QuantizeJob | DequantizeJob | WasmJob | DotJob;

/** What a worker receives at start (worker.ts): the threads build and the shared memory it instantiates it on. */
export interface WorkerInit {
  readonly module: WasmModule;
  readonly memory: WasmMemory;
}

/** A typed error as plain data: its class name, the argument it names and the message after "argument: ". */
export interface ErrorData {
  readonly name: string;
  readonly argument: string;
  readonly message: string;
}

export type Reply =
  | { readonly id: number; readonly flags?: ConversionFlags; readonly value?: number }
  | { readonly id: number; readonly error: ErrorData | string };

/** The library's typed errors, and those of the file conversions' workers (src/checkpoint/threads.ts). */
const TYPED = { FormatError, ProjectionError, CodeRangeError, ArgumentTypeError, SafetensorsError, IoError, CheckpointError, GgufError } as const;

/** Serializes a typed error (other errors travel as their text and are re-thrown as plain Errors). */
export function errorData(error: unknown): ErrorData | string {
  if (error instanceof Error && error.name in TYPED && "argument" in error && typeof error.argument === "string") {
    return { name: error.name, argument: error.argument, message: error.message.slice(error.argument.length + 2) };
  }
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Re-creates the typed error of a part, with an element index `name[i]` shifted to the whole array's index. */
export function reviveError(data: ErrorData | string, first: number): Error {
  if (typeof data === "string") return new Error(`minifloat worker failed: ${data}`);
  const indexed = /^(.*)\[(\d+)\]$/.exec(data.argument);
  const argument = indexed ? `${indexed[1]}[${first + Number(indexed[2])}]` : data.argument;
  return new TYPED[data.name as keyof typeof TYPED](argument, data.message);
}

/** Splits n elements into at most `parts` contiguous ranges whose boundaries are multiples of `align`. */
export function splitRanges(n: number, parts: number, align: number): Array<[number, number]> {
  const step = Math.ceil(n / parts / align) * align;
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < n; start += step) ranges.push([start, Math.min(n, start + step)]);
  return ranges;
}
