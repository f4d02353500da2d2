// Dequantizes a whole checkpoint to F32, F16 or BF16: a .safetensors file to a file, a model directory to a
// directory (shard by shard, same shard names, a new index, config.json without quantization_config, every other
// file copied, hf_quant_config.json left out), a .gguf file to a .safetensors file. Scale tensors are folded into
// their weights and dropped. Nothing appears at the destination unless everything succeeded.
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { temporaryPath } from "../io/atomic.js";
import type { TensorSpec } from "../io/header.js";
import { IoError } from "../io/errors.js";
import { onPath } from "../io/fs-errors.js";
import type { SafetensorsReader } from "../io/reader.js";
import { SafetensorsWriter } from "../io/writer.js";
import { kernelStatus, kernels } from "../wasm/instance.js";
import { WasmArray, memoryBuffer } from "../wasm/memory.js";
import { TABLE_MIN, type Target } from "./decode.js";
import { CheckpointError } from "./errors.js";
import { type Checkpoint, INDEX_FILE, openCheckpoint } from "./open.js";
import type { CheckpointTensor } from "./recognize.js";
import { GatherRoom } from "./room.js";
import { type DequantizeJob, JOB_CHUNKS, type JobContext, type JobRunner, inOrder, writeBehind } from "./jobs.js";
import { WorkerRunner, threadOptions } from "./threads.js";

/** Elements per chunk: 1 Mi elements keep buffers at a few MB whatever the tensor size. */
const CHUNK_ELEMENTS = 1 << 20;
const COPY_BYTES = 8 << 20;
const OWN_RECORDS = ["minifloat.quantized"];

export interface ProgressSink {
  /** `elements` more elements of converted tensor `index` are done. */
  advance(elements: number, index: number, name: string): void;
  /** Converted tensor `index` is complete after `seconds`. */
  finished(index: number, t: CheckpointTensor, seconds: number): void;
}

export interface DequantizeCheckpointOptions {
  /** Target dtype. */
  to: Target;
  /** Output file (for a file input) or directory (for a directory input). */
  output: string;
  force?: boolean;
  /** Flush each output file to the disk before moving it into place (default false). */
  fsync?: boolean;
  /** Ignore other tools' conventions: decode narrow weights without their scales, keep scale tensors. */
  raw?: boolean;
  /** Logical tensors to convert (default all); the others are copied with their scale tensors. */
  selected?: (name: string) => boolean;
  /** Called once the plan is made: the converted elements and tensors in all. */
  progress?: (elements: number, tensors: number) => ProgressSink;
  /** Worker threads for tensors of at least `minElements` elements (default: the logical processors, at most 8, on 3 or more; else 1: this thread only). */
  threads?: number;
  /** Tensors with fewer elements are converted on the calling thread (default 2^22). */
  minElements?: number;
}

export interface DequantizeCheckpointResult {
  converted: number;
  copied: number;
  /** Scale tensors folded into their weights. */
  dropped: number;
  inputBytes: number;
  outputBytes: number;
}

/** The input has nothing to convert (every float tensor already in the target dtype, or none selected). */
export class NothingToConvertError extends CheckpointError {}

type Item = { kind: "convert"; t: CheckpointTensor } | { kind: "copy"; name: string; reader: SafetensorsReader };

