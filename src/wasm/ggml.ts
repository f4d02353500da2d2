// Host side of assembly/ggml.ts: the element passes of ggml's reference block quantizers over float32 values
// streamed through Wasm memory, once src/io/gguf/encode.ts chose every block's scale (its loops are the reference).
import { kernels } from "./instance.js";
import { allocBytesRaw, freeBytesRaw, keep, memoryBuffer, stream } from "./memory.js";

/** Runs `call` with `perBlock` (one float32 per block) copied into Wasm memory; values stay valid across the allocation. */
function withPerBlock(values: Float32Array, perBlock: Float32Array, call: (values: Float32Array, ptr: number) => void): void {
  const xs = keep(values);
  const ptr = allocBytesRaw(perBlock.byteLength, "scales");
  try {
    new Float32Array(memoryBuffer(), ptr, perBlock.length).set(perBlock);
    call(xs(), ptr);
  } finally {
    freeBytesRaw(ptr, perBlock.byteLength);
  }
}

/** Q8_0's int8 elements into blocks of 34 bytes (qs at +2) with ids[b] = 1/d; false when the kernels are off. */
export function q8ElementsWasm(values: Float32Array, ids: Float32Array, out: Uint8Array): boolean {
  const k = kernels();
  if (!k) return false;
  withPerBlock(values, ids, (x, ptr) =>
    stream(x, out, (src, dst, count, first) => k.q8Elements(src, count / 32, ptr + (first / 32) * 4, dst), { group: 32, outGroupBytes: 34 }),
  );
  return true;
}

/** Where a GGUF block type keeps its nibbles: sub-blocks per block, block bytes, scale bytes before the nibbles. */
export interface NibbleLayout {
  readonly width: 16 | 32;
  readonly per: number;
  readonly stride: number;
  readonly head: number;
}

/** E2M1 nibbles of sub-blocks of `width` values under half-scales d (one per sub-block); false when the kernels are off. */
export function e2m1NearestWasm(values: Float32Array, d: Float32Array, out: Uint8Array, layout: NibbleLayout): boolean {
  const k = kernels();
  if (!k) return false;
  const { width, per, stride, head } = layout;
  withPerBlock(values, d, (x, ptr) =>
    stream(x, out, (src, dst, count, first) => k.e2m1Nearest(src, count / width, width, ptr + (first / width) * 4, dst, per, stride, head), {
      group: width * per,
      outGroupBytes: stride,
    }),
  );
  return true;
}
