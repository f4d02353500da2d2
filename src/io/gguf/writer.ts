// Streaming GGUF writer. The header (metadata, tensor infos with aligned offsets) is fixed up front from the
// specs; tensor data is appended tensor by tensor in any chunk sizes, each tensor padded to the alignment; the
// file appears only on commit (temporary file in the target's directory, then linked or renamed into place).
import { existsSync } from "node:fs";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { CodeRangeError, describe } from "../../errors.js";
import { fsyncOption, outputTarget, pending, placeWithoutClobbering, temporaryPath } from "../atomic.js";
import { IoError } from "../errors.js";
import { fsError, onPath } from "../fs-errors.js";
import { IEEE_RNE, quantizeMxfp4, quantizeNvfp4, quantizeQ8_0 } from "./encode.js";
import { GgufError } from "./errors.js";
import {
  ALIGNMENT_KEY,
  DECODABLE_TYPES,
  DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_VERSION,
  type GgufTensorType,
  type GgufValue,
  MAX_DIMS,
  alignUp,
  ggmlTypeByName,
} from "./format.js";
import { stringBytes, typeId, writeValue } from "./metadata.js";
import type { GgufTensorInfo } from "./reader.js";
import { quantize } from "../kernels.js";
import { checkOptions } from "../../options.js";

export interface GgufTensorSpec {
  readonly name: string;
  readonly type: GgufTensorType;
  /** Row-major shape (written innermost first, as GGUF lists dimensions); the last is a multiple of the block size. */
  readonly shape: readonly number[];
}

export interface GgufWriterOptions {
  /** Metadata in order of insertion; general.alignment, when present, is a UINT32 power of two. */
  readonly metadata?: ReadonlyMap<string, GgufValue> | Readonly<Record<string, GgufValue>>;
  /** Data alignment (a power of two, default general.alignment or 32); recorded as general.alignment unless 32. */
  readonly alignment?: number;
  /** Replace an existing file at the path (default: refuse). */
  readonly force?: boolean;
  /** Paths the output must not be (the inputs of a conversion), even with force. */
  readonly protect?: readonly string[];
  /** Flush the file to the disk before moving it into place (default false; see fsyncOption). */
  readonly fsync?: boolean;
}

const GGUF_WRITER_KEYS = ["metadata", "alignment", "force", "protect", "fsync"] as const satisfies readonly (keyof GgufWriterOptions)[];

export class GgufWriter {
  private current = 0;
  /** Bytes of the current tensor written so far. */
  private written = 0;
  private state: "open" | "committed" | "aborted" = "open";

  private constructor(
    readonly path: string,
    private readonly tempPath: string,
    private readonly handle: FileHandle,
    readonly tensors: readonly GgufTensorInfo[],
    readonly dataOffset: number,
    readonly alignment: number,
    private readonly force: boolean,
    private readonly fsync: boolean,
  ) {
    this.skipEmpty();
  }

  /** Validates specs and metadata, refuses an existing output (unless force) and writes the header to a temporary file. */
  static async create(path: string, specs: readonly GgufTensorSpec[], options: GgufWriterOptions = {}): Promise<GgufWriter> {
    checkOptions(options, GGUF_WRITER_KEYS);
    const fsync = fsyncOption(options);
    const target = outputTarget(path, options);
    const metadata = new Map(options.metadata instanceof Map ? options.metadata : Object.entries(options.metadata ?? {}));
    const alignment = chooseAlignment(metadata, options.alignment);
    if (alignment !== DEFAULT_ALIGNMENT) metadata.set(ALIGNMENT_KEY, { type: "UINT32", value: alignment });
    const tensors = layOut(specs, alignment);
    const header = serializeHeader(metadata, tensors);
    const dataOffset = alignUp(header.length, alignment);
    if (!existsSync(dirname(target))) throw new IoError(path, `directory ${dirname(target)} does not exist; allowed: a path in an existing directory`);
    const tempPath = temporaryPath(target);
    const handle = await onPath(path, () => open(tempPath, "wx"));
    pending.add(tempPath);
    const writer = new GgufWriter(target, tempPath, handle, tensors, dataOffset, alignment, options.force ?? false, fsync);
    await writer.put(header, 0).catch(async (e) => {
      await writer.abort();
      throw e;
    });
    return writer;
  }

  /** The tensor the next write belongs to, or undefined when every tensor is complete. */
  get next(): GgufTensorInfo | undefined {
    return this.tensors[this.current];
  }

  /** Appends stored bytes of the current tensor (encoded blocks for Q8_0, MXFP4, NVFP4); chunks of any size. */
  async writeBytes(bytes: Uint8Array): Promise<void> {
    const t = this.requireCurrent();
    const left = t.byteSize! - this.written;
    if (!(bytes instanceof Uint8Array) || bytes.length > left) {
      throw new CodeRangeError("bytes", `is ${describe(bytes)}; allowed: a Uint8Array of at most the ${left} bytes tensor "${t.name}" has left`);
    }
    await this.put(bytes, this.dataOffset + t.offset + this.written);
    this.written += bytes.length;
    if (this.written === t.byteSize) this.advance();
  }

