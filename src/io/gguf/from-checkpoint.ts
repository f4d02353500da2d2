// A checkpoint (one safetensors file or a model directory, opened by openCheckpoint) → GGUF: every logical tensor
// gets steps — gpt-oss and compressed-tensors MXFP4 and ModelOpt NVFP4 repacked without re-rounding (packed.ts),
// every other float tensor read through the checkpoint (exact values, scales applied) and written as a ggml type —
// which then stream in chunks of rows into a GgufWriter, so memory stays bounded whatever the model size and the
// file appears only when complete.
import type { Checkpoint } from "../../checkpoint/open.js";
import type { CheckpointPart, CheckpointTensor } from "../../checkpoint/recognize.js";
import type { TensorInfo } from "../header.js";
import type { SafetensorsReader } from "../reader.js";
import { mxfp4BlocksFromPairs, nvfp4BlocksFromPairs } from "./encode.js";
import { CodeRangeError } from "../../errors.js";
import { GgufError } from "./errors.js";
import { ALIGNMENT_KEY, DEFAULT_ALIGNMENT, type GgufTensorType, type GgufValue, ggmlTypeByName } from "./format.js";
import { type PackedTensor, repack } from "./packed.js";
import { type GgufTensorSpec, GgufWriter, encodeValues } from "./writer.js";
import { kernelStatus } from "../../wasm/instance.js";
import { type GgufJob, JOB_CHUNKS, type JobContext, inOrder, writeBehind } from "../../checkpoint/jobs.js";
import { WorkerRunner, threadOptions } from "../../checkpoint/threads.js";
import { checkScale } from "../../checkpoint/decode.js";

/** Elements per chunk: a multiple of every block size, a few MB of buffers whatever the tensor size. */
const CHUNK_ELEMENTS = 1 << 20;

/** How writeGguf's steps were planned, so that workers can plan the same steps: the input and planGguf's options. */
export interface GgufWorkerPlan {
  readonly input: string;
  readonly type?: GgufTensorType;
  /** The names planGguf's `selected` accepted (undefined: all). */
  readonly selected?: readonly string[];
}

export interface GgufWriteOptions {
  readonly architecture?: string;
  readonly force?: boolean;
  readonly fsync?: boolean;
  /** With it, and a step of at least `minElements` elements, every step runs on worker threads that plan the same steps. */
  readonly plan?: GgufWorkerPlan;
  /** Worker threads (default: the logical processors, at most 8, on 3 or more, with a plan that has a heavy step of `minElements`; else 1). */
  readonly threads?: number;
  /** Without a step of this many elements, the file is written on the calling thread (default 2^22). */
  readonly minElements?: number;
}

/** `__metadata__` keys left out: minifloat's records of how the safetensors stored a tensor, which GGUF does not. */
const STORAGE_KEY = /^minifloat\./;

export interface GgufPlanOptions {
  /** Type of the selected float tensors of two or more dimensions (default: F32, F16, BF16 kept, others F32). */
  readonly type?: GgufTensorType;
  /** Which float tensors take `type` (default: all). */
  readonly selected?: (name: string) => boolean;
}

/** One GGUF tensor: its spec, how it is made (for progress lines) and the chunks of rows that make it. */
export interface GgufStep {
  readonly spec: GgufTensorSpec;
  readonly how: string;
  /** Elements it writes (progress units). */
  readonly elements: number;
  /** Whether its work per element is heavy enough for worker threads to pay off: ggml's MXFP4/NVFP4 search. */
  readonly heavy?: boolean;
  readonly chunks: number;
  /** Elements and stored bytes of chunk k. */
  chunkSize(k: number): { elements: number; bytes: number };
  /** The stored bytes of chunk k. */
  encode(k: number): Promise<Uint8Array>;
}

/** Stored bytes of `elements` elements (whole blocks) of a ggml type. */
function storedBytes(type: GgufTensorType, elements: number): number {
  const t = ggmlTypeByName(type)!;
  return (elements / t.blockSize) * t.typeSize;
}

export interface GgufProgress {
  advance(elements: number, index: number, name: string): void;
  finished(index: number, name: string, summary: string): void;
}

