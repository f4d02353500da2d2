// A model directory (or one safetensors file) into a quantized model directory of a checkpoint convention: every
// shard rewritten under its own name, the scale tensors beside their weights (same shard), the shard index's
// weight_map updated, config.json's quantization_config set (ModelOpt: hf_quant_config.json), every other file
// copied. The result is built in a temporary directory next to the output and moved into place only when complete.
import { existsSync, realpathSync } from "node:fs";
import { cp, mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { pending, temporaryPath } from "../io/atomic.js";
import { IoError, SafetensorsError } from "../io/errors.js";
import { fsError } from "../io/fs-errors.js";
import type { TensorSpec } from "../io/header.js";
import type { ErrorSums } from "../wasm/stats.js";
import { SafetensorsReader } from "../io/reader.js";
import { SafetensorsWriter } from "../io/writer.js";
import { hfQuantConfig, quantizationConfig } from "./produce-config.js";
import { type ProducedTensor, isCandidate, produceTensor } from "./produce.js";
import type { Granularity, ProducedScheme } from "./scales.js";
import { JobContext } from "./jobs.js";
import { inlineRunner } from "./run-job.js";
import { WorkerRunner, threadOptions } from "./threads.js";

const INDEX = "model.safetensors.index.json";
/** Copied tensors stream in pieces of this many bytes. */
const COPY_BYTES = 8 << 20;
/** Files the output writes itself rather than copies. */
const WRITTEN = new Set([INDEX, "config.json", "hf_quant_config.json"]);

export interface ProduceJob {
  /** A .safetensors file or a model directory. */
  readonly input: string;
  /** The output directory. */
  readonly output: string;
  readonly scheme: ProducedScheme;
  /** compressed-tensors-fp8's scale granularity (default "tensor"; the other schemes have one). */
  readonly granularity?: Granularity;
  /** --only: replaces the convention's choice of tensors (shape and dtype still have to fit). */
  readonly selected?: (name: string) => boolean;
  /** Replace an existing output directory (default: refuse). */
  readonly force?: boolean;
  /** Flush each shard to the disk before the directory is moved into place (default false). */
  readonly fsync?: boolean;
  /** Worker threads for weights of at least `minElements` elements (default: the logical processors, at most 8, on 3 or more; else 1: this thread only). */
  readonly threads?: number;
  /** Weights with fewer elements are quantized on the calling thread (default 2^22). */
  readonly minElements?: number;
  /** Called after each shard with its tensor counts. */
  readonly progress?: (shard: string, quantized: number, copied: number) => void;
  /** Receives the error sums of every band of a quantized weight in order (its decoded values against its input), then the weight's elapsed seconds. */
  readonly observe?: (tensor: string, sums: ErrorSums, elements: number) => void;
  readonly quantized?: (tensor: string, seconds: number) => void;
}

export interface ProduceResult {
  readonly shards: number;
  readonly quantized: readonly string[];
  readonly copied: number;
}

/** Runs a job; on any error the temporary directory is removed and the output path is untouched. */
export async function produceCheckpoint(job: ProduceJob): Promise<ProduceResult> {
  const { shards, directory, isDirectory, index } = await inputShards(job.input);
  const config = await readJson(join(directory, "config.json"));
  const method = config?.quantization_config ?? (existsSync(join(directory, "hf_quant_config.json")) ? "modelopt" : undefined);
  if (method !== undefined) {
    const name = typeof method === "object" && method !== null ? (method as Record<string, unknown>).quant_method : method;
    throw new IoError(job.input, `is already quantized (${JSON.stringify(name)}); allowed: an unquantized model (dequantize it first)`);
  }
  const target = resolve(job.output);
  if (existsSync(target)) {
    if (!job.force) throw new IoError(job.output, "exists; allowed: a new path, or --force to replace it");
    if (realpathSync(target) === realpathSync(directory) || shards.some((s) => realpathSync(s) === realpathSync(target))) {
      throw new IoError(job.output, "is also the input; allowed: a different output path (inputs are never modified)");
    }
  }
  if (!existsSync(dirname(target))) throw new IoError(job.output, `directory ${dirname(target)} does not exist; allowed: a path in an existing directory`);
  const { threads, minElements } = threadOptions(job);
  const temp = temporaryPath(target);
  await mkdir(temp).catch((e) => {
    throw fsError(e, job.output);
  });
  pending.add(temp);
  const context = new JobContext();
  const inline = inlineRunner(context);
  let workers: WorkerRunner | undefined;
  try {
    const quantized: string[] = [];
    const kept: string[] = [];
    const weightMap: Record<string, string> = {};
    let copied = 0;
    let totalSize = 0;
    for (const shard of shards) {
      const reader = await SafetensorsReader.open(shard);
      context.use(reader);
      try {
        const plans: (ProducedTensor | undefined)[] = reader.tensors.map((t) =>
          isCandidate(t, job.scheme, job.selected) ? produceTensor(t, job.scheme, job.granularity ?? "tensor") : undefined,
        );
        const specs: TensorSpec[] = reader.tensors.flatMap(
          (t, i) => plans[i]?.specs ?? [{ name: t.name, dtype: t.dtype, shape: t.shape, ...(t.format && t.info.kind === "int" && { format: t.format }) }],
        );
        for (const [i, t] of reader.tensors.entries()) {
          if (plans[i]) quantized.push(plans[i].module);
          else if (t.shape.length === 2 && t.name.endsWith(".weight") && !/embed|wte|wpe/.test(t.name)) kept.push(t.name.slice(0, -".weight".length));
        }
        const name = basename(shard);
        for (const s of specs) weightMap[s.name] = name;
        const writer = await SafetensorsWriter.create(join(temp, name), specs, { metadata: reader.metadata, fsync: job.fsync ?? false });
        try {
          for (const [i, t] of reader.tensors.entries()) {
            const plan = plans[i];
            if (plan) {
              const started = performance.now();
              const runner = threads > 1 && t.length >= minElements ? (workers ??= await WorkerRunner.create(threads)) : inline;
              await plan.write(reader, writer, runner, job.observe && ((sums, elements) => job.observe!(t.name, sums, elements)));
              job.quantized?.(t.name, (performance.now() - started) / 1000);
              continue;
            }
            for (let at = 0; at < t.end - t.begin; at += COPY_BYTES) {
              await writer.writeBytes(await reader.readTensorBytes(t, at, Math.min(COPY_BYTES, t.end - t.begin - at)));
            }
            copied++;
          }
          await workers?.releaseOutput();
          await writer.commit();
        } catch (e) {
          await writer.abort();
          throw e;
        }
        totalSize += writer.tensors.reduce((n, t) => n + t.end - t.begin, 0);
        job.progress?.(name, plans.filter(Boolean).length, plans.length - plans.filter(Boolean).length);
      } finally {
        await reader.close();
      }
    }
    if (quantized.length === 0) {
      throw new SafetensorsError(
        job.input,
        `has no tensor ${job.selected ? "matching --only " : ""}that ${job.scheme} quantizes (${job.scheme === "gpt-oss-mxfp4" ? "3-D MoE expert tensors *.mlp.experts.gate_up_proj / down_proj" : "2-D *.weight tensors of F16, BF16, F32 or F64"}); no output written`,
      );
    }
    // lm_head is listed even when absent (tied embeddings), as the tools' own configs do, unless --only quantized it.
    const modules = { quantized, kept: [...new Set([...kept, ...(quantized.includes("lm_head") ? [] : ["lm_head"])])].sort() };
    if (index) await writeJson(join(temp, INDEX), { ...index, metadata: { ...(index.metadata as object), total_size: totalSize }, weight_map: weightMap });
    const qc = quantizationConfig(job.scheme, job.granularity ?? "tensor", modules);
    if (qc) await writeJson(join(temp, "config.json"), { ...config, quantization_config: qc });
    else if (config) await writeJson(join(temp, "config.json"), config);
    const hf = hfQuantConfig(job.scheme, modules);
    if (hf) await writeJson(join(temp, "hf_quant_config.json"), hf);
    if (isDirectory) await copyOthers(directory, temp, target, shards);
    await place(temp, target, job.force ?? false);
    return { shards: shards.length, quantized, copied };
  } finally {
    await Promise.all([workers?.close(), context.close()]);
    await rm(temp, { recursive: true, force: true });
    pending.delete(temp);
  }
}

/** The shards of the input: the index's files, every *.safetensors of a directory, or the one file. */
async function inputShards(input: string): Promise<{ shards: string[]; directory: string; isDirectory: boolean; index?: Record<string, unknown> }> {
  let s: Awaited<ReturnType<typeof stat>>;
  try {
    s = await stat(input);
  } catch (e) {
    throw fsError(e, input);
  }
  if (!s.isDirectory()) return { shards: [input], directory: dirname(resolve(input)), isDirectory: false };
  const index = await readJson(join(input, INDEX));
  if (index) {
    const map = index.weight_map;
    if (map === null || typeof map !== "object") throw new SafetensorsError(join(input, INDEX), 'has no "weight_map" object {tensor: shard file}');
    const files = [...new Set(Object.values(map as Record<string, unknown>).map(String))].sort();
    return { shards: files.map((f) => join(input, f)), directory: resolve(input), isDirectory: true, index };
  }
  const files = (await readdir(input)).filter((f) => f.endsWith(".safetensors")).sort();
  if (files.length === 0) throw new IoError(input, "holds no .safetensors file; allowed: a model directory or a .safetensors file");
  return { shards: files.map((f) => join(input, f)), directory: resolve(input), isDirectory: true };
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  if (!existsSync(path)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (e) {
    throw new SafetensorsError(path, `is not valid JSON (${(e as Error).message})`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new SafetensorsError(path, "must hold a JSON object");
  return json as Record<string, unknown>;
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`, { flag: "wx" });
}

/** Every other entry of the model directory (tokenizer, generation config, ...), copied recursively; an output inside it is not. */
async function copyOthers(directory: string, temp: string, target: string, shards: readonly string[]): Promise<void> {
  const skip = new Set(shards.map((s) => basename(s)));
  for (const entry of await readdir(directory)) {
    if (skip.has(entry) || WRITTEN.has(entry) || entry.endsWith(".safetensors")) continue;
    if ([temp, target].includes(join(directory, entry))) continue;
    await cp(join(directory, entry), join(temp, entry), { recursive: true, errorOnExist: true, force: false });
  }
}

/** Moves the finished directory into place; with force, the old output is moved aside first and removed after. */
async function place(temp: string, target: string, force: boolean): Promise<void> {
  try {
    if (!existsSync(target)) {
      await rename(temp, target);
      return;
    }
    if (!force) throw Object.assign(new Error("exists"), { code: "EEXIST" });
    const old = `${temp}.old`;
    await rename(target, old);
    await rename(temp, target);
    await rm(old, { recursive: true, force: true });
  } catch (e) {
    throw fsError(e, target);
  }
}
