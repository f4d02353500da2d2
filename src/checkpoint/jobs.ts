// The jobs a checkpoint conversion cuts its tensors into (a band of a weight's rows, a range of a tensor for its
// amax), and what runs one: the same function on the calling thread and on a conversion worker (threads.ts), which
// opens the input file itself. A job names its tensor and scheme rather than carrying data, so it costs nothing to send.
import { closeSync, openSync, writeSync } from "node:fs";
import { fsError } from "../io/fs-errors.js";
import { SafetensorsReader } from "../io/reader.js";
import type { ErrorSums } from "../wasm/stats.js";
import type { Granularity, ProducedScheme } from "./scales.js";

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

export type ConversionJob = ProduceBandJob | AmaxJob;

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

export type JobResult<J extends ConversionJob> = J extends ProduceBandJob ? ProduceBandResult : number;

/**
 * What the jobs of one thread share: the input files it opened (or was given), and scratch buffers in Wasm memory
 * that grow to the largest job and are reused, so a thread allocates once per conversion rather than per band.
 */
export class JobContext {
  private readonly readers = new Map<string, Promise<SafetensorsReader>>();
  /** The output file written by position, and its descriptor. */
  private output: { path: string; fd: number } | undefined;
  private readonly owned = new Set<string>();
  private readonly scratch = new Map<string, { elements: number; value: { free(): void } }>();

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

  /** Writes `bytes` at `position` of the file at `path` (kept open until another path or close). */
  writeAt(path: string, position: number, bytes: Uint8Array): void {
    try {
      if (this.output?.path !== path) {
        this.closeOutput();
        this.output = { path, fd: openSync(path, "r+") };
      }
      // Synchronous: bytes may be a view of Wasm memory, which nothing may grow while the write reads it.
      for (let done = 0; done < bytes.length; ) done += writeSync(this.output.fd, bytes, done, bytes.length - done, position + done);
    } catch (e) {
      throw fsError(e, path);
    }
  }

  private closeOutput(): void {
    if (this.output) closeSync(this.output.fd);
    this.output = undefined;
  }

  /** The scratch value under `key` of at least `elements` elements, made by `create` (a smaller one is freed first). */
  scratchOf<T extends { free(): void }>(key: string, elements: number, create: (elements: number) => T): T {
    const s = this.scratch.get(key);
    if (s && s.elements >= elements) return s.value as T;
    s?.value.free();
    this.scratch.delete(key);
    const value = create(elements);
    this.scratch.set(key, { elements, value });
    return value;
  }

  /** Frees the scratch buffers and closes the readers this context opened. */
  async close(): Promise<void> {
    for (const s of this.scratch.values()) s.value.free();
    this.scratch.clear();
    await this.closeOwned();
    this.readers.clear();
    this.closeOutput();
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

/** Runs every job of `jobs` on the runner and hands the results to `consume` in job order. */
export async function inOrder<J extends ConversionJob>(
  runner: JobRunner,
  jobs: Iterable<J>,
  consume: (result: JobResult<J>, job: J) => Promise<void> | void,
): Promise<void> {
  const queue: [J, Promise<JobResult<J>>][] = [];
  try {
    for (const job of jobs) {
      queue.push([job, runner.run(job)]);
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
