// Streaming GGUF reader: the header (metadata and tensor infos) is parsed once through a bounded window; tensor
// data is read on demand with positional reads of whole blocks, so memory stays bounded by what a caller asks for.
import { CodeRangeError } from "../../errors.js";
import { type ByteSource, FileSource } from "../source.js";
import { HeaderCursor, readFully } from "./cursor.js";
import { decodeBlocks } from "./decode.js";
import { GgufError } from "./errors.js";
import { ALIGNMENT_KEY, DEFAULT_ALIGNMENT, GGUF_MAGIC, GGUF_VERSIONS, type GgmlType, type GgufValue, MAX_DIMS, alignUp, ggmlTypeById } from "./format.js";
import { readValue, valueType } from "./metadata.js";

// Checked with a typed array rather than node:os, so the reader also runs in browsers.
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new GgufError("host", "is big-endian; minifloat's GGUF I/O needs a little-endian host");

export interface GgufTensorInfo {
  readonly name: string;
  /** Row-major shape: GGUF lists dimensions innermost first, this is that list reversed. */
  readonly shape: readonly number[];
  /** Number of elements (1 for a tensor of no dimensions). */
  readonly length: number;
  readonly typeId: number;
  /** The ggml type name ("Q4_K"), or "type <id>" for an id minifloat does not know. */
  readonly typeName: string;
  /** Block size and bytes per block; undefined for an unknown type id. */
  readonly type: GgmlType | undefined;
  /** Byte offset within the data section (a multiple of the alignment). */
  readonly offset: number;
  /** Bytes of the tensor's data; undefined for an unknown type id. */
  readonly byteSize: number | undefined;
}

/** Whole blocks of a tensor as stored (GgufReader.readBlocks): `elements` values, the range's first at `skip`. */
export interface GgufBlocks {
  readonly t: GgufTensorInfo;
  readonly type: GgmlType;
  readonly bytes: Uint8Array;
  readonly blocks: number;
  readonly elements: number;
  readonly skip: number;
}

export class GgufReader {
  private byName: Map<string, GgufTensorInfo> | undefined;

  private constructor(
    private readonly source: ByteSource,
    readonly version: number,
    readonly metadata: ReadonlyMap<string, GgufValue>,
    readonly alignment: number,
    /** Absolute file offset of the data section. */
    readonly dataOffset: number,
    readonly tensors: readonly GgufTensorInfo[],
  ) {}

  /** The file's name in messages: its path, URL or Blob name. */
  get path(): string {
    return this.source.name;
  }

  /** Opens a file path read-only (or takes a source: a Blob, an HTTP server) and validates the header; the caller closes the reader. */
  static async open(pathOrSource: string | ByteSource): Promise<GgufReader> {
    const source = typeof pathOrSource === "string" ? await FileSource.open(pathOrSource, "a GGUF file") : pathOrSource;
    const { name: path, size } = source;
    try {
      const c = new HeaderCursor(source);
      const version = await readPreamble(c);
      const tensorCount = await c.count("the tensor count", 24);
      const kvCount = await c.count("the metadata count", 13);
      const metadata = new Map<string, GgufValue>();
      for (let i = 0; i < kvCount; i++) {
        const key = await c.string(`metadata key ${i}`);
        if (metadata.has(key)) throw new GgufError(path, `metadata key ${JSON.stringify(key)} appears twice; allowed: each key once`);
        await c.need(4, `the type of metadata ${JSON.stringify(key)}`);
        const type = valueType(c.u32(), `${path}: metadata ${JSON.stringify(key)}`);
        metadata.set(key, await readValue(c, type, `metadata ${JSON.stringify(key)}`));
      }
      const alignment = alignmentOf(metadata, path);
      const tensors: GgufTensorInfo[] = [];
      const names = new Set<string>();
      for (let i = 0; i < tensorCount; i++) {
        const t = await readTensorInfo(c, i, alignment);
        if (names.has(t.name)) throw new GgufError(path, `tensor name ${JSON.stringify(t.name)} appears twice; allowed: each name once`);
        names.add(t.name);
        tensors.push(t);
      }
      const dataOffset = alignUp(c.position, alignment);
      // ggml reads a tensor only at the offset the ones before it leave (each aligned): no overlap, no gap, in order.
      let expected = 0;
      for (const t of tensors) {
        if (t.byteSize === undefined) break; // an unknown type's size is unknown (named when the tensor is read)
        if (t.offset !== expected) {
          throw new GgufError(
            path,
            `tensor "${t.name}" has data offset ${t.offset}, expected ${expected}; allowed: each tensor's data right after the previous one's, aligned to ${alignment} (as ggml reads them)`,
          );
        }
        expected = alignUp(expected + t.byteSize, alignment);
      }
      for (const t of tensors) {
        const end = dataOffset + t.offset + (t.byteSize ?? 0);
        if (end > size)
          throw new GgufError(path, `tensor "${t.name}" ends at byte ${end} but the file has ${size}: tensor data beyond the file (truncated file?)`);
      }
      return new GgufReader(source, version, metadata, alignment, dataOffset, tensors);
    } catch (e) {
      await source.close();
      throw e;
    }
  }

