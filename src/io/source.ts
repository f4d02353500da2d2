// Where a safetensors reader gets its bytes: a local file, a Blob/File (browsers) or an HTTP server (remote.ts).
// The reader only asks for byte ranges, so every source serves the same on-demand reads.
import { CodeRangeError } from "../errors.js";
import { IoError, SafetensorsError } from "./errors.js";
import { onPath } from "./fs-errors.js";

/** Random access to the bytes of one file. */
export interface ByteSource {
  /** What errors name: a path, a URL or a Blob's name. */
  readonly name: string;
  /** Size in bytes. */
  readonly size: number;
  /** Exactly `length` bytes at `position` (a fresh array), or a typed error (IoError, SafetensorsError when truncated). */
  read(position: number, length: number): Promise<Uint8Array>;
  /**
   * Fills `dest` with the dest.length bytes at `position` (the same errors as read). Optional: readInto() falls back
   * to read and a copy; a file reads straight into the caller's array (e.g. Wasm memory), with no fresh buffer.
   */
  readInto?(position: number, dest: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** source.readInto, or read and a copy for a source without it. */
export async function readInto(source: ByteSource, position: number, dest: Uint8Array): Promise<void> {
  if (source.readInto) return source.readInto(position, dest);
  const bytes = await source.read(position, dest.length);
  if (bytes.length < dest.length) throw truncated(source.name, position + bytes.length, dest.length - bytes.length);
  dest.set(bytes);
}

/** The error a source gives when its bytes end before a requested range does. */
export function truncated(name: string, at: number, missing: number): SafetensorsError {
  return new SafetensorsError(name, `ended at byte ${at}; expected ${missing} more bytes: truncated file`);
}

/** Refuses a range that is not within the source's bytes (the reader only asks for valid ones; direct callers may not). */
export function checkRange(source: ByteSource, position: number, length: number): void {
  if (!Number.isSafeInteger(position) || !Number.isSafeInteger(length) || position < 0 || length < 0 || position + length > source.size) {
    throw new CodeRangeError("position, length", `are ${position}, ${length}; allowed: a range within the ${source.size} bytes of ${source.name}`);
  }
}

/** Reads shorter than this (headers, scale rows) neither start nor replace a read-ahead. */
const READ_AHEAD_MIN = 65536;

/**
 * A local file read with positional reads. node:fs is loaded on first use, so browser bundles never load it. Each
 * read of at least READ_AHEAD_MIN bytes starts the read of the range after it (same length), which a later read takes
 * if it asks for bytes within it: a conversion reading a file front to back then decodes one chunk while the disk
 * delivers the next, even with small reads (its scales) in between.
 */
export class FileSource implements ByteSource {
  private ahead: { position: number; length: number; bytes: Promise<Uint8Array | undefined> } | undefined;

  private constructor(
    readonly name: string,
    readonly size: number,
    private readonly handle: import("node:fs/promises").FileHandle,
  ) {}

  /** Opens `path` read-only; a directory or a missing file is an IoError naming the path (`expected`: what it should be). */
  static async open(path: string, expected = "a safetensors file"): Promise<FileSource> {
    const { open } = await import("node:fs/promises");
    const handle = await onPath(path, () => open(path, "r"));
    try {
      const info = await onPath(path, () => handle.stat());
      if (info.isDirectory()) throw new IoError(path, `is a directory; allowed: ${expected}`);
      return new FileSource(path, info.size, handle);
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async read(position: number, length: number): Promise<Uint8Array> {
    checkRange(this, position, length);
    const ahead = this.ahead;
    const within = ahead !== undefined && position >= ahead.position && position + length <= ahead.position + ahead.length;
    // A read-ahead that failed is simply not used: the read below reports the error for the range asked for.
    const early = within ? await ahead.bytes : undefined;
    const at = position - (ahead?.position ?? 0);
    const whole = early !== undefined && at === 0 && length === early.length;
    const bytes = early === undefined ? await this.readRange(position, length) : whole ? early : early.slice(at, at + length);
    // Only streaming-sized reads move the read-ahead: a small read in between (a scale row, a header) leaves it
    // pending for the next chunk instead of discarding it.
    if (within || length >= READ_AHEAD_MIN) {
      const next = position + length;
      const nextLength = Math.min(length, this.size - next);
      this.ahead = nextLength > 0 ? { position: next, length: nextLength, bytes: this.readRange(next, nextLength).catch(() => undefined) } : undefined;
    }
    return bytes;
  }

  /** A positional read into `dest`, leaving the read-ahead alone (a caller reading into its own buffers reads ahead itself). */
  async readInto(position: number, dest: Uint8Array): Promise<void> {
    checkRange(this, position, dest.length);
    const length = dest.length;
    let done = 0;
    while (done < length) {
      const { bytesRead } = await onPath(this.name, () => this.handle.read(dest, done, length - done, position + done));
      if (bytesRead === 0) throw truncated(this.name, position + done, length - done);
      done += bytesRead;
    }
  }

  private async readRange(position: number, length: number): Promise<Uint8Array> {
    const bytes = new Uint8Array(length);
    await this.readInto(position, bytes);
    return bytes;
  }

  async close(): Promise<void> {
    await this.ahead?.bytes;
    this.ahead = undefined;
    await this.handle.close();
  }
}

/** A Blob or File (e.g. from an <input type=file> or a drop), read slice by slice. */
export class BlobSource implements ByteSource {
  readonly size: number;

  constructor(
    private readonly blob: Blob,
    readonly name = (blob as Partial<File>).name || "blob",
  ) {
    this.size = blob.size;
  }

  async read(position: number, length: number): Promise<Uint8Array> {
    checkRange(this, position, length);
    const bytes = new Uint8Array(await this.blob.slice(position, position + length).arrayBuffer());
    if (bytes.length !== length) throw truncated(this.name, position + bytes.length, length - bytes.length);
    return bytes;
  }

  async close(): Promise<void> {}
}
