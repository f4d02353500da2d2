// Streaming safetensors writer. The header is fixed up front from the tensor specs, data is appended tensor by
// tensor in any chunk sizes, and the file appears only on commit: written to a temporary file in the target's
// directory, then linked (or, with force, renamed) into place, so readers never see a partial file.
import { existsSync } from "node:fs";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { CodeArray, QuantizeOptions } from "../api/bulk.js";
import { requireCodes, requireCodesIn } from "../api/validate.js";
import { ArgumentTypeError, CodeRangeError, describe } from "../errors.js";
import { codesToBytes, valuesToBytes, valuesToCodes } from "./convert.js";
import { fsyncOption, outputTarget, pending, placeWithoutClobbering, temporaryPath } from "./atomic.js";
import { IoError, SafetensorsError } from "./errors.js";
import { fsError, onPath } from "./fs-errors.js";
import { type TensorInfo, type TensorSpec, serializeHeader } from "./header.js";
import { checkOptions } from "../options.js";

export interface WriterOptions {
  metadata?: Readonly<Record<string, string>>;
  /** Replace an existing file at the path (default: refuse). */
  force?: boolean;
  /** Files the output must not replace (e.g. the input of a conversion). */
  protect?: readonly string[];
  /** Flush the file to the disk before moving it into place (default false; see fsyncOption). */
  fsync?: boolean;
}

const WRITER_KEYS = ["metadata", "force", "protect", "fsync"] as const satisfies readonly (keyof WriterOptions)[];
const WRITE_BYTES_KEYS = ["copy"] as const;
/** Written bytes after which an early writeback starts (see writeBack). */
const EARLY_SYNC = 64 << 20;

export class SafetensorsWriter {
  /** Index of the tensor being written and how many of its elements have arrived. */
  private current = 0;
  private written = 0;
  private position: number;
  /** Codes of a packed tensor that do not fill a whole byte yet. */
  private carry: Uint8Array = new Uint8Array(0);
  private state: "open" | "committed" | "aborted" = "open";
  /** The last write started (write-behind: see append). */
  private inflight: Promise<void> = Promise.resolve();
  /** Bytes written since the last early writeback started, the one running, and the first error one reported. */
  private unsynced = 0;
  private syncing: Promise<void> | undefined;
  private syncError: unknown;

  private constructor(
    readonly path: string,
    readonly tempPath: string,
    private readonly handle: FileHandle,
    readonly tensors: readonly TensorInfo[],
    /** File offset of the data buffer (8 + header length). */
    readonly dataStart: number,
    private readonly force: boolean,
    private readonly fsync: boolean,
  ) {
    this.position = dataStart;
    this.skipEmpty();
  }

  /** Validates the specs, refuses an existing output (unless force) and opens the temporary file. */
  static async create(path: string, specs: readonly TensorSpec[], options: WriterOptions = {}): Promise<SafetensorsWriter> {
    checkOptions(options, WRITER_KEYS);
    const fsync = fsyncOption(options);
    const target = outputTarget(path, options);
    const { bytes, tensors } = serializeHeader(specs, options.metadata ?? {});
    if (!existsSync(dirname(target))) throw new IoError(path, `directory ${dirname(target)} does not exist; allowed: a path in an existing directory`);
    const tempPath = temporaryPath(target);
    const handle = await onPath(path, () => open(tempPath, "wx"));
    pending.add(tempPath);
    try {
      await handle.write(bytes, 0, bytes.length, 0);
    } catch (e) {
      await discard(handle, tempPath);
      throw fsError(e, path);
    }
    return new SafetensorsWriter(target, tempPath, handle, tensors, bytes.length, options.force ?? false, fsync);
  }

  /** The tensor the next write belongs to, or undefined when every tensor is complete. */
  get next(): TensorInfo | undefined {
    return this.tensors[this.current];
  }

