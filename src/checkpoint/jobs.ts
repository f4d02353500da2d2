// The jobs a checkpoint conversion cuts its tensors into (a band of a weight's rows, a range of a tensor for its
// amax, a range of chunks to quantize, dequantize or write as GGUF), and what the jobs of one thread share (JobContext). The
// same function runs a job on the calling thread and on a conversion worker (run-job.ts, threads.ts), which opens the
// input itself: a job names its input, tensor and options rather than carrying data, so it costs nothing to send.
import { type FileHandle, open } from "node:fs/promises";
import { fsError } from "../io/fs-errors.js";
import { SafetensorsReader } from "../io/reader.js";
import type { GgufTensorType } from "../io/gguf/format.js";
import type { Target } from "./decode.js";
import { type Checkpoint, openCheckpoint } from "./open.js";
import type { ErrorSums, Threshold } from "../wasm/stats.js";
import type { Rounding, Saturation } from "../exact/projection.js";
import type { FormatSpec } from "../format/model.js";
import type { Granularity, ProducedScheme } from "./scales.js";

/** Chunks (of about 2^20 elements) per job of a range: large enough that dispatch and a job's first chunk are small next to its work. */
export const JOB_CHUNKS = 4;

interface JobBase {
  /** The input file (opened by path in a worker). */
  readonly path: string;
  readonly tensor: string;
  /** The caller's kernel switch (useKernels): a worker takes the path the calling thread would. */
  readonly kernels: boolean;
}

/** Codes and block scales of `rows` rows from r0 (gpt-oss: of expert e, all its rows) of a weight in a scheme. */
export interface ProduceBandJob extends JobBase {
  readonly op: "produce";
  readonly scheme: ProducedScheme;
  readonly granularity: Granularity;
  readonly expert: number;
  readonly r0: number;
  readonly rows: number;
  /** The second-level scale (1 without one) and, for a whole-tensor scale, the tensor's amax. */
  readonly tensorScale: number;
  readonly wholeAmax?: number;
  /** Whether to return the error sums of each band against the values a consumer decodes. */
  readonly errors: boolean;
  /** Where the job writes its bytes itself (a worker: the output's temporary file), instead of returning them. */
  readonly output?: { readonly path: string; readonly position: number };
}

/** Largest |x| of elements [start, start + count) of a tensor (a NaN or ±∞ is an error naming the tensor). */
export interface AmaxJob extends JobBase {
  readonly op: "amax";
  readonly start: number;
  readonly count: number;
}

/** Elements [start, start + count) of a logical tensor of a checkpoint, rounded into `to` and written at `output`. */
export interface DequantizeJob {
  readonly op: "dequantize";
  /** The checkpoint: a .safetensors file, a model directory or a .gguf file. */
  readonly input: string;
  readonly raw: boolean;
  readonly tensor: string;
  readonly to: Target;
  readonly start: number;
  readonly count: number;
  readonly kernels: boolean;
  readonly output: { readonly path: string; readonly position: number };
}

/** Chunks [first, first + count) of step `step` of the GGUF plan of `input` (planGguf with `type`, `selected`), written at `output`. */
export interface GgufJob {
  readonly op: "gguf";
  readonly input: string;
  readonly type?: GgufTensorType;
  readonly selected?: readonly string[];
  readonly step: number;
  readonly first: number;
  readonly count: number;
  /** The chunks' elements (progress units). */
  readonly elements: number;
  readonly kernels: boolean;
  readonly output: { readonly path: string; readonly position: number };
}

/**
 * `quantize --to` of elements [start, start + count) of a float tensor (whole chunks of `chunk` elements) into one
 * format under a deterministic rounding, the codes written at `output`; the result is each chunk's error sums.
 */