/** Dequantizes `input` (a .safetensors file, a model directory or a .gguf file); see the file comment. */
export async function dequantizeCheckpoint(input: string, options: DequantizeCheckpointOptions): Promise<DequantizeCheckpointResult> {
  const { to, output } = options;
  const selected = options.selected ?? (() => true);
  const target = resolve(output);
  if (existsSync(target) && !options.force) throw new IoError(output, "exists; allowed: a new path, or --force to replace it");
  if (resolve(input) === target) throw new IoError(output, "is also the input; allowed: a different output path (inputs are never modified)");
  const { threads, minElements } = threadOptions(options);
  const c = await openCheckpoint(input, { raw: options.raw ?? false });
  let workers: WorkerRunner | undefined;
  try {
    // Scaled tensors are always converted; unscaled float tensors when not already in the target dtype, except the
    // plain ones of a checkpoint another tool quantized: those were never quantized (DeepSeek's F32 biases stay F32).
    const unscaled = (t: CheckpointTensor) => t.scheme === "minifloat" || (t.scheme === "plain" && c.quantization === undefined);
    const converts = (t: CheckpointTensor) =>
      t.decodable && selected(t.name) && (c.kind === "gguf" || (t.scheme !== "plain" && t.scheme !== "minifloat") || (unscaled(t) && t.parts[0]!.dtype !== to));
    const convertedTensors = c.tensors.filter(converts);
    if (c.kind === "gguf") {
      const bad = c.tensors.find((t) => !t.decodable);
      if (bad) throw new CheckpointError(`tensor "${bad.name}"`, `has GGUF type ${bad.dtype}, which holds integers; allowed: floating-point GGUF types`);
    }
    if (convertedTensors.length === 0)
      throw new NothingToConvertError(input, `has no floating-point tensor${options.selected ? " selected" : ""} that is not already ${to}; no output written`);
    const plans = planFiles(c, converts);
    const sink = options.progress?.(
      convertedTensors.reduce((n, t) => n + t.length, 0),
      convertedTensors.length,
    );
    const result: DequantizeCheckpointResult = { converted: 0, copied: 0, dropped: 0, inputBytes: 0, outputBytes: 0 };
    for (const t of c.tensors) if (converts(t)) result.dropped += t.parts.length - 1;
    const job = { input, raw: options.raw ?? false, to, kernels: kernelStatus().enabled };
    // Workers for the large tensors of a safetensors checkpoint whose decode is compute-bound, started with the first
    // one. A table gather (with the kernels: plain narrow floats, block-scaled FP8, small blocks with coded scales such
    // as NVFP4 and MXFP4) is bound by memory and stays here, where the writes already overlap it; so do GGUF tensors.
    // On two cores, workers made both slower (docs/performance.md).
    const remote = (t: CheckpointTensor) => threads > 1 && t.length >= minElements && c.kind !== "gguf" && !gathered(c, t);
    const runner = async () => {
      workers ??= await WorkerRunner.create(threads);
      return workers;
    };
    const release = async () => {
      await workers?.releaseOutput();
    };
    const run = { c, to, sink, index: 0, result, fsync: options.fsync ?? false, job, remote, runner, release };
    // The quantization config goes when another tool's quantized weights were all dequantized (not with --only
    // leaving some, nor with --raw, which applies no convention).
    const own = (t: CheckpointTensor) => ["plain", "minifloat", "minifloat-block"].includes(t.scheme) || t.scheme.startsWith("gguf:");
    const dropConfig = convertedTensors.some((t) => !own(t)) && c.tensors.every((t) => own(t) || converts(t));
    if (c.kind === "gguf") result.inputBytes = (await stat(input)).size;
    if (c.kind !== "directory") {
      const [file, items] = [...plans][0]!;
      await writeShard(run, items, output, c.readers.get(file), options.force ?? false, input);
    } else {
      await writeDirectory(run, plans, input, output, options.force ?? false, dropConfig);
    }
    return result;
  } finally {
    await Promise.all([workers?.close(), c.close()]);
  }
}

/**
 * Per input file, its output tensors in stored order: converted logical tensors where their weight is, parts of
 * unconverted ones copied where they are, scale parts of converted ones dropped.
 */
function planFiles(c: Checkpoint, converts: (t: CheckpointTensor) => boolean): Map<string, Item[]> {
  const plans = new Map<string, Item[]>(c.files.map((f) => [f, []]));
  const owner = new Map<string, CheckpointTensor>();
  for (const t of c.tensors) for (const p of t.parts) owner.set(p.name, t);
  if (c.kind === "gguf") {
    plans.set(
      c.files[0]!,
      c.tensors.map((t) => ({ kind: "convert", t })),
    );
    return plans;
  }
  for (const [file, reader] of c.readers) {
    for (const stored of reader.tensors) {
      const t = owner.get(stored.name)!;
      if (!converts(t)) plans.get(file)!.push({ kind: "copy", name: stored.name, reader });
      else if (t.parts[0]!.name === stored.name) plans.get(file)!.push({ kind: "convert", t });
    }
  }
  return plans;
}

interface Run {
  readonly c: Checkpoint;
  readonly to: Target;
  readonly sink: ProgressSink | undefined;
  index: number;
  readonly result: DequantizeCheckpointResult;
  readonly fsync: boolean;
  /** What every job of this run has in common. */
  readonly job: Pick<DequantizeJob, "input" | "raw" | "to" | "kernels">;
  /** Whether tensor t goes to the workers, and the workers (started on first use). */
  readonly remote: (t: CheckpointTensor) => boolean;
  readonly runner: () => Promise<JobRunner>;
  /** Closes the workers' handles of the output (before it is moved into place). */
  readonly release: () => Promise<void>;
}

