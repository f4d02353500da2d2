// openCheckpoint: one API over a .safetensors file, a model directory (sharded with model.safetensors.index.json,
// or a single *.safetensors), a .gguf file, a Blob/File or a ByteSource. It lists logical tensors (a weight with
// its scale tensors, named by convention) and reads ranges of them dequantized exactly. Node modules are loaded on
// demand, so the Blob/ByteSource part runs in browsers.
import { blockLayouts, type BlockLayout } from "../io/blocks.js";
import { SafetensorsReader } from "../io/reader.js";
import { BlobSource, type ByteSource } from "../io/source.js";
import { ArgumentTypeError, CodeRangeError, describe } from "../errors.js";
import { checkOptions } from "../options.js";
import { type QuantConfig, isObject, parseQuantConfig } from "./config.js";
import { type Target, codedBlocks, into, readRange, readRounded, roundTo } from "./decode.js";
import { CheckpointError } from "./errors.js";
import { quantize } from "../api/bulk.js";
import { requireAttached } from "../api/validate.js";
import { kernels } from "../wasm/instance.js";
import { WasmArray } from "../wasm/memory.js";
import { type CheckpointTensor, type Entry, recognize } from "./recognize.js";
import type { GatherRoom } from "./room.js";

export type CheckpointInput = string | Blob | ByteSource;

export interface CheckpointOptions {
  /** Do not apply other tools' conventions: their scale tensors become plain tensors (minifloat's own still apply). */
  raw?: boolean;
  /** config.json contents for a Blob or ByteSource input (a path input reads the file beside it). */
  config?: unknown;
  /** hf_quant_config.json contents for a Blob or ByteSource input. */
  hfQuantConfig?: unknown;
}

export const INDEX_FILE = "model.safetensors.index.json";

/** Exact values of a range of a logical tensor. */
type Decoder = (t: CheckpointTensor, start: number, count: number) => Promise<Float64Array>;
/** A range of a logical tensor rounded once to a target. */
type Rounder = (
  t: CheckpointTensor,
  start: number,
  count: number,
  to: Target,
  out?: Float32Array | Uint16Array,
  room?: GatherRoom,
) => Promise<Float32Array | Uint16Array>;

export class Checkpoint {
  private readonly byName: Map<string, CheckpointTensor>;

  /** Use openCheckpoint. */
  constructor(
    /** The path, Blob name or source name given. */
    readonly name: string,
    readonly kind: "safetensors" | "directory" | "gguf",
    /** The tensor files (shard names for a directory, as the index lists them). */
    readonly files: readonly string[],
    /** config.json as parsed, when present. */
    readonly config: Readonly<Record<string, unknown>> | undefined,
    /** The convention the configs declare, if any. */
    readonly quantization: QuantConfig | undefined,
    /** Logical tensors in stored order. */
    readonly tensors: readonly CheckpointTensor[],
    /** Per file: its safetensors reader (empty for GGUF). */
    readonly readers: ReadonlyMap<string, SafetensorsReader>,
    private readonly decode: Decoder,
    private readonly round: Rounder,
    private readonly closeAll: () => Promise<void>,
    private readonly coded: (t: CheckpointTensor) => boolean = () => false,
  ) {
    this.byName = new Map(tensors.map((t) => [t.name, t]));
  }

  tensor(name: string): CheckpointTensor {
    const t = this.byName.get(name);
    if (!t) throw new CheckpointError("name", `${JSON.stringify(name)} is not a tensor of ${this.name}`);
    return t;
  }

  /**
   * Exact values of elements [start, start + count) (row r of a tensor with rows of K elements starts at r·K):
   * float64 holds every decoded product exactly; a compressed-tensors NVFP4 quotient is rounded once to float64,
   * which rounds on to float32/float16/bfloat16 exactly as the exact quotient would (docs/checkpoints.md).
   */
  async readExact(name: string, start = 0, count?: number): Promise<Float64Array> {
    const t = this.tensor(name);
    const n = count ?? t.length - start;
    checkRange(t, start, n);
    if (!t.decodable) throw new CheckpointError(`tensor "${name}"`, `has dtype ${t.dtype}, which holds integers; allowed: floating-point tensors`);
    return this.decode(t, start, n);
  }