  /**
   * Appends stored bytes of the current tensor (pass-through copies); they must not run past its end. With
   * `copy: false` the writer reads `bytes` in place while the caller prepares the next chunk: leave them unchanged
   * until the writer's next call after this one has returned (three buffers in rotation suffice).
   */
  async writeBytes(bytes: Uint8Array, options: { copy?: boolean } = {}): Promise<void> {
    checkOptions(options, WRITE_BYTES_KEYS);
    const t = this.requireCurrent();
    if (this.written > 0) throw new SafetensorsError(`tensor "${t.name}"`, "raw bytes cannot follow codes or values within one tensor");
    const total = t.end - t.begin;
    const done = this.position - this.dataStart - t.begin;
    if (done + bytes.length > total) throw new CodeRangeError("bytes", `has ${bytes.length} bytes; tensor "${t.name}" has ${total - done} left`);
    await this.append(bytes, options.copy === false);
    if (done + bytes.length === total) this.advance();
  }

  /**
   * Hands the next `bytes` stored bytes of the current tensor to another writer of the temporary file (a conversion
   * worker, which writes them at `position` of `path` before commit); they count as written here.
   */
  reserveBytes(bytes: number): { path: string; position: number } {
    const t = this.requireCurrent();
    if (this.written > 0) throw new SafetensorsError(`tensor "${t.name}"`, "raw bytes cannot follow codes or values within one tensor");
    const total = t.end - t.begin;
    const done = this.position - this.dataStart - t.begin;
    if (done + bytes > total) throw new CodeRangeError("bytes", `is ${bytes}; tensor "${t.name}" has ${total - done} bytes left`);
    const position = this.position;
    this.position += bytes;
    this.writeBack(bytes);
    if (done + bytes === total) this.advance();
    return { path: this.tempPath, position };
  }

  /**
   * Appends codes of the current tensor's format (F4/F6 are packed; chunks of any length): a Uint8Array for formats of
   * up to 8 bits, a Uint16Array up to 16, every code below 2^K; an integer tensor's elements as the unsigned array of
   * their width.
   */
  async writeCodes(codes: CodeArray): Promise<void> {
    const t = this.requireCurrent();
    const f = t.format;
    if (f) requireCodes(codes, f);
    else {
      const type = { 8: Uint8Array, 16: Uint16Array, 32: Uint32Array }[t.info.bits];
      if (!type || !(codes instanceof type)) {
        const allowed = type
          ? `the ${t.info.bits}-bit elements of ${t.dtype} tensor "${t.name}" as unsigned integers`
          : `writeBytes for ${t.dtype} tensor "${t.name}"`;
        throw new ArgumentTypeError("codes", `got ${describe(codes)}; allowed: ${allowed}`);
      }
    }
    this.requireCount(codes.length);
    let all = codes;
    const bits = t.info.bits;
    // Codes of narrow formats in whole bytes (a 6-bit format in U8, a 12-bit one in U16) could hold any value: a
    // file whose codes its reader refuses is never committed. F4/F6 packing checks its own.
    if (f && bits !== 4 && bits !== 6) requireCodesIn(codes, f, "codes");
    if (bits === 4 || bits === 6) {
      const group = bits === 4 ? 2 : 4;
      const merged = new Uint8Array(this.carry.length + codes.length);
      merged.set(this.carry);
      merged.set(codes, this.carry.length);
      const last = this.written + codes.length === t.length;
      const whole = last ? merged.length : merged.length - (merged.length % group);
      this.carry = merged.slice(whole);
      all = merged.subarray(0, whole);
    }
    await this.append(codesToBytes(t, all), bits === 4 || bits === 6);
    this.written += codes.length;
    if (this.written === t.length) this.advance();
  }

  /** Appends values converted to the current tensor's format under the projection in `options`. */
  async writeValues(values: Float32Array | Float64Array, options: QuantizeOptions = {}): Promise<void> {
    const t = this.requireCount(values.length);
    if (t.info.bits === 4 || t.info.bits === 6) {
      await this.writeCodes(valuesToCodes(t, values, options));
      return;
    }
    const bytes = valuesToBytes(t, values, options);
    await this.append(bytes, bytes.buffer !== values.buffer);
    this.written += values.length;
    if (this.written === t.length) this.advance();
  }

  /** Waits for the writes started so far (their errors surface here). */
  async flush(): Promise<void> {
    await this.inflight;
  }

