// safetensors → GGUF: every tensor gets a plan (a float tensor to a ggml type, a gpt-oss or ModelOpt packed 4-bit
// tensor repacked without re-rounding), then the plans stream in chunks of rows into a GgufWriter, so memory stays
// bounded whatever the file size and the file appears only when complete.
import { unpackCodes } from "../../api/packed.js";
import { BLOCK_KEY_PREFIX, SCALES_SUFFIX } from "../blocks.js";
import type { TensorInfo } from "../header.js";
import type { SafetensorsReader } from "../reader.js";
import { mxfp4BlocksFromPairs, nvfp4Blocks } from "./encode.js";
import { GgufError } from "./errors.js";
import { ALIGNMENT_KEY, DEFAULT_ALIGNMENT, type GgufTensorType, type GgufValue, ggmlTypeByName } from "./format.js";
import { type PackedTensor, recognisePacked } from "./packed.js";
import { type GgufTensorSpec, GgufWriter } from "./writer.js";

/**
 * Suffixes of the scale tensors of other tools' conventions (ModelOpt and compressed-tensors FP8, DeepSeek FP8, ...):
 * a float tensor with such a sibling holds values that are not its own, and converting it alone would be wrong.
 */
const SCALE_SUFFIXES = ["_scale", "_scale_inv", "_global_scale"];

/** Elements per chunk: a multiple of every block size, a few MB of buffers whatever the tensor size. */
const CHUNK_ELEMENTS = 1 << 20;

export interface GgufPlanOptions {
  /** Type of the selected float tensors of two or more dimensions (default: F32, F16, BF16 kept, others F32). */
  readonly type?: GgufTensorType;
  /** Which float tensors take `type` (default: all). */
  readonly selected?: (name: string) => boolean;
}

/** One GGUF tensor: its spec, how it is made (for progress lines) and the chunked copy that makes it. */
export interface GgufStep {
  readonly spec: GgufTensorSpec;
  readonly how: string;
  /** Elements it writes (progress units). */
  readonly elements: number;
  write(reader: SafetensorsReader, writer: GgufWriter, advance: (elements: number) => void): Promise<void>;
}

export interface GgufProgress {
  advance(elements: number, index: number, name: string): void;
  finished(index: number, name: string, summary: string): void;
}

/** The GGUF tensors of a safetensors file, in file order; a tensor that cannot be converted is an error. */
export async function planGguf(reader: SafetensorsReader, options: GgufPlanOptions = {}): Promise<GgufStep[]> {
  const packed = recognisePacked(reader.tensors);
  const consumed = new Set(packed.flatMap((p) => p.sources.map((s) => s.name)));
  const blockScaled = Object.keys(reader.metadata)
    .filter((k) => k.startsWith(BLOCK_KEY_PREFIX))
    .map((k) => k.slice(BLOCK_KEY_PREFIX.length));
  const names = new Set(reader.tensors.map((t) => t.name));
  const steps: GgufStep[] = [];
  for (const t of reader.tensors) {
    const own = packed.filter((p) => p.sources[0] === t);
    if (own.length > 0) {
      for (const p of own)
        steps.push(...(p.kind === "modelopt-nvfp4" ? await nvfp4Steps(reader, p) : [p.kind === "gpt-oss-bias" ? biasStep(p) : mxfp4Step(p)]));
      continue;
    }
    if (consumed.has(t.name)) continue;
    if (blockScaled.some((b) => t.name === b || t.name === b + SCALES_SUFFIX)) {
      throw new GgufError(`tensor "${t.name}"`, "is block-scaled by minifloat quantize; allowed: minifloat dequantize it first, then convert");
    }
    const scaledBy = SCALE_SUFFIXES.map((x) => t.name + x).find((n) => names.has(n));
    if (scaledBy !== undefined && t.format !== undefined) {
      throw new GgufError(
        `tensor "${t.name}"`,
        `is scaled by "${scaledBy}" (a checkpoint convention this command does not fold in); allowed: dequantize it to a float dtype first`,
      );
    }
    if (t.format === undefined) {
      throw new GgufError(
        `tensor "${t.name}"`,
        `${t.dtype} [${t.shape.join(", ")}] cannot be converted; allowed: float tensors, gpt-oss MXFP4 _blocks/_scales pairs and ModelOpt NVFP4 weights`,
      );
    }
    steps.push(floatStep(t, options));
  }
  return steps;
}

