// Sequential little-endian reads of a GGUF header straight from the file: a window of the file is buffered and
// refilled on demand, so a header of any size is parsed in bounded memory, and every length is checked against
// the bytes the file still holds before anything of that length is allocated.
import type { FileHandle } from "node:fs/promises";
import { onPath } from "../fs-errors.js";
import { GgufError } from "./errors.js";

const WINDOW = 1 << 20;
const utf8 = new TextDecoder("utf-8");

export class HeaderCursor {
  /** Absolute file offset of the next read. */
  position = 0;
  private window = new Uint8Array(0);
  private view = new DataView(this.window.buffer);
  private windowStart = 0;

  constructor(private readonly handle: FileHandle, readonly path: string, readonly size: number) {}

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
    const bytes = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await onPath(this.path, () => this.handle.read(bytes, done, length - done, this.position + done));
      if (bytesRead === 0) throw new GgufError(this.path, `ended at byte ${this.position + done} while reading ${what}: truncated file`);
      done += bytesRead;
    }
    this.window = bytes;
    this.view = new DataView(bytes.buffer);
    this.windowStart = this.position;
  }

  /** Byte offset of the read position within the window; advances by `n`. */
  private take(n: number): number {
    const at = this.position - this.windowStart;
    this.position += n;
    return at;
  }

  u8(): number {
    return this.window[this.take(1)]!;
  }
  i8(): number {
    return this.view.getInt8(this.take(1));
  }
  u16(): number {
    return this.view.getUint16(this.take(2), true);
  }
  i16(): number {
    return this.view.getInt16(this.take(2), true);
  }
  u32(): number {
    return this.view.getUint32(this.take(4), true);
  }
  i32(): number {
    return this.view.getInt32(this.take(4), true);
  }
  f32(): number {
    return this.view.getFloat32(this.take(4), true);
  }
  u64(): bigint {
    return this.view.getBigUint64(this.take(8), true);
  }
  i64(): bigint {
    return this.view.getBigInt64(this.take(8), true);
  }
  f64(): number {
    return this.view.getFloat64(this.take(8), true);
  }

  /** A count or length (u64) that must fit in the bytes left, each item taking at least `itemBytes`. */
  async count(what: string, itemBytes: number): Promise<number> {
    await this.need(8, what);
    const n = this.u64();
    if (n * BigInt(itemBytes) > BigInt(this.remaining)) {
      throw new GgufError(this.path, `${what} is ${n} but only ${this.remaining} bytes follow at byte ${this.position}, room for at most ${Math.floor(this.remaining / itemBytes)}: truncated or corrupt file`);
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