  /**
   * Hands the next `bytes` stored bytes of the current tensor to another writer of the temporary file (a conversion
   * worker, which writes them at `position` of `path` before commit); they count as written here.
   */
  reserveBytes(bytes: number): { path: string; position: number } {
    const t = this.requireCurrent();
    const left = t.byteSize! - this.written;
    if (!Number.isSafeInteger(bytes) || bytes < 0 || bytes > left) {
      throw new CodeRangeError("bytes", `is ${describe(bytes)}; allowed: at most the ${left} bytes tensor "${t.name}" has left`);
    }
    const position = this.dataOffset + t.offset + this.written;
    this.written += bytes;
    if (this.written === t.byteSize) this.advance();
    return { path: this.tempPath, position };
  }

  /**
   * Appends values of the current tensor: F32 (round to nearest from float64), F16 and BF16 (round to nearest
   * even from the given values, overflow to ∞, as ggml), Q8_0, MXFP4 and NVFP4 (ggml's reference quantizers
   * quantizeQ8_0, quantizeMxfp4, quantizeNvfp4 of the float32 values; chunks of whole blocks). Blocks whose scales
   * the caller chose take writeBytes (mxfp4Blocks, nvfp4Blocks).
   */
  async writeValues(values: Float32Array | Float64Array): Promise<void> {
    const t = this.requireCurrent();
    if (!(values instanceof Float32Array || values instanceof Float64Array))
      throw new CodeRangeError("values", `is ${describe(values)}; allowed: a Float32Array or Float64Array`);
    const left = Math.floor((t.byteSize! - this.written) / t.type!.typeSize) * t.type!.blockSize;
    if (values.length > left) throw new CodeRangeError("values", `has ${values.length} values; tensor "${t.name}" has ${left} elements left`);
    await this.writeBytes(encodeValues(t.typeName as GgufTensorType, values));
  }

  /** Checks every tensor is complete, flushes, and moves the file into place. */
  async commit(): Promise<void> {
    if (this.state !== "open") throw new IoError(this.path, `writer is already ${this.state}`);
    const incomplete =
      this.next &&
      new GgufError(`tensor "${this.next.name}"`, `received ${this.written} of its ${this.next.byteSize} bytes; nothing was written to ${this.path}`);
    if (incomplete) {
      await this.abort();
      throw incomplete;
    }
    try {
      const last = this.tensors.at(-1);
      // Zero padding up to the data section and after the last tensor too, as ggml's and the gguf package's writers do.
      await this.handle.truncate(this.dataOffset + (last ? alignUp(last.offset + last.byteSize!, this.alignment) : 0));
      if (this.fsync) await this.handle.sync();
      await this.handle.close();
      if (this.force) await rename(this.tempPath, this.path);
      else await placeWithoutClobbering(this.tempPath, this.path);
      this.state = "committed";
    } catch (e) {
      this.state = "aborted";
      throw fsError(e, this.path);
    } finally {
      await rm(this.tempPath, { force: true });
      pending.delete(this.tempPath);
    }
  }

  /** Discards the temporary file; the output path is left untouched. */
  async abort(): Promise<void> {
    if (this.state !== "open") return;
    this.state = "aborted";
    await this.handle.close().catch(() => undefined);
    await rm(this.tempPath, { force: true });
    pending.delete(this.tempPath);
  }

  private requireCurrent(): GgufTensorInfo {
    if (this.state !== "open") throw new IoError(this.path, `writer is ${this.state}`);
    const t = this.next;
    if (!t) throw new CodeRangeError("data", "every tensor is already complete");
    return t;
  }

  /** Writes bytes at a file position (the gaps between tensors stay zero). */
  private async put(bytes: Uint8Array, position: number): Promise<void> {
    let done = 0;
    while (done < bytes.length) done += (await onPath(this.path, () => this.handle.write(bytes, done, bytes.length - done, position + done))).bytesWritten;
  }

  private advance(): void {
    this.current++;
    this.written = 0;
    this.skipEmpty();
  }

  private skipEmpty(): void {
    while (this.current < this.tensors.length && this.tensors[this.current]!.byteSize === 0) this.current++;
  }
}

