// Wasm-memory buffers of `quantize --to`, and the chunk pipeline over them. A chunk's bytes are read from the file
// straight into one of two input slots, while the kernels run on the previous chunk in the other slot (the libuv
// thread pool does the read); the values, codes and decoded codes stay in Wasm memory up to the error sums; the codes
// are written to the file straight from one of two output slots while the next chunk is converted. No chunk is copied
// and no buffer is allocated per chunk.
//
// The thread pool reads into and writes from Wasm memory while the main thread computes, so the memory must not grow
// meanwhile (a growth detaches the array the pool uses, and may move the memory). Every slot is allocated here, up
// front; the kernels running on them allocate only on their first call for a format (tables, the stream scratch, at
// most the size of that first chunk, which is the tensor's largest): so the first chunk of each tensor is converted
// before the read-ahead of the second starts, with no write in flight (the file loop flushes after each tensor).
import type { CodeArray } from "../api/bulk.js";
import type { Format } from "../format/model.js";
import type { TensorInfo } from "../io/header.js";
import { dequantize, quantize } from "../io/kernels.js";
import { errorSums } from "../io/error-sums.js";
import type { Rounding, Saturation } from "../exact/projection.js";
import type { ErrorSums, Threshold } from "../wasm/stats.js";
import type { SafetensorsReader } from "../io/reader.js";
import { kernels } from "../wasm/instance.js";
import { WasmArray } from "../wasm/memory.js";
import { ReadAhead } from "../io/read-ahead.js";

export class QuantizeWorkspace {
  /** The output slot of the current chunk. */
  private turn = 0;

  private constructor(
    /** The codes' format and the most elements a chunk may have. */
    readonly format: Format,
    readonly elements: number,
    /** Stored bytes of input chunks: float32 values, or 16-bit codes (F16, BF16 tensors) decoded into x. */
    private readonly inputs: ReadAhead,
    private readonly x: WasmArray<Float32Array>,
    /** Codes, also the stored bytes the writer writes in place (8- and 16-bit codes). */
    private readonly codes: readonly (WasmArray<Uint8Array> | WasmArray<Uint16Array>)[],
    private readonly decoded: WasmArray<Float32Array>,
  ) {}

  /** Buffers of `elements` elements for codes of `f`, or undefined when the kernels are unavailable. */
  static create(f: Format, elements: number): QuantizeWorkspace | undefined {
    if (!kernels()) return undefined;
    const codes = () => (f.K <= 8 ? new WasmArray(Uint8Array, elements) : new WasmArray(Uint16Array, elements));
    return new QuantizeWorkspace(
      f,
      elements,
      new ReadAhead(elements * 4),
      new WasmArray(Float32Array, elements),
      [codes(), codes()],
      new WasmArray(Float32Array, elements),
    );
  }

  /** Whether a tensor's chunks can go through the workspace: float32 and 16-bit float inputs (F64 cannot). */
  static takes(t: TensorInfo): boolean {
    return t.dtype === "F32" || (t.info.bits === 16 && t.format !== undefined);
  }

  /**
   * The values of elements [start, start + count) of t (a tensor `takes` accepts), in Wasm memory: read ahead during
   * the previous call when that one was chunk start − count of the same tensor, else read now.
   */
  async values(reader: SafetensorsReader, t: TensorInfo, start: number, count: number): Promise<Float32Array> {
    const size = t.info.bits / 8;
    const bytes = await this.inputs.take(reader, t, start * size, count * size);
    if (t.dtype === "F32") return new Float32Array(bytes.buffer, bytes.byteOffset, count);
    dequantize(new Uint16Array(bytes.buffer, bytes.byteOffset, count), t.format!, { out: this.x.array.subarray(0, count) });
    return this.x.array.subarray(0, count);
  }

  /**
   * Starts reading elements [start, start + count) of t into the other input slot (nothing when count is 0). Call it
   * once the current chunk's values are taken and, in a tensor's first chunk, after its kernels ran (file comment).
   */
  readAhead(reader: SafetensorsReader, t: TensorInfo, start: number, count: number): void {
    const size = t.info.bits / 8;
    this.inputs.start(reader, t, start * size, count * size);
  }

  /** The next output slot's codes for `count` elements. */
  codesOut(count: number): CodeArray {
    this.turn = 1 - this.turn;
    return this.codes[this.turn]!.array.subarray(0, count);
  }

  /** The values of the last `values` call, the codes of the last `codesOut`, and those codes decoded. */
  decode(f: Format, t: TensorInfo, count: number): { x: Float32Array; codes: CodeArray; y: Float32Array } {
    dequantize(this.codes[this.turn]!.array.subarray(0, count), f, { out: this.decoded.array.subarray(0, count) });
    // Views made after the kernels: a kernel's first call may have grown the memory, which detaches earlier ones.
    const input = this.inputs.current(count * 4);
    const x = t.dtype === "F32" ? new Float32Array(input.buffer, input.byteOffset, count) : this.x.array.subarray(0, count);
    return { x, codes: this.codes[this.turn]!.array.subarray(0, count), y: this.decoded.array.subarray(0, count) };
  }

  /**
   * The codes' stored bytes (8- or 16-bit codes, unpacked), in place in their output slot, for
   * writeBytes(…, { copy: false }): the next chunk's codes go to the other slot, and the one after them only once
   * that chunk's write call returned, i.e. once this write completed.
   */
  storedBytes(codes: CodeArray): Uint8Array {
    return new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength);
  }

  /**
   * One chunk, elements [start, start + count) of t, of a range that ends at `end`: its values (read ahead during the
   * previous chunk), codes and decoded codes, and the error sums of the codes against the values (`limits`: overflow
   * thresholds); the next chunk's read is started (after the kernels in the range's first chunk: file comment).
   */
  async quantizeChunk(
    reader: SafetensorsReader,
    t: TensorInfo,
    projection: { readonly rounding: Rounding; readonly saturation: Saturation },
    range: { readonly start: number; readonly end: number },
    start: number,
    count: number,
    limits: readonly [Threshold, Threshold],
  ): Promise<{ codes: CodeArray; sums: ErrorSums }> {
    const values = await this.values(reader, t, start, count);
    const next = start + count;
    const readAhead = () => this.readAhead(reader, t, next, Math.min(count, range.end - next));
    if (start > range.start) readAhead();
    quantize(values, this.format, { rounding: projection.rounding, saturation: projection.saturation, out: this.codesOut(count) });
    const { x, codes, y } = this.decode(this.format, t, count);
    const sums = errorSums(x, y, limits[0], limits[1]);
    if (start === range.start) readAhead();
    return { codes, sums };
  }

  /** Waits for a read still in flight (after an error), then frees the buffers. */
  async close(): Promise<void> {
    await this.inputs.close();
    for (const a of [this.x, ...this.codes, this.decoded]) a.free();
  }
}
