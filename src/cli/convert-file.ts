// The streaming loop shared by quantize and dequantize: each input tensor becomes zero or more output tensors,
// converted chunk by chunk or copied byte for byte, in a new file that appears only when complete.
import type { TensorInfo, TensorSpec } from "../io/header.js";
import { SafetensorsReader } from "../io/reader.js";
import { SafetensorsWriter } from "../io/writer.js";
import { JOB_CHUNKS, type QuantizeRangeJob, inOrder } from "../checkpoint/jobs.js";
import { WorkerRunner, threadOptions } from "../checkpoint/threads.js";
import type { ErrorSums } from "../wasm/stats.js";
import { type OptionSpec, type Parsed, UsageError, globMatcher, integerOption, outputOption, parseCommand } from "./args.js";
import type { CliIO } from "./io.js";
import { Progress } from "./progress.js";

/** Elements per chunk: 1 Mi elements keep buffers at a few MB whatever the tensor size. */
export const CHUNK_ELEMENTS = 1 << 20;
const COPY_BYTES = 8 << 20;

/** How one input tensor is converted; the converter reads its input itself and appends to the writer. */
export interface Conversion {
  /** Elements per chunk (default CHUNK_ELEMENTS). */
  readonly chunkElements?: number;
  /** Converts elements [start, start + count) of the input tensor. */
  chunk(start: number, count: number, writer: SafetensorsWriter): Promise<void>;
  /** Runs after the last chunk (e.g. to append a tensor of block scales). */
  finish?(writer: SafetensorsWriter): Promise<void>;
  /** The same conversion on worker threads (FileJob.threads). */
  readonly remote?: RemoteConversion;
}

/** A conversion's chunks as jobs for worker threads (QuantizeRangeJob), when it can run there. */
export interface RemoteConversion {
  readonly bytesPerElement: number;
  /** The job of elements [start, start + count) (whole chunks), its stored bytes written at `output`. */
  job(start: number, count: number, output: { path: string; position: number }): QuantizeRangeJob;
  /** Takes a job's result, in job order. */
  done(sums: readonly ErrorSums[], job: QuantizeRangeJob): void;
}

export interface TensorPlan {
  /** Output tensors of this input tensor, in file order: none drops it, one with no conversion copies it. */
  readonly specs: readonly TensorSpec[];
  readonly convert?: Conversion;
}

export interface FileJob {
  input: string;
  output: string;
  force: boolean;
  /** Flush the output to the disk before moving it into place. */
  fsync: boolean;
  /** May read the tensor (e.g. for its amax) before anything is written. */
  plan(t: TensorInfo, reader: SafetensorsReader): TensorPlan | Promise<TensorPlan>;
  /** Called after every plan, before the header is written. */
  metadata(input: Readonly<Record<string, string>>): Record<string, string>;
  /** The error message when no tensor is to be converted (then nothing is written). */
  nothingToConvert: string;
  /** Called after each converted tensor with its elapsed seconds; returns the progress line's summary. */
  converted(t: TensorInfo, seconds: number): string;
  /** Worker threads for tensors of ≥ 2^22 elements whose conversion has a `remote` form (default 1: none). */
  threads?: number;
}

export interface FileResult {
  converted: number;
  copied: number;
  inputBytes: number;
  outputBytes: number;
}

/** Options every converting command takes after its own: --only, -o/--output, --force, --fsync and --threads. */
const CONVERT_OPTIONS: OptionSpec = {
  only: { type: "string", multiple: true },
  output: { type: "string", short: "o" },
  force: { type: "boolean" },
  fsync: { type: "boolean" },
  threads: { type: "string" },
};

/**
 * Parses a converting command's arguments (its `options`, CONVERT_OPTIONS and one input file): the parsed values,
 * the input/output/force/fsync part of its FileJob, and the --only filter.
 */
