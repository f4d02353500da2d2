// initKernels(): the kernels compiled, then every bulk path run once so that the caller's first call finds the
// library's code compiled too (issue #15: a first call ≤ 5 ms). V8 compiles JavaScript lazily, function by function,
// on first use; the Wasm functions likewise. One 8-bit format through the four bulk paths touches the code every
// format's first call shares; what a format adds on its own (its tables, forms and encode constants) is under 2 ms.
import { format } from "../format/registry.js";
import { compileKernels } from "../wasm/instance.js";
import { dequantize, quantize } from "./bulk.js";

let warmed = false;

/**
 * Compiles the kernels asynchronously (browser main threads refuse large synchronous compiles), then runs quantize
 * and dequantize (to float32, binary16 bits and bfloat16) once on 16 elements, so that the first call after it does
 * not pay for compiling the library's code. False when the kernels are unavailable (calls then use the reference).
 */
export async function initKernels(): Promise<boolean> {
  if (!(await compileKernels())) return false;
  if (!warmed) {
    warmed = true;
    const f = format("float8_e4m3fn");
    const values = Float32Array.from({ length: 16 }, (_, i) => (i - 8) * 2 ** (i - 10));
    const codes = quantize(values, f);
    dequantize(codes, f);
    dequantize(codes, f, { to: "float16", bits: true });
    dequantize(codes, f, { to: "bfloat16" });
  }
  return true;
}
