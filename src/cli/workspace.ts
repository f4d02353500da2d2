// Wasm-memory buffers of one chunk of `quantize --to`: the input values, their codes and the codes' values stay in the
// kernels' memory from the read to the error sums, so the kernels run on them in place (the bytes read are copied in
// once, the codes out once, for the writer) instead of through stream()'s scratch copies and fresh arrays per call.
import type { CodeArray } from "../api/bulk.js";
import type { Format } from "../format/model.js";
import type { TensorInfo } from "../io/header.js";
import { dequantize } from "../io/kernels.js";
import { kernels } from "../wasm/instance.js";
import { WasmArray } from "../wasm/memory.js";

export class QuantizeWorkspace {
  /** Stored bytes of 8- and 16-bit codes for the writer, three in rotation (see SafetensorsWriter.writeBytes). */
  private readonly out: Uint8Array[] = [];
  private turn = 0;

  private constructor(
    private readonly x: WasmArray<Float32Array>,
    private readonly codes: WasmArray<Uint8Array> | WasmArray<Uint16Array>,
    private readonly decoded: WasmArray<Float32Array>,
    /** 16-bit input codes (F16, BF16 tensors), decoded into x. */
    private readonly input: WasmArray<Uint16Array>,
  ) {}

  /** Buffers of `elements` elements for codes of `f`, or undefined when the kernels are unavailable. */
  static create(f: Format, elements: number): QuantizeWorkspace | undefined {
    if (!kernels()) return undefined;
    const codes = f.K <= 8 ? new WasmArray(Uint8Array, elements) : new WasmArray(Uint16Array, elements);
    return new QuantizeWorkspace(new WasmArray(Float32Array, elements), codes, new WasmArray(Float32Array, elements), new WasmArray(Uint16Array, elements));
  }

  /** Whether a tensor's chunks can go through the workspace: float32 and 16-bit float inputs (F64 cannot). */
  static takes(t: TensorInfo): boolean {
    return t.dtype === "F32" || (t.info.bits === 16 && t.format !== undefined);
  }

  /** The values of `count` elements stored in `bytes` (a tensor `takes` accepts), in x. */
  values(t: TensorInfo, bytes: Uint8Array, count: number): Float32Array {
    if (t.dtype === "F32") {
      const x = this.x.array.subarray(0, count);
      new Uint8Array(x.buffer, x.byteOffset, count * 4).set(bytes.subarray(0, count * 4));
      return x;
    }
    this.input.array.set(new Uint16Array(bytes.buffer, bytes.byteOffset, count));
    dequantize(this.input.array.subarray(0, count), t.format!, { out: this.x.array.subarray(0, count) });
    return this.x.array.subarray(0, count);
  }

  /** The codes buffer for `count` elements (views are made per call: a growth of the memory detaches older ones). */
  codesOut(count: number): CodeArray {
    return this.codes.array.subarray(0, count);
  }

  /** x of the last `values` call, the codes of the last `codesOut`, and those codes decoded. */
  decode(f: Format, count: number): { x: Float32Array; codes: CodeArray; y: Float32Array } {
    dequantize(this.codes.array.subarray(0, count), f, { out: this.decoded.array.subarray(0, count) });
    return { x: this.x.array.subarray(0, count), codes: this.codes.array.subarray(0, count), y: this.decoded.array.subarray(0, count) };
  }

  /**
   * The codes' stored bytes (8- or 16-bit codes, unpacked) in the next of three reused arrays, for
   * writeBytes(…, { copy: false }): unchanged until two more calls have returned.
   */
  storedBytes(codes: CodeArray): Uint8Array {
    const bytes = new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength);
    const k = this.turn++ % 3;
    if ((this.out[k]?.length ?? 0) < bytes.length) this.out[k] = new Uint8Array(this.codes.length * this.codes.array.BYTES_PER_ELEMENT);
    const copy = this.out[k]!.subarray(0, bytes.length);
    copy.set(bytes);
    return copy;
  }

  free(): void {
    for (const a of [this.x, this.codes, this.decoded, this.input]) a.free();
  }
}
