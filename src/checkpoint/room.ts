// Wasm-memory room that a converter lends readRounded for block-scaled byte codes (decode.ts), so that a chunk is
// never copied: its codes are read from the file straight into one of two code slots, and its per-block tables are
// rounded into the room and gathered from there into the caller's output (itself in Wasm memory). A converter reads
// a tensor front to back in chunks of equal size, so taking a chunk's codes starts reading the next chunk's (same
// size, clamped to the tensor) into the other slot, and its scale rows likewise: the libuv thread pool reads them
// while the current chunk is rounded and gathered.
//
// The thread pool reads into Wasm memory while the main thread computes, so the memory must not grow meanwhile (a
// growth detaches the array the read fills, and may move the memory): every buffer is allocated here, up front, at
// its largest (a chunk's code bytes and the most table entries a chunk can need), and readRounded lends the room
// only for an output in Wasm memory, i.e. from a tensor's second chunk on (dequantize.ts OutputSlots): the first
// chunk's decode, into a JavaScript array without the room, made the kernels' own allocations, and nothing that
// runs while a read is in flight allocates. A growth while a read is in flight is refused, never used.
import type { TensorInfo } from "../io/header.js";
import type { SafetensorsReader } from "../io/reader.js";
import { kernels } from "../wasm/instance.js";
import { WasmArray } from "../wasm/memory.js";
import { ReadAhead } from "../io/read-ahead.js";

/** Views of a room's table buffers (GatherRoom.tables). */
export interface RoomTables {
  readonly out: Float32Array | Uint16Array;
  readonly odd: Float32Array;
  readonly values?: Float64Array;
  readonly scales?: Float64Array;
}

export class GatherRoom {
  private scalesAhead: { owner: object; first: number; count: number; values: Promise<unknown> } | undefined;

  private constructor(
    /** The code slots: a chunk's codes, and the next chunk's read meanwhile. */
    private readonly reads: ReadAhead,
    /** Rounded tables: float32 bits or 16-bit patterns. */
    private readonly rounded: WasmArray<Uint32Array>,
    /** Exact table values rounded to float32 to odd, the float32 kernel's input. */
    private readonly odd: WasmArray<Float32Array>,
    /** The table kernel's inputs: each code's value, and the scales of a chunk (one per 256 entries). */
    private readonly values: WasmArray<Float64Array>,
    private readonly scalesIn: WasmArray<Float64Array>,
  ) {}

  /** Room for chunks of up to `codeBytes` byte codes and `entries` table entries; undefined without the kernels. */
  static create(codeBytes: number, entries: number): GatherRoom | undefined {
    if (!kernels()) return undefined;
    return new GatherRoom(
      new ReadAhead(codeBytes),
      new WasmArray(Uint32Array, entries),
      new WasmArray(Float32Array, entries),
      new WasmArray(Float64Array, 256),
      new WasmArray(Float64Array, Math.ceil(entries / 256)),
    );
  }

  /** The most table entries a chunk may use. */
  get entries(): number {
    return this.rounded.length;
  }

  /** The most code bytes a chunk may use. */
  get codeBytes(): number {
    return this.reads.capacity;
  }

  /**
   * Stored bytes [offset, offset + length) of t: read ahead during the previous chunk when that read was of this
   * range, else read now; then starts reading the next chunk's `ahead` bytes into the other slot (see the file comment).
   */
  async codes(reader: SafetensorsReader, t: TensorInfo, offset: number, length: number, ahead: number): Promise<Uint8Array> {
    const codes = await this.reads.take(reader, t, offset, length);
    this.reads.start(reader, t, offset + length, ahead);
    return codes;
  }

  /**
   * Scale values (or codes) [first, first + count) of `owner`'s scale tensor, read by `read`: read ahead during the previous
   * chunk when that read was of this range; then starts reading `next` ([first, count]), the next chunk's.
   */
  scales<T>(owner: object, first: number, count: number, read: (first: number, count: number) => Promise<T>, next?: [number, number]): Promise<T> {
    const ahead = this.scalesAhead;
    const values = ahead?.owner === owner && ahead.first === first && ahead.count === count ? (ahead.values as Promise<T>) : read(first, count);
    this.scalesAhead = next && { owner, first: next[0], count: next[1], values: read(next[0], next[1]) };
    this.scalesAhead?.values.catch(() => undefined); // its error surfaces when taken
    return values;
  }

  /**
   * Room for the tables of `scales` scales × `codes` codes (`entries` of them) with results of `bits` bits: the
   * rounded tables, their float32 staging, and (up to 256 codes) the table kernel's inputs, the codes' values and the
   * scales. Views made now (see memoryBuffer).
   */
  tables(bits: 16 | 32, entries: number, codes: number, scales: number): RoomTables {
    const r = this.rounded.array;
    const out = bits === 32 ? new Float32Array(r.buffer, r.byteOffset, entries) : new Uint16Array(r.buffer, r.byteOffset, entries);
    const fits = codes <= 256 && scales <= this.scalesIn.length;
    const inputs = fits ? { values: this.values.array.subarray(0, codes), scales: this.scalesIn.array.subarray(0, scales) } : {};
    return { out, odd: this.odd.array.subarray(0, entries), ...inputs };
  }

  /** Waits for a read still in flight (after an error), then frees the buffers. */
  async close(): Promise<void> {
    await this.reads.close();
    await this.scalesAhead?.values.catch(() => undefined);
    this.scalesAhead = undefined;
    for (const a of [this.rounded, this.odd, this.values, this.scalesIn]) a.free();
  }
}
