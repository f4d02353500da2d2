// Host side of assembly/odd.ts: float64 values rounded to float32 to odd in Wasm (src/exact/round-to-odd.ts
// roundToOddFloat32 is the reference).
import { kernels } from "./instance.js";
import { stream } from "./memory.js";

/**
 * x rounded to float32 to odd into out; returns how many elements of x are NaN or at least 2^128 in magnitude (the
 * ones the odd rounding does not carry: beyondOdd32), or undefined when the kernels are off.
 */
export function roundToOddWasm(x: Float64Array, out: Float32Array): number | undefined {
  const k = kernels();
  if (!k) return undefined;
  let beyond = 0;
  stream(x, out, (src, dst, n) => {
    beyond += k.roundToOdd32(src, dst, n);
  });
  return beyond;
}