/** Writes one output file; returns its tensors' names and data bytes. */
async function writeShard(
  run: Run,
  items: readonly Item[],
  path: string,
  reader: SafetensorsReader | undefined,
  force: boolean,
  input: string,
): Promise<{ names: string[]; bytes: number }> {
  const specs: TensorSpec[] = items.map((it) => {
    if (it.kind === "convert") return { name: it.t.name, dtype: run.to, shape: it.t.shape };
    const s = it.reader.tensor(it.name);
    const recorded = s.format !== undefined && (s.dtype === "U8" || s.dtype === "U16");
    return { name: s.name, dtype: s.dtype, shape: s.shape, ...(recorded && { format: s.format }) };
  });
  const folded = new Set(items.flatMap((it) => (it.kind === "convert" && it.t.scheme === "minifloat-block" ? [it.t.name] : [])));
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(reader?.metadata ?? {})) {
    if (!OWN_RECORDS.includes(k) && !(k.startsWith("minifloat.block.") && folded.has(k.slice("minifloat.block.".length)))) metadata[k] = v;
  }
  const writer = await SafetensorsWriter.create(path, specs, { metadata, force, fsync: run.fsync, protect: [input] });
  const slots = new OutputSlots(
    run.c,
    run.to,
    items.flatMap((it) => (it.kind === "convert" && !run.remote(it.t) ? [it.t] : [])),
  );
  try {
    for (const it of items) {
      if (it.kind === "copy") {
        const s = it.reader.tensor(it.name);
        for (let at = 0; at < s.end - s.begin; at += COPY_BYTES)
          await writer.writeBytes(await it.reader.readTensorBytes(s, at, Math.min(COPY_BYTES, s.end - s.begin - at)), { copy: false });
        run.result.copied++;
        continue;
      }
      const t = it.t;
      const index = run.index++;
      const started = performance.now();
      if (run.remote(t)) {
        const runner = await run.runner();
        // Ranges of whole chunks, each written by a worker at its place in the file.
        const size = run.to === "F32" ? 4 : 2;
        const ranges = function* (): Generator<DequantizeJob> {
          const step = chunkOf(t) * JOB_CHUNKS;
          for (let start = 0; start < t.length; start += step) {
            const count = Math.min(step, t.length - start);
            yield { op: "dequantize", ...run.job, tensor: t.name, start, count, output: writer.reserveBytes(count * size) };
          }
        };
        await inOrder(runner, ranges(), (_, job) => run.sink?.advance(job.count, index, t.name));
      } else {
        // The next chunk is read and decoded while the previous one is written, in place (copy: false) from three
        // buffers in rotation: a buffer is reused once the write call after its own has returned.
        await convertRange(run.c, t, run.to, 0, t.length, slots, (bytes, count) =>
          writer.writeBytes(bytes, { copy: false }).then(() => run.sink?.advance(count, index, t.name)),
        );
        // No write from the buffers stays in flight into the next tensor's first chunk (see OutputSlots).
        await writer.flush();
      }
      run.result.converted++;
      run.sink?.finished(index, t, (performance.now() - started) / 1000);
    }
    await run.release();
    await writer.commit();
  } catch (e) {
    await writer.abort();
    throw e;
  } finally {
    await slots.free();
  }
  const last = writer.tensors[writer.tensors.length - 1];
  run.result.outputBytes += writer.dataStart + (last?.end ?? 0);
  if (reader) run.result.inputBytes += reader.dataStart + (reader.tensors[reader.tensors.length - 1]?.end ?? 0);
  return { names: specs.map((s) => s.name), bytes: last?.end ?? 0 };
}

/**
 * Elements [start, start + count) of t (start a multiple of chunkOf(t)) chunk by chunk into `slots`, each chunk's
 * bytes handed to `emit` in order; the next chunk is decoded while `emit`'s promise for the one before is pending.
 */