/** The GGUF tensors of a checkpoint, in stored order; a tensor that cannot be converted is an error. */
export async function planGguf(c: Checkpoint, options: GgufPlanOptions = {}): Promise<GgufStep[]> {
  const byName = new Map(c.tensors.map((t) => [t.name, t]));
  const steps: GgufStep[] = [];
  for (const t of c.tensors) {
    const packed = repack(t, byName);
    if (packed === undefined || typeof packed === "string") {
      steps.push(floatStep(c, t, options, packed));
      continue;
    }
    for (const p of packed) {
      if (p.kind === "bias") steps.push(biasStep(c, p));
      else if (p.kind === "mxfp4") steps.push(mxfp4Step(c, t, p));
      else steps.push(nvfp4Step(c, p), ...(await sideSteps(c, p)));
    }
  }
  return steps;
}

/** Writes the planned tensors to `path` (atomically: nothing is left there on error); returns the file size. */
export async function writeGguf(
  c: Checkpoint,
  steps: readonly GgufStep[],
  path: string,
  options: GgufWriteOptions = {},
  progress?: GgufProgress,
): Promise<number> {
  const metadata = new Map<string, GgufValue>();
  if (options.architecture !== undefined) metadata.set("general.architecture", { type: "STRING", value: options.architecture });
  metadata.set(ALIGNMENT_KEY, { type: "UINT32", value: DEFAULT_ALIGNMENT });
  // Shards repeat the same __metadata__ ({"format": "pt"}); the first shard's value of a key is kept.
  for (const reader of c.readers.values()) {
    for (const [k, v] of Object.entries(reader.metadata))
      if (!STORAGE_KEY.test(k) && !metadata.has(`safetensors.${k}`)) metadata.set(`safetensors.${k}`, { type: "STRING", value: v });
  }
  // By default only a plan with a heavy step goes to the workers: lighter ones (repacks, F16, Q8_0) move bytes, and
  // measured slower on two workers than on this thread.
  const { minElements } = threadOptions(options, false);
  const heavy = steps.some((s) => s.heavy && s.elements >= minElements);
  const { threads } = threadOptions(options, options.plan !== undefined && heavy);
  const remote = options.plan !== undefined && threads > 1 && steps.some((s) => s.elements >= minElements);
  const writer = await GgufWriter.create(
    path,
    steps.map((s) => s.spec),
    { metadata, force: options.force, fsync: options.fsync ?? false, protect: [...c.readers.values()].map((r) => r.path) },
  );
  let workers: WorkerRunner | undefined;
  try {
    if (remote) {
      // Every step's chunks in file order on the workers: a step does not wait for the one before to finish.
      workers = await WorkerRunner.create(threads);
      let finished = 0;
      const finishThrough = (last: number) => {
        for (; finished <= last; finished++) progress?.finished(finished, steps[finished]!.spec.name, steps[finished]!.how);
      };
      await inOrder(workers, planJobs(options.plan!, steps, writer), (_, job) => {
        progress?.advance(job.elements, job.step, steps[job.step]!.spec.name);
        if (job.first + job.count === steps[job.step]!.chunks) finishThrough(job.step);
      });
      finishThrough(steps.length - 1);
    } else {
      // Each chunk is written while the next is read and encoded (encode returns fresh bytes).
      for (const [i, s] of steps.entries()) {
        await writeBehind(
          s.chunks,
          (k) => s.encode(k),
          async (bytes, k) => {
            await writer.writeBytes(bytes);
            progress?.advance(s.chunkSize(k).elements, i, s.spec.name);
          },
        );
        progress?.finished(i, s.spec.name, s.how);
      }
    }
    await workers?.releaseOutput();
    await writer.commit();
  } catch (e) {
    await writer.abort();
    throw e;
  } finally {
    await workers?.close();
  }
  const last = writer.tensors.at(-1);
  return writer.dataOffset + (last ? last.offset + last.byteSize! : 0);
}

/** Ranges of up to JOB_CHUNKS chunks of every step in order, each written by a worker at its place in the file. */
function* planJobs(plan: GgufWorkerPlan, steps: readonly GgufStep[], writer: GgufWriter): Generator<GgufJob> {
  for (const [step, s] of steps.entries()) yield* stepJobs(plan, step, s, writer);
}