/** Stored bytes of values as a tensor of `type`: F16/BF16 round once from the values given, the block types from float32. */
export function encodeValues(type: GgufTensorType, given: Float32Array | Float64Array): Uint8Array {
  if (type === "F16" || type === "BF16") {
    const codes = quantize(given, type === "F16" ? "binary16" : "bfloat16", IEEE_RNE);
    return new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength);
  }
  const values = given instanceof Float32Array ? given : Float32Array.from(given);
  switch (type as Exclude<GgufTensorType, "F16" | "BF16">) {
    case "F32":
      return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    case "Q8_0":
      return quantizeQ8_0(values);
    case "MXFP4":
      return quantizeMxfp4(values);
    case "NVFP4":
      return quantizeNvfp4(values);
  }
}

function chooseAlignment(metadata: ReadonlyMap<string, GgufValue>, option: number | undefined): number {
  const recorded = metadata.get(ALIGNMENT_KEY);
  if (recorded !== undefined && recorded.type !== "UINT32") throw new GgufError(`metadata "${ALIGNMENT_KEY}"`, `has type ${recorded.type}; allowed: UINT32`);
  const alignment = option ?? (recorded?.value as number | undefined) ?? DEFAULT_ALIGNMENT;
  if (!Number.isInteger(alignment) || alignment <= 0 || alignment > 2 ** 31 || (alignment & (alignment - 1)) !== 0) {
    throw new GgufError("alignment", `is ${describe(alignment)}; allowed: a power of two up to 2^31`);
  }
  if (recorded !== undefined && recorded.value !== alignment)
    throw new GgufError(`metadata "${ALIGNMENT_KEY}"`, `is ${recorded.value} but options.alignment is ${alignment}; allowed: the same value`);
  return alignment;
}

/** Tensor infos with offsets laid end to end, each at a multiple of the alignment. */
function layOut(specs: readonly GgufTensorSpec[], alignment: number): GgufTensorInfo[] {
  if (!Array.isArray(specs)) throw new GgufError("specs", `is ${describe(specs)}; allowed: an array of { name, type, shape }`);
  const names = new Set<string>();
  let offset = 0;
  return specs.map((spec, i) => {
    const label = `specs[${i}]`;
    const { name, type: typeName, shape } = spec ?? {};
    if (typeof name !== "string" || names.has(name)) throw new GgufError(`${label}.name`, `is ${describe(name)}; allowed: a string no other tensor has`);
    names.add(name);
    const type = (DECODABLE_TYPES as readonly string[]).includes(typeName) ? ggmlTypeByName(typeName)! : undefined;
    if (!type) throw new GgufError(`${label}.type`, `is ${describe(typeName)}; allowed: ${DECODABLE_TYPES.join(", ")}`);
    if (!Array.isArray(shape) || shape.length > MAX_DIMS || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new GgufError(`${label}.shape`, `is ${describe(shape)}; allowed: up to ${MAX_DIMS} non-negative integers`);
    }
    const length = shape.reduce((a, b) => a * b, 1);
    const inner = shape.at(-1) ?? 1;
    if (!Number.isSafeInteger(length) || inner % type.blockSize !== 0) {
      throw new GgufError(
        `${label}.shape`,
        `is [${shape.join(", ")}]; allowed: rows of a multiple of ${type.blockSize} elements (the ${type.name} block) and at most 2^53 − 1 elements`,
      );
    }
    const byteSize = (length / type.blockSize) * type.typeSize;
    const info: GgufTensorInfo = { name, shape: [...shape], length, typeId: type.id, typeName: type.name, type, offset, byteSize };
    offset = alignUp(offset + byteSize, alignment);
    return info;
  });
}

/** Magic, version, counts, metadata, tensor infos (dimensions innermost first). */
function serializeHeader(metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensorInfo[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const fixed = new DataView(new ArrayBuffer(24));
  fixed.setUint32(0, GGUF_MAGIC, true);
  fixed.setUint32(4, GGUF_VERSION, true);
  fixed.setBigUint64(8, BigInt(tensors.length), true);
  fixed.setBigUint64(16, BigInt(metadata.size), true);
  parts.push(new Uint8Array(fixed.buffer));
  for (const [key, value] of metadata) {
    if (typeof key !== "string") throw new GgufError("metadata", `has key ${describe(key)}; allowed: strings`);
    const body: Uint8Array[] = [];
    writeValue(value, `metadata ${JSON.stringify(key)}`, body);
    parts.push(stringBytes(key), typeId(value.type), ...body);
  }
  for (const t of tensors) {
    const info = new DataView(new ArrayBuffer(4 + 8 * t.shape.length + 12));
    info.setUint32(0, t.shape.length, true);
    for (let i = 0; i < t.shape.length; i++) info.setBigUint64(4 + 8 * i, BigInt(t.shape[t.shape.length - 1 - i]!), true);
    info.setUint32(4 + 8 * t.shape.length, t.typeId, true);
    info.setBigUint64(8 + 8 * t.shape.length, BigInt(t.offset), true);
    parts.push(stringBytes(t.name), new Uint8Array(info.buffer));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