async function convertRange(
  c: Checkpoint,
  t: CheckpointTensor,
  to: Target,
  start: number,
  count: number,
  slots: OutputSlots,
  emit: (bytes: Uint8Array, count: number) => Promise<void>,
): Promise<void> {
  const step = chunkOf(t);
  const n = (k: number) => Math.min(step, start + count - (start + k * step));
  await writeBehind(
    Math.ceil(count / step),
    async (k) => {
      const memory = slots.memory();
      const values = await c.readRounded(t.name, to, start + k * step, n(k), slots.buffer(t, k, n(k)), slots.room);
      slots.check(t, k, memory);
      return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    },
    (bytes, k) => emit(bytes, n(k)),
  );
}

/** A DequantizeJob on this thread: its chunks written at its place in the output file, each while the next is decoded. */
export async function dequantizeJob(job: DequantizeJob, context: JobContext): Promise<null> {
  const c = await context.checkpoint(job.input, job.raw);
  const t = c.tensor(job.tensor);
  const slots = await context.scratchOf(
    "dequantize",
    (s: OutputSlots) => s.covers(c, job.to, t),
    () => new OutputSlots(c, job.to, [t]),
  );
  await convertRange(c, t, job.to, job.start, job.count, slots, context.appender(job.output));
  return null;
}

/** Elements per chunk of a tensor: whole rows, about CHUNK_ELEMENTS. */
function chunkOf(t: CheckpointTensor): number {
  const K = Math.max(1, t.shape[t.shape.length - 1] ?? 1);
  return Math.max(1, Math.floor(CHUNK_ELEMENTS / K)) * K;
}

/**
 * The three output buffers of one file's conversion, reused. With the kernels, chunks of tensors without scale tensors
 * and of block-scaled byte codes (with the GatherRoom their codes are read into and their tables rounded in) go to
 * buffers in Wasm memory: the gather kernel writes its results there in place and the writer writes them from there,
 * with no copy out. The thread pool then writes from Wasm memory while the next chunk is decoded, so the memory must
 * not grow meanwhile (a growth detaches the array it writes from, and may move the memory): the buffers and the room
 * are allocated up front at their largest, a tensor's first chunk is decoded into a JavaScript array with no write in
 * flight (its decode makes the kernels' first allocations: tables, encode parameters, the stream scratch, which may
 * grow the memory under a view made before), and every later chunk of such a tensor makes the same allocations, no
 * larger. check() enforces it.
 */
class OutputSlots {
  private readonly arrays: (Float32Array | Uint16Array)[];
  private readonly wasm: WasmArray<Float32Array | Uint16Array>[] = [];
  /** Room for block-scaled byte codes, sized for the largest chunk of the file's. */
  readonly room: GatherRoom | undefined;

  /** Slots for the chunks of the `converted` tensors of c into `to`. */
  constructor(
    private readonly c: Checkpoint,
    to: Target,
    converted: readonly CheckpointTensor[],
  ) {
    const size = Math.max(0, ...converted.map((t) => Math.min(chunkOf(t), t.length)));
    const type = to === "F32" ? Float32Array : Uint16Array;
    this.arrays = [0, 1, 2].map(() => new type(size));
    if (!converted.some((t) => gathered(c, t))) return;
    const scaled = converted.filter((t) => roomy(c, t));
    if (scaled.length > 0) this.room = GatherRoom.create(size, Math.max(256, ...scaled.map(roomEntries)));
    if (converted.some(unscaled) || this.room) this.wasm = [0, 1, 2].map(() => new WasmArray<Float32Array | Uint16Array>(type, size));
  }

  /** Whether these slots (made for another tensor) serve t of c into `to` as slots made for t would. */
  covers(c: Checkpoint, to: Target, t: CheckpointTensor): boolean {
    const type = to === "F32" ? Float32Array : Uint16Array;
    const size = Math.min(chunkOf(t), t.length);
    if (!(this.arrays[0] instanceof type) || this.arrays[0].length < size) return false;
    if (!gathered(c, t)) return this.wasm.length === 0 && this.room === undefined;
    return roomy(c, t)
      ? this.room !== undefined && this.room.entries >= roomEntries(t) && this.room.codeBytes >= size
      : this.wasm.length > 0 && this.room === undefined;
  }

  /** Whether chunk k of t goes to a Wasm buffer. */
  inWasm(t: CheckpointTensor, k: number): boolean {
    return k > 0 && this.wasm.length > 0 && (unscaled(t) || (this.room !== undefined && roomy(this.c, t)));
  }

  /** Buffer k mod 3 for chunk k of t, `count` elements. */
  buffer(t: CheckpointTensor, k: number, count: number): Float32Array | Uint16Array {
    return (this.inWasm(t, k) ? this.wasm[k % 3]!.array : this.arrays[k % 3]!).subarray(0, count);
  }