function* stepJobs(plan: GgufWorkerPlan, step: number, s: GgufStep, writer: GgufWriter): Generator<GgufJob> {
  for (let first = 0; first < s.chunks; first += JOB_CHUNKS) {
    const count = Math.min(JOB_CHUNKS, s.chunks - first);
    let [elements, bytes] = [0, 0];
    for (let k = first; k < first + count; k++) {
      const size = s.chunkSize(k);
      elements += size.elements;
      bytes += size.bytes;
    }
    yield { op: "gguf", ...plan, kernels: kernelStatus().enabled, step, first, count, elements, output: writer.reserveBytes(bytes) };
  }
}

/** A GgufJob on this thread: the plan made again from the same input and options, the job's chunks written in order. */
export async function ggufJob(job: GgufJob, context: JobContext): Promise<null> {
  const c = await context.checkpoint(job.input, false);
  const selected = job.selected && new Set(job.selected);
  const steps = await context.memo(`gguf:${job.type}:${job.selected?.join("\n")}`, () =>
    planGguf(c, { type: job.type, ...(selected && { selected: (name: string) => selected.has(name) }) }),
  );
  const s = steps[job.step]!;
  await writeBehind(job.count, (k) => s.encode(job.first + k), context.appender(job.output));
  return null;
}

/**
 * A float tensor read through the checkpoint: two or more dimensions to options.type when selected and its rows
 * (the last dimension, ggml's ne[0]) hold whole blocks, else kept (F16, BF16 as they are, others F32); 0-D and 1-D
 * tensors F32, as llama.cpp. F16 and BF16 are rounded once from the exact float64 values; F32 and the quantized
 * types take the values rounded once to float32, which ggml's reference quantizers then quantize (as llama.cpp).
 */
function floatStep(c: Checkpoint, t: CheckpointTensor, options: GgufPlanOptions, notRepacked?: string): GgufStep {
  if (!t.decodable) {
    throw new GgufError(
      `tensor "${t.name}"`,
      `${t.dtype} [${t.shape.join(", ")}] cannot be converted; allowed: floating-point tensors and the quantized conventions of docs/checkpoints.md (integer tensors are not written)`,
    );
  }
  const kept: GgufTensorType = t.shape.length >= 2 && (t.dtype === "F16" || t.dtype === "BF16") ? t.dtype : "F32";
  const row = t.shape.at(-1) ?? 1;
  const wanted = options.type !== undefined && t.shape.length >= 2 && (options.selected?.(t.name) ?? true) ? options.type : undefined;
  const block = wanted && ggmlTypeByName(wanted)!.blockSize;
  const type = wanted && row % block! === 0 ? wanted : kept;
  const from = t.scheme === "plain" ? t.dtype : `${t.dtype} (${t.scheme}${notRepacked ? `, decoded: ${notRepacked}` : ""})`;
  const how =
    wanted && type !== wanted
      ? `kept ${type}: rows of ${row} elements are not a multiple of the ${wanted} block (${block})`
      : `${from} -> ${type}${t.shape.length < 2 && type !== t.dtype ? " (1-D tensors stay F32)" : ""}`;
  // F16/BF16 round once from the exact values: float64 ones, or float32 where that holds them (plain F32/F16/BF16).
  const exact = (type === "F16" || type === "BF16") && !(t.scheme === "plain" && ["F32", "F16", "BF16"].includes(t.dtype));
  const count = (k: number) => Math.min(CHUNK_ELEMENTS, t.length - k * CHUNK_ELEMENTS);
  // The block quantizers return new bytes, so one float32 buffer serves every chunk (chunks are encoded one at a
  // time: writeBehind); F32 output is the values' own bytes and gets a new array each time.
  const reused = type === "Q8_0" || type === "MXFP4" || type === "NVFP4";
  let buffer: Float32Array | undefined;
  const into = (n: number) => {
    if (!reused) return undefined;
    if (!buffer || buffer.length < n) buffer = new Float32Array(n);
    return buffer.subarray(0, n);
  };
  return {
    spec: { name: t.name, type, shape: t.shape.length === 0 ? [1] : t.shape },
    how,
    elements: t.length,
    heavy: type === "MXFP4" || type === "NVFP4",
    chunks: Math.ceil(t.length / CHUNK_ELEMENTS),
    chunkSize: (k) => ({ elements: count(k), bytes: storedBytes(type, count(k)) }),
    async encode(k) {
      const start = k * CHUNK_ELEMENTS;
      const values = exact
        ? await c.readExact(t.name, start, count(k))
        : ((await c.readRounded(t.name, "F32", start, count(k), into(count(k)))) as Float32Array);
      try {
        return encodeValues(type, values);
      } catch (e) {
        // The encoder names the element of its chunk; the user needs the tensor's.
        const at = e instanceof CodeRangeError ? /^values\[(\d+)\]$/.exec(e.argument) : null;
        if (!at) throw e;
        const v = values[Number(at[1])];
        throw new GgufError(`tensor "${t.name}"`, `element ${start + Number(at[1])} is ${v}; allowed: finite values (${type} encodes no NaN or infinity)`);
      }
    },
  };
}

