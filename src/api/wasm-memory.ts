// Zero-copy arrays in Wasm memory: bulk calls given their `.array` views run the kernels without copies.
import { ArgumentTypeError } from "../errors.js";
import { WasmArray } from "../wasm/memory.js";
import { codeArrayType } from "./validate.js";
import { type FormatLike, resolveFormat } from "./scalar.js";

/** n float32 values in Wasm memory (inputs of quantize, outputs of dequantize). Free with `.free()`. */
export function allocFloat32(n: number): WasmArray<Float32Array> {
  return new WasmArray(Float32Array, n);
}

/** n codes of a format in Wasm memory: Uint8Array views up to 8 bits, Uint16Array up to 16. */
export function allocCodes(fmt: FormatLike, n: number): WasmArray<Uint8Array> | WasmArray<Uint16Array> {
  const f = resolveFormat(fmt);
  const type = codeArrayType(f);
  if (type === Uint32Array) throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; allowed: a format of up to 16 bits`);
  return type === Uint8Array ? new WasmArray(Uint8Array, n) : new WasmArray(Uint16Array, n);
}

/** n bytes in Wasm memory (e.g. packed FP4/FP6 codes: packedLength(n, bits) bytes). */
export function allocBytes(n: number): WasmArray<Uint8Array> {
  return new WasmArray(Uint8Array, n);
}