  /** The Wasm memory's buffer now (undefined without Wasm buffers). */
  memory(): ArrayBufferLike | undefined {
    return this.wasm.length > 0 ? memoryBuffer() : undefined;
  }

  /** Refuses a growth of the memory during the decode of chunk k into a Wasm buffer (chunk k − 1's write may be from one). */
  check(t: CheckpointTensor, k: number, before: ArrayBufferLike | undefined): void {
    if (this.inWasm(t, k) && memoryBuffer() !== before) throw new Error("internal error: Wasm memory grew under a Wasm output buffer in use");
  }

  async free(): Promise<void> {
    await this.room?.close();
    for (const a of this.wasm) a.free();
  }
}

/**
 * Whether t's chunks are gathered from tables into Wasm buffers (OutputSlots): plain or block-scaled byte codes, and
 * small blocks with coded scales.
 */
function gathered(c: Checkpoint, t: CheckpointTensor): boolean {
  return kernels() !== undefined && c.kind !== "gguf" && (unscaled(t) || roomy(c, t));
}

/** Whether t's chunks read their codes into the room: block-scaled FP8 by per-block tables, or coded small blocks. */
function roomy(c: Checkpoint, t: CheckpointTensor): boolean {
  return roomEntries(t) > 0 || c.codedBlocks(t);
}

/** A logical tensor of one stored tensor: no scale tensors. */
function unscaled(t: CheckpointTensor): boolean {
  return t.parts.length === 1;
}

/**
 * The most table entries a chunk of t takes in readRounded's table path (256 per scale block a chunk of whole rows
 * touches) when t is block-scaled byte codes (FP8) with blocks of at least TABLE_MIN elements; else 0.
 */
function roomEntries(t: CheckpointTensor): number {
  const block = t.blockShape;
  if (unscaled(t) || block === undefined || block[0] * block[1] < TABLE_MIN || !t.dtype.startsWith("F8_")) return 0;
  const K = Math.max(1, t.shape[t.shape.length - 1] ?? 1);
  const rows = Math.min(chunkOf(t), t.length) / K;
  const blockRows = Math.min(Math.ceil(t.length / K / block[0]), Math.ceil((rows - 1) / block[0]) + 1);
  return blockRows * Math.ceil(K / block[1]) * 256;
}

/** A directory output: built in a temporary sibling directory, moved into place when complete. */
async function writeDirectory(run: Run, plans: Map<string, Item[]>, input: string, output: string, force: boolean, dropConfig: boolean): Promise<void> {
  const target = resolve(output);
  if (!existsSync(dirname(target))) throw new IoError(output, `directory ${dirname(target)} does not exist; allowed: a path in an existing directory`);
  const temp = temporaryPath(target);
  await onPath(output, () => mkdir(temp));
  try {
    const weightMap: Record<string, string> = {};
    let total = 0;
    for (const [file, items] of plans) {
      const { names, bytes } = await writeShard(run, items, join(temp, file), run.c.readers.get(file), false, input);
      for (const n of names) weightMap[n] = file;
      total += bytes;
    }
    const index = (await readJson(join(input, INDEX_FILE))) as { metadata?: Record<string, unknown> } | undefined;
    if (index !== undefined) {
      const sorted = Object.fromEntries(Object.entries(weightMap).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      await writeJson(join(temp, INDEX_FILE), { metadata: { ...index.metadata, total_size: total }, weight_map: sorted });
    }
    const skip = new Set([...plans.keys(), INDEX_FILE, ...(dropConfig ? ["hf_quant_config.json", "config.json"] : [])]);
    for (const name of await readdir(input)) {
      if (!skip.has(name)) await cp(join(input, name), join(temp, name), { recursive: true });
    }
    const config = run.c.config;
    if (dropConfig && config !== undefined) {
      const { quantization_config: _, ...rest } = config;
      await writeJson(join(temp, "config.json"), rest);
    }
    if (existsSync(target)) {
      if (!force) throw new IoError(output, "exists; allowed: a new path, or --force to replace it");
      const old = `${temp}.old`;
      await rename(target, old);
      await rename(temp, target);
      await rm(old, { recursive: true, force: true });
    } else await onPath(output, () => rename(temp, target));
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, "utf8").catch(() => "null")) ?? undefined;
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`, { flag: "wx" });
}