/**
 * MXFP4 from nibble pairs (gpt-oss blocks, compressed-tensors weight_packed: byte k holds element 2k low, 2k + 1
 * high): E8M0 scale bytes copied, each block's pairs split into GGUF's halves; rows picked by p.pick.
 */
function mxfp4Step(c: Checkpoint, t: CheckpointTensor, p: PackedTensor): GgufStep {
  const [codes, scales] = p.sources as [CheckpointPart, CheckpointPart];
  const G = p.shape.at(-1)! / 32;
  const rows = p.pick.step === 2 ? ` rows ${p.pick.first}::2` : "";
  const from = t.scheme === "gpt-oss-mxfp4" ? `gpt-oss MXFP4 ${codes.name.replace(/.*\./, "")}${rows}` : "compressed-tensors MXFP4";
  return packedStep(c, p, "MXFP4", `${from} -> MXFP4 (repacked, exact)`, {
    sources: [
      [codes, 16 * G],
      [scales, G],
    ],
    encode: ([pairs, e]) => mxfp4BlocksFromPairs(e8m0(e!, scales), pairs!),
  });
}

/** ModelOpt NVFP4: codes low nibble first into GGUF's sub-block halves, E4M3 scale bytes copied. */
function nvfp4Step(c: Checkpoint, p: PackedTensor): GgufStep {
  const [weight, scale] = p.sources as [CheckpointPart, CheckpointPart];
  const K = p.shape.at(-1)!;
  return packedStep(c, p, "NVFP4", "ModelOpt NVFP4 -> NVFP4 (repacked, exact)", {
    sources: [
      [weight, K / 2],
      [scale, K / 16],
    ],
    encode: ([pairs, scaleBytes]) => nvfp4BlocksFromPairs(ue4m3(scaleBytes!, scale), pairs!),
  });
}

/** A gpt-oss gate_up bias: elements first::2 of each row (gate or up), F32 as llama.cpp writes biases. */
function biasStep(c: Checkpoint, p: PackedTensor): GgufStep {
  const bias = p.bias!;
  const row = bias.shape.at(-1)!;
  const rows = bias.length / row;
  const perChunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / row));
  const elements = (k: number) => (Math.min(perChunk, rows - k * perChunk) * row) / 2;
  return {
    spec: { name: p.name, type: "F32", shape: p.shape },
    how: `${bias.dtype} ${bias.name.replace(/.*\./, "")} elements ${p.pick.first}::2 -> F32`,
    elements: bias.length / 2,
    chunks: Math.ceil(rows / perChunk),
    chunkSize: (k) => ({ elements: elements(k), bytes: 4 * elements(k) }),
    async encode(k) {
      const values = await c.readRounded(bias.name, "F32", k * perChunk * row, 2 * elements(k));
      const picked = new Float32Array(elements(k));
      for (let i = 0; i < picked.length; i++) picked[i] = values[p.pick.first + 2 * i]!;
      return encodeValues("F32", picked);
    },
  };
}

/**
 * The F32 scalars beside an NVFP4 weight, copied byte for byte (llama.cpp multiplies them in at run time, so each is
 * checked as dequantize checks it); llama.cpp leaves out a scalar of 1, here only an exact 1.
 */