/** Writes the planned tensors to `path` (atomically: nothing is left there on error); returns the file size. */
export async function writeGguf(
  reader: SafetensorsReader,
  steps: readonly GgufStep[],
  path: string,
  options: { readonly architecture?: string; readonly force?: boolean } = {},
  progress?: GgufProgress,
): Promise<number> {
  const metadata = new Map<string, GgufValue>();
  if (options.architecture !== undefined) metadata.set("general.architecture", { type: "STRING", value: options.architecture });
  metadata.set(ALIGNMENT_KEY, { type: "UINT32", value: DEFAULT_ALIGNMENT });
  for (const [k, v] of Object.entries(reader.metadata)) metadata.set(`safetensors.${k}`, { type: "STRING", value: v });
  const writer = await GgufWriter.create(
    path,
    steps.map((s) => s.spec),
    { metadata, force: options.force, protect: [reader.path] },
  );
  try {
    for (const [i, s] of steps.entries()) {
      await s.write(reader, writer, (n) => progress?.advance(n, i, s.spec.name));
      progress?.finished(i, s.spec.name, s.how);
    }
    await writer.commit();
  } catch (e) {
    await writer.abort();
    throw e;
  }
  const last = writer.tensors.at(-1);
  return writer.dataOffset + (last ? last.offset + last.byteSize! : 0);
}

/**
 * A float tensor: two or more dimensions to options.type when selected and its rows (the last dimension, ggml's
 * ne[0]) hold whole blocks, else kept (F16, BF16 as they are, others F32); 0-D and 1-D tensors F32, as llama.cpp.
 */
function floatStep(t: TensorInfo, options: GgufPlanOptions): GgufStep {
  const kept: GgufTensorType = t.shape.length >= 2 && (t.dtype === "F16" || t.dtype === "BF16") ? t.dtype : "F32";
  const row = t.shape.at(-1) ?? 1;
  const wanted = options.type !== undefined && t.shape.length >= 2 && (options.selected?.(t.name) ?? true) ? options.type : undefined;
  const block = wanted && ggmlTypeByName(wanted)!.blockSize;
  const type = wanted && row % block! === 0 ? wanted : kept;
  const from = `${t.dtype}${t.info.format === t.format?.name ? "" : ` (${t.format!.name})`}`;
  const how =
    wanted && type !== wanted
      ? `kept ${type}: rows of ${row} elements are not a multiple of the ${wanted} block (${block})`
      : `${from} -> ${type}${t.shape.length < 2 && type !== t.dtype ? " (1-D tensors stay F32)" : ""}`;
  return {
    spec: { name: t.name, type, shape: t.shape.length === 0 ? [1] : t.shape },
    how,
    elements: t.length,
    async write(reader, writer, advance) {
      for (let start = 0; start < t.length; start += CHUNK_ELEMENTS) {
        const count = Math.min(CHUNK_ELEMENTS, t.length - start);
        await writer.writeValues(await reader.readValues(t, start, count));
        advance(count);
      }
    },
  };
}

/** gpt-oss MXFP4: scale bytes copied, each block's nibble pairs split into GGUF's halves; rows picked by p.pick. */
function mxfp4Step(p: PackedTensor): GgufStep {
  const [blocks, scales] = p.sources as [TensorInfo, TensorInfo];
  const G = blocks.shape.at(-2)!;
  return packedStep(p, `gpt-oss MXFP4 ${blocks.name.replace(/.*\./, "")}${p.pick.step === 2 ? ` rows ${p.pick.first}::2` : ""} -> MXFP4 (repacked, exact)`, {
    sources: [
      [blocks, 16 * G],
      [scales, G],
    ],
    encode: ([pairs, e]) => mxfp4BlocksFromPairs(e!, pairs!),
  });
}

/** A gpt-oss gate_up bias: elements first::2 of each row (gate or up), F32 as llama.cpp writes biases. */
function biasStep(p: PackedTensor): GgufStep {
  const [bias] = p.sources as [TensorInfo];
  const row = bias.shape.at(-1)!;
  const rows = bias.length / row;
  const perChunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / row));
  return {
    spec: { name: p.name, type: "F32", shape: p.shape },
    how: `${bias.dtype} ${bias.name.replace(/.*\./, "")} elements ${p.pick.first}::2 -> F32`,
    elements: bias.length / 2,
    async write(reader, writer, advance) {
      for (let r = 0; r < rows; r += perChunk) {
        const values = await reader.readValues(bias, r * row, Math.min(perChunk, rows - r) * row);
        const picked = new Float32Array(values.length / 2);
        for (let i = 0; i < picked.length; i++) picked[i] = values[p.pick.first + 2 * i]!;
        await writer.writeValues(picked);
        advance(picked.length);
      }
    },
  };
}