  /**
   * Elements [start, start + count) rounded once to F32 (a Float32Array), F16 or BF16 (a Uint16Array of binary16 /
   * bfloat16 bit patterns): what a converter writes, without a float64 array per element on the way. Into `out`
   * when given (a converter reuses its buffers). `room`: Wasm-memory buffers a converter lends for reading and
   * rounding block-scaled byte codes without copies (dequantizeCheckpoint's; see room.ts).
   */
  async readRounded(
    name: string,
    to: Target,
    start = 0,
    count?: number,
    out?: Float32Array | Uint16Array,
    room?: GatherRoom,
  ): Promise<Float32Array | Uint16Array> {
    const t = this.tensor(name);
    const n = count ?? t.length - start;
    checkRange(t, start, n);
    if (!t.decodable) throw new CheckpointError(`tensor "${name}"`, `has dtype ${t.dtype}, which holds integers; allowed: floating-point tensors`);
    const type = to === "F32" ? Float32Array : Uint16Array;
    if (out instanceof type) requireAttached(out, "out");
    if (out !== undefined && (!(out instanceof type) || out.length !== n))
      throw new CodeRangeError("out", `has ${out?.length} elements; allowed: a ${type.name} of ${n}`);
    return this.round(t, start, n, to, out, room);
  }

  /** Values of elements [start, start + count) rounded once to float32, into `out` when given. */
  async read(name: string, start = 0, count?: number, out?: Float32Array): Promise<Float32Array> {
    const exact = await this.readExact(name, start, count);
    if (out instanceof Float32Array) requireAttached(out, "out");
    if (out !== undefined && (!(out instanceof Float32Array) || out.length !== exact.length))
      throw new CodeRangeError("out", `has ${out?.length} elements; allowed: a Float32Array of ${exact.length}`);
    const target = out ?? new Float32Array(exact.length);
    target.set(exact); // float64 → float32 conversion is one round to nearest even
    return target;
  }

  /**
   * @internal Whether readRounded gathers t's elements by (element code, scale code) tables in Wasm: small blocks
   * whose scales are codes, with the kernels running. A converter lends it a room (room.ts) for its codes.
   */
  codedBlocks(t: CheckpointTensor): boolean {
    return this.coded(t);
  }

  async close(): Promise<void> {
    await this.closeAll();
  }

  /** Opens a checkpoint (see the file comment); the caller closes it. */
  static async open(input: CheckpointInput, given?: CheckpointOptions): Promise<Checkpoint> {
    const options: CheckpointOptions = checkOptions(given, ["raw", "config", "hfQuantConfig"]);
    requireCheckpointInput(input);
    if (typeof input !== "string") {
      const source = input instanceof Blob ? new BlobSource(input) : input;
      if (await sourceIsGguf(source)) return openGgufCheckpoint(source, source.name);
      const readers = new Map([[source.name, await SafetensorsReader.open(source)]]);
      try {
        return build(source.name, "safetensors", [source.name], readers, options.config, options.hfQuantConfig, "", options);
      } catch (e) {
        await readers.get(source.name)!.close();
        throw e;
      }
    }
    const fs = await import("node:fs/promises");
    const { basename, dirname, join } = await import("node:path");
    const info = await fs.stat(input).catch(() => undefined);
    const json = async (path: string): Promise<unknown> => {
      let text: string;
      try {
        text = await fs.readFile(path, "utf8");
      } catch {
        return undefined;
      }
      try {
        return JSON.parse(text);
      } catch (e) {
        throw new CheckpointError(path, `is not valid JSON (${(e as Error).message})`);
      }
    };
    const dir = info?.isDirectory() ? input : dirname(input);
    const config = options.config ?? (await json(join(dir, "config.json")));
    const hf = options.hfQuantConfig ?? (await json(join(dir, "hf_quant_config.json")));
    if (!info?.isDirectory() && (input.endsWith(".gguf") || (await isGguf(input)))) return openGgufCheckpoint(input, basename(input));
    const files = info?.isDirectory() ? await shardsOf(input, fs, join) : [basename(input)];
    const readers = new Map<string, SafetensorsReader>();
    try {
      for (const f of files) readers.set(f, await SafetensorsReader.open(info?.isDirectory() ? join(input, f) : input));
      if (info?.isDirectory()) await checkIndex(input, readers, await json(join(input, INDEX_FILE)));
      return build(input, info?.isDirectory() ? "directory" : "safetensors", files, readers, config, hf, `${dir}/`, options);
    } catch (e) {
      for (const r of readers.values()) await r.close();
      throw e;
    }
  }
}