async function sideSteps(c: Checkpoint, p: PackedTensor): Promise<GgufStep[]> {
  const steps: GgufStep[] = [];
  for (const [part, name] of p.sides ?? []) {
    const { reader, t } = stored(c, part);
    const value = (await reader.readValues(t))[0]!;
    checkScale(value, { t, reader, file: part.file }, 0, false);
    if (value === 1) continue;
    steps.push({
      spec: { name, type: "F32", shape: [1] },
      how: `${part.name} F32 -> F32`,
      elements: 1,
      chunks: 1,
      chunkSize: () => ({ elements: 1, bytes: 4 }),
      encode: () => reader.readTensorBytes(t, 0, 4),
    });
  }
  return steps;
}

interface Repack {
  /** Each source part with its bytes per row. */
  readonly sources: readonly (readonly [CheckpointPart, number])[];
  /** Stored GGUF bytes of whole rows from the same rows of every source. */
  encode(rows: Uint8Array[]): Uint8Array;
}

/** Chunks of whole rows of the packed sources (which may live in different shards), rows first, first + step, ... of them, re-encoded. */
function packedStep(c: Checkpoint, p: PackedTensor, type: GgufTensorType, how: string, r: Repack): GgufStep {
  const rowElements = p.shape.at(-1)!;
  const rows = p.shape.slice(0, -1).reduce((a, b) => a * b, 1);
  const perChunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / rowElements));
  const { first, step } = p.pick;
  const sources = r.sources.map(([part, bytes]) => ({ ...stored(c, part), bytes }));
  const rowsOf = (k: number) => Math.min(perChunk, rows - k * perChunk);
  return {
    spec: { name: p.name, type, shape: p.shape },
    how,
    elements: rows * rowElements,
    chunks: Math.ceil(rows / perChunk),
    chunkSize: (k) => ({ elements: rowsOf(k) * rowElements, bytes: storedBytes(type, rowsOf(k) * rowElements) }),
    async encode(k) {
      const n = rowsOf(k);
      const from = first + step * k * perChunk;
      const span = step * (n - 1) + 1;
      const parts = await Promise.all(sources.map((s) => s.reader.readTensorBytes(s.t, from * s.bytes, span * s.bytes)));
      const picked = parts.map((b, i) => (step === 1 ? b : pickRows(b, sources[i]!.bytes, n, step)));
      try {
        return r.encode(picked);
      } catch (e) {
        throw e instanceof GgufError ? e : new GgufError(`tensor "${p.sources[0]!.name}"`, `cannot be converted: ${(e as Error).message}`);
      }
    },
  };
}

/** The stored tensor of a part, in its own shard. */
function stored(c: Checkpoint, part: CheckpointPart): { reader: SafetensorsReader; t: TensorInfo } {
  const reader = c.readers.get(part.file)!;
  return { reader, t: reader.tensor(part.name) };
}

function pickRows(bytes: Uint8Array, rowBytes: number, n: number, step: number): Uint8Array {
  const out = new Uint8Array(n * rowBytes);
  for (let i = 0; i < n; i++) out.set(bytes.subarray(i * step * rowBytes, (i * step + 1) * rowBytes), i * rowBytes);
  return out;
}

/** E8M0 scale bytes, which GGUF stores as they are; 0xFF (NaN) is refused: ggml would read it as 2^128. */
function e8m0(bytes: Uint8Array, part: CheckpointPart): Uint8Array {
  if (bytes.includes(0xff)) throw new GgufError(`tensor "${part.name}"`, "has scale byte 0xff (NaN); allowed: E8M0 scales 0x00…0xFE");
  return bytes;
}

/**
 * E4M3 scale bytes as GGUF's unsigned ones: −0 (0x80) becomes 0. llama.cpp clears the sign bit of every byte,
 * which would flip a negative scale's block; those and NaN (0x7F, 0xFF) are refused instead.
 */
function ue4m3(bytes: Uint8Array, part: CheckpointPart): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let bad = -1;
  for (let i = 0; i < out.length; i++) {
    out[i] = bytes[i] === 0x80 ? 0 : bytes[i]!;
    if (out[i]! >= 0x7f && bad < 0) bad = i;
  }
  if (bad >= 0) {
    throw new GgufError(`tensor "${part.name}"`, `has scale byte 0x${out[bad]!.toString(16)}; allowed: non-negative, non-NaN E4M3 scales (0x00…0x7E, 0x80)`);
  }
  return out;
}