export interface QuantizeRangeJob extends JobBase {
  readonly op: "quantize";
  readonly format: FormatSpec;
  readonly rounding: Rounding;
  readonly saturation: Saturation;
  /** Overflow thresholds of positive and negative inputs, for the sums' overflow counts. */
  readonly limits: readonly [Threshold, Threshold];
  readonly start: number;
  readonly count: number;
  readonly chunk: number;
  readonly output: { readonly path: string; readonly position: number };
}

export type ConversionJob = ProduceBandJob | AmaxJob | DequantizeJob | GgufJob | QuantizeRangeJob;

export interface ProduceBandResult {
  /** The output bytes in file order (FP8 codes, or packed nibbles); none when the job wrote them (`output`). */
  readonly bytes: readonly Uint8Array[];
  /** The job's block scales, in the order of the scale tensor. */
  readonly stored: Float32Array | Uint8Array;
  /** Per band, when asked. */
  readonly sums: readonly ErrorSums[];
  /** Elements per band, for the sums. */
  readonly elements: readonly number[];
}

export type JobResult<J extends ConversionJob> = J extends ProduceBandJob
  ? ProduceBandResult
  : J extends AmaxJob
    ? number
    : J extends QuantizeRangeJob
      ? readonly ErrorSums[]
      : null;

/** Buffers a thread keeps from job to job. */
interface Scratch {
  free(): void | Promise<void>;
}

/**
 * What the jobs of one thread share: the input files it opened (or was given), the output it writes by position, and
 * scratch buffers (in Wasm memory) reused from job to job while they fit, so a thread allocates once per tensor
 * shape rather than once per job.
 */
export class JobContext {
  private readonly readers = new Map<string, Promise<SafetensorsReader>>();
  /** The output file written by position, and its handle. */
  private output: { path: string; handle: Promise<FileHandle> } | undefined;
  private readonly owned = new Set<string>();
  private readonly scratch = new Map<string, Scratch>();
  private opened: { key: string; checkpoint: Promise<Checkpoint> } | undefined;
  private readonly memos = new Map<string, Promise<unknown>>();

  /** Makes `reader` this context's reader of its path (the caller keeps and closes it). */
  use(reader: SafetensorsReader): void {
    this.readers.set(reader.path, Promise.resolve(reader));
  }

  /** The reader of `path`, opened on first use; the files it opened before are closed (a conversion goes shard by shard). */
  async reader(path: string): Promise<SafetensorsReader> {
    let r = this.readers.get(path);
    if (!r) {
      await this.closeOwned();
      r = SafetensorsReader.open(path);
      this.readers.set(path, r);
      this.owned.add(path);
    }
    return r;
  }

  /**
   * Writes `bytes` at `position` of the file at `path` (kept open until another path or close). The caller keeps
   * `bytes` unchanged, and the Wasm memory ungrown if they are a view of it, until the promise settles.
   */
  async writeAt(path: string, position: number, bytes: Uint8Array): Promise<void> {
    try {
      if (this.output?.path !== path) {
        await this.closeOutput();
        this.output = { path, handle: open(path, "r+") };
      }
      const handle = await this.output.handle;
      for (let done = 0; done < bytes.length; ) done += (await handle.write(bytes, done, bytes.length - done, position + done)).bytesWritten;
    } catch (e) {
      throw fsError(e, path);
    }
  }

  /** A function writing successive byte arrays at `output`, each after the one before (see writeAt). */
  appender(output: { readonly path: string; readonly position: number }): (bytes: Uint8Array) => Promise<void> {
    let position = output.position;
    return (bytes) => {
      position += bytes.length;
      return this.writeAt(output.path, position - bytes.length, bytes);
    };
  }

  /** Closes the output file this context writes by position (reopened by the next writeAt). */
  releaseOutput(): Promise<void> {
    return this.closeOutput();
  }

  private async closeOutput(): Promise<void> {
    const output = this.output;
    this.output = undefined;
    await (await output?.handle.catch(() => undefined))?.close();
  }