/** Opens a checkpoint: see Checkpoint.open. */
export function openCheckpoint(input: CheckpointInput, options?: CheckpointOptions): Promise<Checkpoint> {
  return Checkpoint.open(input, options);
}

/** A path where there is a file system (Node), a Blob or File, or a ByteSource; anything else is a typed error. */
function requireCheckpointInput(input: unknown): void {
  const node = typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === "string";
  if (typeof input === "string") {
    if (node) return;
    throw new ArgumentTypeError(
      "input",
      `got the string ${JSON.stringify(input)}; allowed here: a Blob, File or ByteSource (paths are Node's; for a URL, HttpSource.open(url))`,
    );
  }
  if (typeof Blob !== "undefined" && input instanceof Blob) return;
  const source = input as Partial<ByteSource> | null;
  if (
    source !== null &&
    typeof source === "object" &&
    typeof source.read === "function" &&
    typeof source.close === "function" &&
    typeof source.size === "number"
  )
    return;
  throw new ArgumentTypeError("input", `got ${describe(input)}; allowed: ${node ? "a path, " : ""}a Blob or File, or a ByteSource`);
}

/** A Checkpoint of safetensors readers; the caller closes them if this throws. */
function build(
  name: string,
  kind: "safetensors" | "directory",
  files: readonly string[],
  readers: Map<string, SafetensorsReader>,
  config: unknown,
  hf: unknown,
  where: string,
  options: CheckpointOptions,
): Checkpoint {
  const quantization = options.raw ? undefined : parseQuantConfig(config, hf, where);
  const entries: Entry[] = [];
  const blocks = new Map<string, BlockLayout>();
  const seen = new Map<string, string>();
  for (const [file, reader] of readers) {
    for (const t of reader.tensors) {
      if (seen.has(t.name)) throw new CheckpointError(`tensor "${t.name}"`, `is stored twice: in ${seen.get(t.name)} and in ${file}`);
      seen.set(t.name, file);
      entries.push({ t, reader, file });
    }
    for (const [n, b] of blockLayouts(reader)) blocks.set(n, b);
  }
  const recipes = new Map(recognize(entries, blocks, quantization, options.raw ?? false).map((r) => [r.tensor.name, r]));
  const tensors = [...recipes.values()].map((r) => r.tensor);
  const close = async () => {
    for (const r of readers.values()) await r.close();
  };
  const cfg = isObject(config) ? config : undefined;
  const decode: Decoder = (t, s, c) => readRange(recipes.get(t.name)!, s, c);
  const round: Rounder = (t, s, c, to, out, room) => readRounded(recipes.get(t.name)!, s, c, to, out, room);
  const coded = (t: CheckpointTensor) => kernels() !== undefined && codedBlocks(recipes.get(t.name)!);
  return new Checkpoint(name, kind, files, cfg, quantization, tensors, readers, decode, round, close, coded);
}

/** A directory's tensor files: the index's shards in order of first mention, else its one *.safetensors. */
async function shardsOf(dir: string, fs: typeof import("node:fs/promises"), join: (...p: string[]) => string): Promise<string[]> {
  const names = await fs.readdir(dir);
  if (names.includes(INDEX_FILE)) {
    const index = JSON.parse(await fs.readFile(join(dir, INDEX_FILE), "utf8")) as unknown;
    const map = isObject(index) ? index.weight_map : undefined;
    if (!isObject(map) || !Object.values(map).every((v) => typeof v === "string"))
      throw new CheckpointError(`${dir}/${INDEX_FILE}`, "has no weight_map; allowed: {metadata, weight_map: {tensor: shard file}}");
    const shards = [...new Set(Object.values(map) as string[])];
    for (const s of shards)
      if (s.includes("/") || s.includes("\\") || s.startsWith("."))
        throw new CheckpointError(`${dir}/${INDEX_FILE}`, `names shard ${JSON.stringify(s)}; allowed: a file name in the directory`);
    return shards;
  }
  const files = names.filter((n) => n.endsWith(".safetensors")).sort();
  if (files.length === 1) return files;
  throw new CheckpointError(
    dir,
    files.length === 0
      ? `has no ${INDEX_FILE} and no .safetensors file; allowed: a model directory or a .safetensors/.gguf file`
      : `has ${files.length} .safetensors files and no ${INDEX_FILE} to say how they form one model`,
  );
}