  /** Checks every tensor is complete, flushes, and moves the file into place. */
  async commit(): Promise<void> {
    if (this.state !== "open") throw new IoError(this.path, `writer is already ${this.state}`);
    const t = this.next;
    if (t) {
      await this.abort();
      throw new SafetensorsError(`tensor "${t.name}"`, `received ${this.written} of its ${t.length} elements; nothing was written to ${this.path}`);
    }
    try {
      await this.flush();
      await this.syncing;
      if (this.syncError !== undefined) throw this.syncError;
      if (this.fsync) await this.handle.sync();
      await this.handle.close();
      if (this.force) await rename(this.tempPath, this.path);
      else await placeWithoutClobbering(this.tempPath, this.path);
    } catch (e) {
      this.state = "aborted";
      await rm(this.tempPath, { force: true });
      pending.delete(this.tempPath);
      throw fsError(e, this.path);
    }
    pending.delete(this.tempPath);
    this.state = "committed";
  }

  /** Discards the temporary file; the output path is left untouched. */
  async abort(): Promise<void> {
    if (this.state !== "open") return;
    this.state = "aborted";
    await this.inflight.catch(() => undefined);
    await this.syncing;
    await discard(this.handle, this.tempPath);
  }

  private requireCurrent(): TensorInfo {
    if (this.state !== "open") throw new IoError(this.path, `writer is ${this.state}`);
    const t = this.next;
    if (!t) throw new CodeRangeError("data", "every tensor is already complete");
    return t;
  }

  private requireCount(n: number): TensorInfo {
    const t = this.requireCurrent();
    if (this.position !== this.dataStart + t.begin + ((this.written - this.carry.length) * t.info.bits) / 8) {
      throw new SafetensorsError(`tensor "${t.name}"`, "codes or values cannot follow raw bytes within one tensor");
    }
    if (this.written + n > t.length) throw new CodeRangeError("length", `is ${n}; tensor "${t.name}" has ${t.length - this.written} elements left`);
    return t;
  }

  /**
   * Starts writing `bytes` at the current position and returns once the previous write is done: one write stays in
   * flight while the caller converts the next chunk (write-behind), and its error surfaces on the next append or on
   * commit. `owned`: nothing changes the bytes until this write is done (else they are copied: a caller may reuse its
   * array).
   */
  private async append(bytes: Uint8Array, owned = false): Promise<void> {
    const previous = this.inflight;
    const data = owned ? bytes : bytes.slice();
    const at = this.position;
    this.position += data.length;
    this.inflight = (async () => {
      await previous;
      let done = 0;
      while (done < data.length) {
        const { bytesWritten } = await onPath(this.path, () => this.handle.write(data, done, data.length - done, at + done));
        done += bytesWritten;
      }
      this.writeBack(data.length);
    })();
    // Handled here so a failure is not an unhandled rejection before the next append or commit awaits it.
    this.inflight.catch(() => undefined);
    await previous;
  }

  /**
   * Starts flushing the data written so far to the disk once EARLY_SYNC bytes have accumulated, while the conversion
   * goes on: the fsync at commit then waits only for the tail instead of the whole file. Linux reports a writeback
   * error to one fsync only, so an error here is kept and thrown at commit. Only with `fsync`.
   */
  private writeBack(bytes: number): void {
    if (!this.fsync) return;
    this.unsynced += bytes;
    if (this.unsynced < EARLY_SYNC || this.syncing !== undefined) return;
    this.unsynced = 0;
    this.syncing = this.handle
      .datasync()
      .catch((e: unknown) => {
        this.syncError ??= fsError(e, this.path);
      })
      .finally(() => {
        this.syncing = undefined;
      });
  }

  private advance(): void {
    this.current++;
    this.written = 0;
    this.carry = new Uint8Array(0);
    this.skipEmpty();
  }

  private skipEmpty(): void {
    while (this.current < this.tensors.length && this.tensors[this.current]!.length === 0) this.current++;
  }
}

async function discard(handle: FileHandle, tempPath: string): Promise<void> {
  await handle.close().catch(() => undefined);
  await rm(tempPath, { force: true });
  pending.delete(tempPath);
}