  tensor(name: string): GgufTensorInfo {
    this.byName ??= new Map(this.tensors.map((t) => [t.name, t]));
    return this.byName.get(name) ?? raise(new GgufError("name", `${JSON.stringify(name)} is not a tensor of ${this.path}`));
  }

  /** Stored bytes [offset, offset + length) of a tensor (for copying tensors unchanged). */
  async readTensorBytes(t: GgufTensorInfo, offset = 0, length = (t.byteSize ?? 0) - offset): Promise<Uint8Array> {
    const size = this.sizeOf(t);
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > size) {
      throw new CodeRangeError("offset, length", `are ${offset}, ${length}; allowed: a range within the ${size} bytes of "${t.name}" in ${this.path}`);
    }
    return readFully(this.source, this.dataOffset + t.offset + offset, length, `tensor "${t.name}"`);
  }

  /**
   * Values of elements [start, start + count) as float32, bit-exact with ggml's dequantization; the whole blocks
   * covering the range are read and decoded.
   */
  async readValues(t: GgufTensorInfo, start = 0, count = t.length - start): Promise<Float32Array> {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(count) || start < 0 || count < 0 || start + count > t.length) {
      throw new CodeRangeError("start, count", `are ${start}, ${count}; allowed: a range within the ${t.length} elements of "${t.name}" in ${this.path}`);
    }
    const read = await this.readBlocks(t, start, count);
    const out = new Float32Array(read.elements);
    this.decode(read, out);
    return out.length === count ? out : out.slice(read.skip, read.skip + count);
  }

  /** The stored bytes of the whole blocks holding elements [start, start + count) of t (range checked by the caller). */
  async readBlocks(t: GgufTensorInfo, start: number, count: number): Promise<GgufBlocks> {
    const type = this.typeOf(t);
    const first = Math.floor(start / type.blockSize);
    const blocks = Math.ceil((start + count) / type.blockSize) - first;
    const bytes = await this.readTensorBytes(t, first * type.typeSize, blocks * type.typeSize);
    return { t, type, bytes, blocks, elements: blocks * type.blockSize, skip: start - first * type.blockSize };
  }

  /**
   * The values of blocks read by readBlocks, decoded as ggml decodes them into the first `elements` of out (an out in
   * Wasm memory may be detached on return: the decode allocates there).
   */
  decode(read: GgufBlocks, out: Float32Array): void {
    decodeBlocks(read.type, `${this.path}: tensor "${read.t.name}"`, read.bytes, read.blocks, out);
  }

  async close(): Promise<void> {
    await this.source.close();
  }

  private typeOf(t: GgufTensorInfo): GgmlType {
    if (!t.type)
      throw new GgufError(`${this.path}: tensor "${t.name}"`, `has unknown ggml type ${t.typeId}; minifloat knows neither its name nor its block layout`);
    return t.type;
  }

  private sizeOf(t: GgufTensorInfo): number {
    this.typeOf(t);
    return t.byteSize!;
  }
}

