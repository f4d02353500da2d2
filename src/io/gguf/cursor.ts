// Sequential little-endian reads of a GGUF header straight from the file: a window of the file is buffered and
// refilled on demand, so a header of any size is parsed in bounded memory, and every length is checked against
// the bytes the file still holds before anything of that length is allocated.
import type { ByteSource } from "../source.js";
import { GgufError } from "./errors.js";

const WINDOW = 1 << 20;
// ignoreBOM: a string's bytes are its value, a leading U+FEFF included (the default decoder drops it). Invalid UTF-8
// becomes U+FFFD, as in any JavaScript string (ggml keeps bytes; docs/files.md).
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });
/**
 * Metadata items (array elements, nested arrays counted as items too) a header may hold: each becomes a JavaScript
 * value of 10–16 times its bytes in the file, so this bounds the memory opening a file can take (≈ 1 GB) where the
 * file size alone does not. Tokenizer arrays of real models hold about a million in all.
 */
export const MAX_METADATA_ITEMS = 1 << 25;

export class HeaderCursor {
  /** Absolute file offset of the next read. */
  position = 0;
  private window: Uint8Array = new Uint8Array(0);
  private view = new DataView(this.window.buffer);
  private windowStart = 0;

  /** Metadata items read so far (see MAX_METADATA_ITEMS). */
  private items = 0;

  constructor(private readonly source: ByteSource) {}

  /** Counts n more metadata items, refusing a header that holds more than MAX_METADATA_ITEMS in all. */
  countItems(n: number, what: string): void {
    this.items += n;
    if (this.items > MAX_METADATA_ITEMS) {
      throw new GgufError(
        this.path,
        `${what} brings the metadata to ${this.items} items; allowed: at most ${MAX_METADATA_ITEMS} in all (each takes memory many times its bytes)`,
      );
    }
  }

  get path(): string {
    return this.source.name;
  }

  get size(): number {
    return this.source.size;
  }

  /** Bytes of the file after the read position. */
  get remaining(): number {
    return this.size - this.position;
  }

  /** Makes the next `n` bytes readable; `what` names them in the error when the file ends first. */
  async need(n: number, what: string): Promise<void> {
    if (n > this.remaining) {
      throw new GgufError(this.path, `${what} needs ${n} bytes at byte ${this.position} but the file has ${this.remaining} left: truncated or corrupt file`);
    }
    if (this.position + n <= this.windowStart + this.window.length) return;
    const length = Math.min(Math.max(n, WINDOW), this.remaining);
    const bytes = await readFully(this.source, this.position, length, what);
    this.window = bytes;
    // A source may hand out a view into a larger buffer (an HTTP source reuses its first response).
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.windowStart = this.position;
  }

  /** Byte offset of the read position within the window; advances by `n`. */
  private take(n: number): number {
    const at = this.position - this.windowStart;
    this.position += n;
    return at;
  }

  /** A value of `n` bytes read by `get` from the window's DataView; advances by `n` (call `need` first). */
  read<T>(n: number, get: (view: DataView, at: number) => T): T {
    return get(this.view, this.take(n));
  }

  u32(): number {
    return this.view.getUint32(this.take(4), true);
  }

  u64(): bigint {
    return this.view.getBigUint64(this.take(8), true);
  }

  /** A count or length (u64) that must fit in the bytes left, each item taking at least `itemBytes`. */
  async count(what: string, itemBytes: number): Promise<number> {
    await this.need(8, what);
    const n = this.u64();
    if (n * BigInt(itemBytes) > BigInt(this.remaining)) {
      throw new GgufError(
        this.path,
        `${what} is ${n} but only ${this.remaining} bytes follow at byte ${this.position}, room for at most ${Math.floor(this.remaining / itemBytes)}: truncated or corrupt file`,
      );
    }
    return Number(n);
  }

  /** A GGUF string: u64 byte length, then UTF-8 bytes (no terminator). */
  async string(what: string): Promise<string> {
    const n = await this.count(`length of ${what}`, 1);
    await this.need(n, what);
    const at = this.take(n);
    return utf8.decode(this.window.subarray(at, at + n));
  }
}

/** Exactly `length` bytes at `position` into a fresh buffer; `what` names them when the source ends first. */
export async function readFully(source: ByteSource, position: number, length: number, what: string): Promise<Uint8Array> {
  if (position + length > source.size) {
    throw new GgufError(source.name, `ended at byte ${source.size} while reading ${what}: truncated file`);
  }
  return source.read(position, length);
}
