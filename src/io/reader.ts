// Streaming safetensors reader: the header is parsed once; tensor data is read on demand with positional reads,
// so memory stays bounded by the chunk a caller asks for, whatever the file size. The bytes come from a ByteSource
// (a local file, a Blob, an HTTP server with range requests).
import type { CodeArray } from "../api/bulk.js";
import { CodeRangeError, describe } from "../errors.js";
import { requireAttached } from "../api/validate.js";
import { bytesToCodes, bytesToValues } from "./convert.js";
import { SafetensorsError } from "./errors.js";
import { type TensorInfo, MAX_HEADER_BYTES, parseHeader } from "./header.js";
import { type ByteSource, FileSource, readInto, truncated } from "./source.js";

export class SafetensorsReader {
  private constructor(
    private readonly source: ByteSource,
    /** Absolute file offset of the data buffer. */
    readonly dataStart: number,
    readonly tensors: readonly TensorInfo[],
    readonly metadata: Readonly<Record<string, string>>,
  ) {}

  /** The file's name in messages: its path, URL or Blob name. */
  get path(): string {
    return this.source.name;
  }

  /** Opens a file path read-only (or takes a source) and validates the header; the caller closes the reader. */
  static async open(pathOrSource: string | ByteSource): Promise<SafetensorsReader> {
    const source = typeof pathOrSource === "string" ? await FileSource.open(pathOrSource) : pathOrSource;
    try {
      const { name: path, size } = source;
      const head = await readExactly(source, 0, Math.min(size, 9));
      // A safetensors file is an 8-byte little-endian header length, then a JSON object: check the "{" first, so
      // other files are named for what they are rather than for an absurd header length.
      if (size < 9 || head[8] !== 0x7b) throw new SafetensorsError(path, `is not a safetensors file: ${whatFileIs(head)}`);
      const n = new DataView(head.buffer, head.byteOffset).getBigUint64(0, true);
      if (n > BigInt(MAX_HEADER_BYTES)) throw new SafetensorsError(path, `header length is ${n} bytes; allowed: at most ${MAX_HEADER_BYTES}`);
      const headerLength = Number(n);
      if (8 + headerLength > size)
        throw new SafetensorsError(path, `header length is ${headerLength} bytes but the file has only ${size - 8} after the length: truncated file`);
      const header = parseHeader(await readExactly(source, 8, headerLength), size - 8 - headerLength, path);
      return new SafetensorsReader(source, 8 + headerLength, header.tensors, header.metadata);
    } catch (e) {
      await source.close();
      throw e;
    }
  }

  tensor(name: string): TensorInfo {
    const t = this.tensors.find((x) => x.name === name);
    if (!t) throw new SafetensorsError("name", `${JSON.stringify(name)} is not a tensor of ${this.path}`);
    return t;
  }

  /**
   * Stored bytes of elements [start − skip, start + count): packed F4/F6 reads begin at the byte boundary at or
   * before `start`, and `skip` elements precede it; skip is 0 for every other dtype.
   */
  async readElementBytes(t: TensorInfo, start: number, count: number): Promise<{ bytes: Uint8Array; skip: number }> {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(count) || start < 0 || count < 0 || start + count > t.length) {
      throw new CodeRangeError("start, count", `are ${start}, ${count}; allowed: a range within the ${t.length} elements of "${t.name}"`);
    }
    const bits = t.info.bits;
    const group = bits === 4 ? 2 : bits === 6 ? 4 : 1;
    const skip = start % group;
    const lo = ((start - skip) * bits) / 8;
    const hi = Math.ceil(((start + count) * bits) / 8);
    return { bytes: await this.readTensorBytes(t, lo, hi - lo), skip };
  }

  /** Stored bytes [offset, offset + length) of a tensor (for copying tensors unchanged). */
  async readTensorBytes(t: TensorInfo, offset: number, length: number): Promise<Uint8Array> {
    checkTensorRange(t, offset, length);
    return readExactly(this.source, this.dataStart + t.begin + offset, length);
  }

  /** Stored bytes [offset, offset + dest.length) of a tensor into `dest` (a file reads straight into it). */
  async readTensorBytesInto(t: TensorInfo, offset: number, dest: Uint8Array): Promise<void> {
    checkTensorRange(t, offset, dest.length);
    await readInto(this.source, this.dataStart + t.begin + offset, dest);
  }

  /** Codes of elements [start, start + count) of a tensor of up to 16 bits (packed F4/F6 unpacked). */
  async readCodes(t: TensorInfo, start = 0, count = t.length - start): Promise<CodeArray> {
    const { bytes, skip } = await this.readElementBytes(t, start, count);
    return bytesToCodes(t, bytes, skip + count).subarray(skip);
  }

  /**
   * Values of elements [start, start + count): Float64Array for F64, Float32Array for every other float format; into
   * `out` (a Float32Array of `count`, returned) when given and t is not F64 — a converter's reused buffer is written
   * in place, where a new array's pages would each fault in.
   */
  async readValues(t: TensorInfo, start = 0, count = t.length - start, out?: Float32Array): Promise<Float32Array | Float64Array> {
    if (out instanceof Float32Array) requireAttached(out, "out");
    if (out !== undefined && (!(out instanceof Float32Array) || out.length !== count || t.dtype === "F64"))
      throw new CodeRangeError("out", `is ${describe(out)}; allowed: a Float32Array of ${count} elements, for a tensor that is not F64`);
    const { bytes, skip } = await this.readElementBytes(t, start, count);
    if (out === undefined) return bytesToValues(t, bytes, skip + count).subarray(skip);
    if (skip === 0) return bytesToValues(t, bytes, count, out);
    out.set(bytesToValues(t, bytes, skip + count).subarray(skip));
    return out;
  }

  async close(): Promise<void> {
    await this.source.close();
  }
}

function checkTensorRange(t: TensorInfo, offset: number, length: number): void {
  const size = t.end - t.begin;
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > size) {
    throw new CodeRangeError("offset, length", `are ${offset}, ${length}; allowed: a range within the ${size} bytes of "${t.name}"`);
  }
}

/** What a file that is not safetensors looks like, from its first bytes. */
function whatFileIs(head: Uint8Array): string {
  const text = String.fromCharCode(...head.subarray(0, 4));
  if (head.length < 9) return `it has ${head.length} bytes; a safetensors file starts with an 8-byte header length and a JSON header`;
  if (text === "GGUF") return "it is a GGUF file";
  if (text === "PK\x03\x04") return "it is a zip archive (e.g. a PyTorch checkpoint)";
  if (head[0] === 0x80 && head[1]! >= 2 && head[1]! <= 5) return "it is a Python pickle (e.g. a PyTorch checkpoint)";
  return "it does not start with an 8-byte header length followed by a JSON object";
}

/** Exactly `length` bytes at `position`, 8-byte aligned so that F64/F32/16-bit views of them are valid. */
async function readExactly(source: ByteSource, position: number, length: number): Promise<Uint8Array> {
  const bytes = await source.read(position, length);
  if (bytes.length < length) throw truncated(source.name, position + bytes.length, length - bytes.length);
  return bytes.byteOffset % 8 === 0 && bytes.length === length ? bytes : bytes.slice(0, length);
}