function raise(error: Error): never {
  throw error;
}

/** Magic and version; other files are named for what they are. */
async function readPreamble(c: HeaderCursor): Promise<number> {
  if (c.size < 8) throw new GgufError(c.path, `is not a GGUF file: it has ${c.size} bytes; a GGUF file starts with the bytes "GGUF" and a 4-byte version`);
  await c.need(8, "the magic and version");
  const magic = c.u32();
  if (magic !== GGUF_MAGIC) {
    const text = String.fromCharCode(magic & 255, (magic >> 8) & 255, (magic >> 16) & 255, magic >>> 24);
    throw new GgufError(c.path, `is not a GGUF file: it starts with ${JSON.stringify(text)}; a GGUF file starts with the bytes "GGUF"`);
  }
  const version = c.u32();
  if (GGUF_VERSIONS.includes(version)) return version;
  const swapped = ((version & 255) << 24) | (((version >> 8) & 255) << 16) | (((version >> 16) & 255) << 8) | (version >>> 24);
  if (GGUF_VERSIONS.includes(swapped)) throw new GgufError(c.path, `is a big-endian GGUF file (version ${swapped}); allowed: little-endian GGUF files`);
  throw new GgufError(c.path, `has unknown GGUF version ${version}; allowed: ${GGUF_VERSIONS.join(", ")}`);
}

/** general.alignment: a UINT32 power of two, 32 when absent. */
function alignmentOf(metadata: ReadonlyMap<string, GgufValue>, path: string): number {
  const v = metadata.get(ALIGNMENT_KEY);
  if (v === undefined) return DEFAULT_ALIGNMENT;
  const a = v.value as number;
  if (v.type !== "UINT32" || a === 0 || (a & (a - 1)) !== 0) {
    throw new GgufError(path, `metadata ${JSON.stringify(ALIGNMENT_KEY)} is ${v.type} ${String(v.value)}; allowed: a UINT32 power of two`);
  }
  return a;
}

/** One tensor info: name, n_dims, dims (innermost first), ggml type, data offset. */
async function readTensorInfo(c: HeaderCursor, i: number, alignment: number): Promise<GgufTensorInfo> {
  const name = await c.string(`the name of tensor ${i}`);
  const label = `tensor "${name}"`;
  await c.need(4, `the dimension count of ${label}`);
  const nDims = c.u32();
  if (nDims > MAX_DIMS) throw new GgufError(c.path, `${label} has ${nDims} dimensions; allowed: at most ${MAX_DIMS}`);
  await c.need(8 * nDims + 12, `the shape, type and offset of ${label}`);
  const dims: bigint[] = [];
  for (let d = 0; d < nDims; d++) dims.push(c.u64());
  const typeId = c.u32();
  const offset = c.u64();
  const elements = dims.reduce((a, b) => a * b, 1n);
  if (elements > BigInt(Number.MAX_SAFE_INTEGER) || dims.some((d) => d > BigInt(Number.MAX_SAFE_INTEGER)))
    throw new GgufError(c.path, `${label} has dimensions ${dims.join(" × ")} = ${elements} elements; allowed: at most 2^53 − 1`);
  if (offset % BigInt(alignment) !== 0n || offset > BigInt(c.size)) {
    throw new GgufError(c.path, `${label} has data offset ${offset}; allowed: a multiple of the alignment ${alignment} within the file`);
  }
  const type = ggmlTypeById(typeId);
  const length = Number(elements);
  const inner = Number(dims[0] ?? 1n);
  if (type && inner % type.blockSize !== 0) {
    throw new GgufError(c.path, `${label} has rows of ${inner} ${type.name} elements; allowed: a multiple of the block size ${type.blockSize}`);
  }
  return {
    name,
    shape: dims.map(Number).reverse(),
    length,
    typeId,
    typeName: type?.name ?? `type ${typeId}`,
    type,
    offset: Number(offset),
    byteSize: type ? (length / type.blockSize) * type.typeSize : undefined,
  };
}