/** ModelOpt NVFP4: codes low nibble first into GGUF's sub-block halves, E4M3 scale bytes copied; the scalars beside. */
async function nvfp4Steps(reader: SafetensorsReader, p: PackedTensor): Promise<GgufStep[]> {
  const [weight, scale, scale2, input] = p.sources as [TensorInfo, TensorInfo, TensorInfo, TensorInfo?];
  const K = p.shape.at(-1)!;
  const main = packedStep(p, "ModelOpt NVFP4 -> NVFP4 (repacked, exact)", {
    sources: [
      [weight, K / 2],
      [scale, K / 16],
    ],
    encode: ([pairs, scaleBytes]) => nvfp4Blocks(ue4m3(scaleBytes!, scale), unpackCodes(pairs!, 4, 2 * pairs!.length)),
  });
  const prefix = p.name.replace(/\.weight$/, "");
  const sides: GgufStep[] = [];
  // llama.cpp leaves out a scalar of 1 (its runtime multiplies by nothing then); here only an exact 1.
  for (const [s, suffix] of [
    [scale2, "scale"],
    [input, "input_scale"],
  ] as const) {
    if (s && (await reader.readValues(s))[0] !== 1) sides.push(scalarStep(s, `${prefix}.${suffix}`));
  }
  return [main, ...sides];
}

/** An F32 scalar copied byte for byte as the 1-element F32 tensor `name`. */
function scalarStep(s: TensorInfo, name: string): GgufStep {
  return {
    spec: { name, type: "F32", shape: [1] },
    how: `${s.name} F32 -> F32`,
    elements: 1,
    async write(reader, writer, advance) {
      await writer.writeBytes(await reader.readTensorBytes(s, 0, 4));
      advance(1);
    },
  };
}

interface Repack {
  /** Each source tensor with its bytes per row. */
  readonly sources: readonly (readonly [TensorInfo, number])[];
  /** Stored GGUF bytes of whole rows from the same rows of every source. */
  encode(rows: Uint8Array[]): Uint8Array;
}

/** Chunks of whole rows of the packed sources, rows first, first + step, ... of them, re-encoded. */
function packedStep(p: PackedTensor, how: string, r: Repack): GgufStep {
  const rowElements = p.shape.at(-1)!;
  const rows = p.shape.slice(0, -1).reduce((a, b) => a * b, 1);
  const perChunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / rowElements));
  const { first, step } = p.pick;
  return {
    spec: { name: p.name, type: p.kind === "gpt-oss-mxfp4" ? "MXFP4" : "NVFP4", shape: p.shape },
    how,
    elements: rows * rowElements,
    async write(reader, writer, advance) {
      for (let row = 0; row < rows; row += perChunk) {
        const n = Math.min(perChunk, rows - row);
        const from = first + step * row;
        const span = step * (n - 1) + 1;
        const parts = await Promise.all(r.sources.map(([t, bytes]) => reader.readTensorBytes(t, from * bytes, span * bytes)));
        const picked = parts.map((b, i) => (step === 1 ? b : pickRows(b, r.sources[i]![1], n, step)));
        try {
          await writer.writeBytes(r.encode(picked));
        } catch (e) {
          throw e instanceof GgufError ? e : new GgufError(`tensor "${p.sources[0]!.name}"`, `cannot be converted: ${(e as Error).message}`);
        }
        advance(n * rowElements);
      }
    },
  };
}

function pickRows(bytes: Uint8Array, rowBytes: number, n: number, step: number): Uint8Array {
  const out = new Uint8Array(n * rowBytes);
  for (let i = 0; i < n; i++) out.set(bytes.subarray(i * step * rowBytes, (i * step + 1) * rowBytes), i * rowBytes);
  return out;
}

/**
 * E4M3 scale bytes as GGUF's unsigned ones: −0 (0x80) becomes 0. llama.cpp clears the sign bit of every byte,
 * which would flip a negative scale's block; those and NaN (0x7F, 0xFF) are refused instead.
 */
function ue4m3(bytes: Uint8Array, t: TensorInfo): Uint8Array {
  const out = bytes.map((b) => (b === 0x80 ? 0 : b));
  const bad = out.findIndex((b) => b >= 0x7f);
  if (bad >= 0) {
    throw new GgufError(`tensor "${t.name}"`, `has scale byte 0x${out[bad]!.toString(16)}; allowed: non-negative, non-NaN E4M3 scales (0x00…0x7E, 0x80)`);
  }
  return out;
}
