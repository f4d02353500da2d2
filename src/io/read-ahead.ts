// Two Wasm-memory slots that a tensor's chunks are read into from its file: while the kernels run on the chunk in one
// slot, the libuv thread pool reads the next chunk into the other (`quantize --to`'s workspace, dequantize's room).
// The thread pool writes into Wasm memory while the main thread computes, so the memory must not grow meanwhile (a
// growth detaches the array the read fills, and may move the memory): the owners allocate every buffer up front and
// start a read only where nothing allocates until it is taken; a growth while a read is in flight is refused, as an
// internal error, never used.
import type { TensorInfo } from "./header.js";
import type { SafetensorsReader } from "./reader.js";
import { WasmArray, memoryBuffer } from "../wasm/memory.js";

/** A read into a slot: stored bytes [offset, offset + length) of t. */
interface Read {
  readonly t: TensorInfo;
  readonly offset: number;
  readonly length: number;
  readonly slot: number;
  readonly done: Promise<void>;
}

export class ReadAhead {
  private ahead: Read | undefined;
  /** The slot of the bytes last taken. */
  private slot = 0;
  private readonly slots: readonly [WasmArray<Uint8Array>, WasmArray<Uint8Array>];

  /** Two slots of `bytes` bytes (in the kernels' memory: the caller checked they are available). */
  constructor(bytes: number) {
    this.slots = [new WasmArray(Uint8Array, bytes), new WasmArray(Uint8Array, bytes)];
  }

  /** The most bytes a read may take. */
  get capacity(): number {
    return this.slots[0].length;
  }

  /**
   * Stored bytes [offset, offset + length) of t in a slot: the read started ahead when it was of this range, else read
   * now (a read ahead of another range still finishes before its slot is reused).
   */
  async take(reader: SafetensorsReader, t: TensorInfo, offset: number, length: number): Promise<Uint8Array> {
    const ahead = this.ahead;
    this.ahead = undefined;
    const hit = ahead !== undefined && ahead.t === t && ahead.offset === offset && ahead.length === length;
    if (!hit) await ahead?.done.catch(() => undefined);
    const read = hit ? ahead : this.read(reader, t, offset, length, 1 - this.slot);
    await read.done;
    this.slot = read.slot;
    return this.current(length);
  }

  /** The first `length` bytes of the slot last taken (a view made now). */
  current(length: number): Uint8Array {
    return this.slots[this.slot]!.array.subarray(0, length);
  }

  /** Starts reading stored bytes [offset, offset + length) of t into the other slot (nothing when length is 0). */
  start(reader: SafetensorsReader, t: TensorInfo, offset: number, length: number): void {
    if (length > 0) this.ahead = this.read(reader, t, offset, length, 1 - this.slot);
  }

  private read(reader: SafetensorsReader, t: TensorInfo, offset: number, length: number, slot: number): Read {
    const memory = memoryBuffer();
    const done = reader.readTensorBytesInto(t, offset, this.slots[slot]!.array.subarray(0, length)).then(() => {
      if (memoryBuffer() !== memory) throw new Error("internal error: Wasm memory grew while a read into it was in flight");
    });
    done.catch(() => undefined); // awaited by take() or close(); not an unhandled rejection meanwhile
    return { t, offset, length, slot, done };
  }

  /** Waits for a read still in flight (after an error), then frees the slots. */
  async close(): Promise<void> {
    await this.ahead?.done.catch(() => undefined);
    this.ahead = undefined;
    for (const s of this.slots) s.free();
  }
}