export function parseConvertCommand(
  command: string,
  args: readonly string[],
  options: OptionSpec,
): { p: Parsed; files: Pick<FileJob, "input" | "output" | "force" | "fsync" | "threads">; selected: (name: string) => boolean } {
  const p = parseCommand(command, args, { ...options, ...CONVERT_OPTIONS }, ["in.safetensors"]);
  const threads = integerOption(p, "threads", 1, 256);
  const files = {
    input: p.positionals[0]!,
    output: outputOption(p),
    force: p.values.force === true,
    fsync: p.values.fsync === true,
    ...(threads !== undefined && { threads }),
  };
  return { p, files, selected: globMatcher((p.values.only as string[] | undefined) ?? []) };
}

/** Writes job.output from job.input: each tensor converted, copied or dropped as job.plan says, in input order. */
export async function convertFile(job: FileJob, io: CliIO): Promise<FileResult> {
  const reader = await SafetensorsReader.open(job.input);
  try {
    const plans: TensorPlan[] = [];
    for (const t of reader.tensors) plans.push(await job.plan(t, reader));
    if (!plans.some((p) => p.convert)) throw new UsageError(job.input, `${job.nothingToConvert}; no output written`);
    const writer = await SafetensorsWriter.create(
      job.output,
      plans.flatMap((p) => p.specs),
      { metadata: job.metadata(reader.metadata), force: job.force, fsync: job.fsync, protect: [job.input] },
    );
    // One thread unless asked: on two cores the workers measured about even for `quantize --to` (docs/performance.md).
    const { threads, minElements } = threadOptions(job, false);
    const total = reader.tensors.reduce((n, t, i) => n + (plans[i]!.convert ? t.length : 0), 0);
    // Only converted tensors get a progress line, so only they are numbered (copied and dropped ones would leave gaps).
    const shown = plans.filter((p) => p.convert).length;
    const progress = new Progress(io, total, shown);
    let number = 0;
    let converted = 0;
    let copied = 0;
    let workers: WorkerRunner | undefined;
    try {
      for (const [i, t] of reader.tensors.entries()) {
        const { specs, convert } = plans[i]!;
        if (!convert) {
          if (specs.length === 0) continue;
          for (let at = t.begin; at < t.end; at += COPY_BYTES) {
            await writer.writeBytes(await reader.readTensorBytes(t, at - t.begin, Math.min(COPY_BYTES, t.end - at)));
          }
          copied++;
          continue;
        }
        const index = number++;
        const started = performance.now();
        const step = convert.chunkElements ?? CHUNK_ELEMENTS;
        const remote = threads > 1 && t.length >= minElements ? convert.remote : undefined;
        if (remote) {
          // Ranges of whole chunks on the workers, each written at its place in the file; results taken in order.
          workers ??= await WorkerRunner.create(threads);
          const ranges = function* (): Generator<QuantizeRangeJob> {
            for (let start = 0; start < t.length; start += step * JOB_CHUNKS) {
              const count = Math.min(step * JOB_CHUNKS, t.length - start);
              yield remote.job(start, count, writer.reserveBytes(count * remote.bytesPerElement));
            }
          };
          await inOrder(workers, ranges(), (sums, j) => {
            remote.done(sums, j);
            progress.advance(j.count, index, t.name);
          });
        } else {
          for (let start = 0; start < t.length; start += step) {
            const count = Math.min(step, t.length - start);
            await convert.chunk(start, count, writer);
            progress.advance(count, index, t.name);
          }
        }
        await convert.finish?.(writer);
        // A tensor is reported once its bytes are written (the writer keeps one write in flight).
        await writer.flush();
        converted++;
        progress.finished(index, t.name, job.converted(t, (performance.now() - started) / 1000));
      }
      await workers?.releaseOutput();
      await writer.commit();
    } catch (e) {
      await writer.abort();
      throw e;
    } finally {
      progress.end();
      await workers?.close();
    }
    const last = writer.tensors[writer.tensors.length - 1];
    return {
      converted,
      copied,
      inputBytes: reader.dataStart + (reader.tensors[reader.tensors.length - 1]?.end ?? 0),
      outputBytes: writer.dataStart + (last?.end ?? 0),
    };
  } finally {
    await reader.close();
  }
}