  /** The scratch value under `key` when `fits` accepts it, else a new one from `create` (the one before is freed first). */
  async scratchOf<T extends Scratch>(key: string, fits: (value: T) => boolean, create: () => T): Promise<T> {
    const s = this.scratch.get(key) as T | undefined;
    if (s && fits(s)) return s;
    this.scratch.delete(key);
    await s?.free();
    const value = create();
    this.scratch.set(key, value);
    return value;
  }

  /** The checkpoint at `input` (another one this context opened before is closed first, with what memo kept of it). */
  async checkpoint(input: string, raw: boolean): Promise<Checkpoint> {
    const key = `${raw}:${input}`;
    if (this.opened?.key !== key) {
      const before = this.opened;
      this.opened = undefined;
      this.memos.clear();
      await (await before?.checkpoint.catch(() => undefined))?.close();
      this.opened = { key, checkpoint: openCheckpoint(input, { raw }) };
    }
    return this.opened.checkpoint;
  }

  /** The value `make` gave under `key` for the open checkpoint (made once). */
  memo<T>(key: string, make: () => Promise<T>): Promise<T> {
    if (!this.memos.has(key)) this.memos.set(key, make());
    return this.memos.get(key) as Promise<T>;
  }

  /** Frees the scratch buffers and closes the files this context opened. */
  async close(): Promise<void> {
    for (const s of this.scratch.values()) await s.free();
    this.scratch.clear();
    await (await this.opened?.checkpoint.catch(() => undefined))?.close();
    this.opened = undefined;
    await this.closeOwned();
    this.readers.clear();
    await this.closeOutput();
  }

  private async closeOwned(): Promise<void> {
    const opened = [...this.owned].map((p) => this.readers.get(p)!);
    for (const p of this.owned) this.readers.delete(p);
    this.owned.clear();
    await Promise.allSettled(opened.map(async (r) => (await r).close()));
  }
}

export interface JobRunner {
  /** Jobs started before the first result is consumed. */
  readonly depth: number;
  /** Jobs run on other threads, which write their outputs themselves (ProduceBandJob.output). */
  readonly remote: boolean;
  run<J extends ConversionJob>(job: J): Promise<JobResult<J>>;
}

/**
 * For k = 0 … n − 1, `write`s what `produce(k)` gives, each write in flight while the next produce runs (so what a
 * write reads must stay unchanged until the produce after it has returned). A write's error surfaces at the next
 * step, or at the end.
 */
export async function writeBehind<T>(n: number, produce: (k: number) => Promise<T>, write: (value: T, k: number) => Promise<void>): Promise<void> {
  let pending: Promise<void> | undefined;
  for (let k = 0; k < n; k++) {
    const value = await produce(k);
    await pending;
    pending = write(value, k);
    // Handled now, awaited at the next step: a write failing during the next produce is not an unhandled rejection.
    pending.catch(() => undefined);
  }
  await pending;
}

/** Runs every job of `jobs` on the runner and hands the results to `consume` in job order. */
export async function inOrder<J extends ConversionJob>(
  runner: JobRunner,
  jobs: Iterable<J>,
  consume: (result: JobResult<J>, job: J) => Promise<void> | void,
): Promise<void> {
  const queue: [J, Promise<JobResult<J>>][] = [];
  try {
    for (const job of jobs) {
      const result = runner.run(job);
      // Handled now, awaited in turn: a later job failing while an earlier one is awaited is not an unhandled rejection.
      result.catch(() => undefined);
      queue.push([job, result]);
      if (queue.length >= runner.depth) {
        const [j, r] = queue.shift()!;
        await consume(await r, j);
      }
    }
    while (queue.length > 0) {
      const [j, r] = queue.shift()!;
      await consume(await r, j);
    }
  } finally {
    // After an error, the jobs still running settle before the caller cleans up (and their rejections are handled).
    await Promise.allSettled(queue.map(([, r]) => r));
  }
}