/** The index's weight_map must name each tensor's actual shard (a scale looked up in the wrong shard is a bug). */
async function checkIndex(dir: string, readers: ReadonlyMap<string, SafetensorsReader>, index: unknown): Promise<void> {
  if (!isObject(index)) return;
  const map = index.weight_map as Record<string, string>;
  for (const [file, r] of readers) {
    for (const t of r.tensors) {
      if (map[t.name] !== file)
        throw new CheckpointError(`${dir}/${INDEX_FILE}`, `maps tensor "${t.name}" to ${map[t.name] ?? "nothing"}, but it is stored in ${file}`);
    }
  }
}

async function isGguf(path: string): Promise<boolean> {
  const { open } = await import("node:fs/promises");
  const h = await open(path, "r").catch(() => undefined);
  if (!h) return false;
  try {
    const b = new Uint8Array(4);
    await h.read(b, 0, 4, 0);
    return String.fromCharCode(...b) === "GGUF";
  } finally {
    await h.close();
  }
}

/** Whether a source starts with GGUF's magic (a Blob or a server file has no name to go by). */
async function sourceIsGguf(source: ByteSource): Promise<boolean> {
  return source.size >= 4 && String.fromCharCode(...(await source.read(0, 4))) === "GGUF";
}

/** A GGUF file as a checkpoint: each tensor its own logical tensor, decoded as ggml decodes it. */
async function openGgufCheckpoint(input: string | ByteSource, file: string): Promise<Checkpoint> {
  const { GgufReader } = await import("../io/gguf/reader.js");
  const reader = await GgufReader.open(input);
  const tensors = reader.tensors.map(
    (t): CheckpointTensor => ({
      name: t.name,
      scheme: `gguf:${t.typeName}`,
      dtype: t.typeName,
      shape: t.shape,
      length: t.length,
      ...(t.type && t.type.blockSize > 1 && { blockShape: [1, t.type.blockSize] as const }),
      parts: [{ role: "weight", name: t.name, dtype: t.typeName, shape: t.shape, file }],
      decodable: !/^I\d/.test(t.typeName),
    }),
  );
  // ggml's float32 values are exact: float64 holds them, and rounding the float32 values once to a target rounds the
  // exact values.
  const decode: Decoder = async (t, start, count) => new Float64Array(await reader.readValues(reader.tensor(t.name), start, count));
  // Decoded into one Float32Array in Wasm memory kept for the checkpoint and rounded from there (no copy of the
  // values out and back in). Only the read awaits: decode and rounding run without a pause, so ranges read at the
  // same time never share the buffer.
  let buffer: WasmArray<Float32Array> | undefined;
  const round: Rounder = async (t, start, count, to, out) => {
    const read = await reader.readBlocks(reader.tensor(t.name), start, count);
    if (!kernels()) {
      const values = new Float32Array(read.elements);
      reader.decode(read, values);
      return into(roundTo(values.subarray(read.skip, read.skip + count), to), out);
    }
    if (!buffer || buffer.length < read.elements) {
      buffer?.free();
      buffer = new WasmArray(Float32Array, read.elements);
    }
    reader.decode(read, buffer.array);
    // A view made now: the decode's allocations may have grown the memory and detached the one it was given.
    const values = buffer.array.subarray(read.skip, read.skip + count);
    if (to === "F32") return out ? into(values, out) : values.slice();
    return quantize(values, to === "F16" ? "binary16" : "bfloat16", out ? { out: out as Uint16Array } : {}) as Uint16Array;
  };
  const close = async () => {
    buffer?.free();
    await reader.close();
  };
  return new Checkpoint(reader.path, "gguf", [file], undefined, undefined, tensors, new Map(), decode, round, close);
}

function checkRange(t: CheckpointTensor, start: number, count: number): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(count) || start < 0 || count < 0 || start + count > t.length)
    throw new CodeRangeError("start, count", `are ${start}, ${count}; allowed: a range within the ${t.length} elements of "${t.name}"`);
}
