// Host side of assembly/transpose.ts (src/checkpoint/produce.ts transpose is the reference).
import { kernels } from "./instance.js";

/** dst ([N, K]) = the transpose of src ([K, N]), both in Wasm memory; false when the kernels are off. */
export function transposeWasm(src: Float32Array, K: number, N: number, dst: Float32Array): boolean {
  const k = kernels();
  if (!k) return false;
  k.transpose32(src.byteOffset, K, N, dst.byteOffset);
  return true;
}
