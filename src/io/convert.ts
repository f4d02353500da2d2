// Bytes of a tensor ↔ codes ↔ values, with the library's exact conversions. safetensors data is little-endian;
// typed-array views are used directly, so a big-endian host is refused once, here.
import type { CodeArray, QuantizeOptions } from "../api/bulk.js";
import type { Format } from "../format/model.js";
import { dequantize, quantize } from "./kernels.js";
import type { TensorInfo } from "./header.js";
import { packCodes, unpackCodes } from "../api/packed.js";
import { SafetensorsError } from "./errors.js";

// Checked with a typed array rather than node:os, so the reader also runs in browsers.
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
  throw new SafetensorsError("host", "is big-endian; minifloat's safetensors I/O needs a little-endian host");

/** Floating-point tensor with a format (integer dtypes hold no values minifloat converts). */
function requireFormat(t: TensorInfo): Format {
  if (!t.format)
    throw new SafetensorsError(
      `tensor "${t.name}"`,
      `has dtype ${t.dtype}, which holds integers; allowed: a floating-point dtype or a recorded minifloat format`,
    );
  return t.format;
}

/** Codes of the `count` elements stored in `bytes` (K ≤ 16; F4/F6 unpacked). */
export function bytesToCodes(t: TensorInfo, bytes: Uint8Array, count: number): CodeArray {
  const bits = t.info.bits;
  if (bits === 4 || bits === 6) return unpackCodes(bytes, bits, count);
  if (bits === 8) return bytes.subarray(0, count);
  if (bits === 16) return new Uint16Array(bytes.buffer, bytes.byteOffset, count);
  throw new SafetensorsError(`tensor "${t.name}"`, `has ${bits}-bit ${t.dtype} elements; codes are read from tensors of up to 16 bits`);
}

/** Values of `count` elements: float64 for F64, float32 otherwise (exact for every format that fits float32), into `out` when given (not for F64). */
export function bytesToValues(t: TensorInfo, bytes: Uint8Array, count: number, out?: Float32Array): Float32Array | Float64Array {
  const f = requireFormat(t);
  if (t.dtype === "F64") return new Float64Array(bytes.buffer, bytes.byteOffset, count);
  if (t.dtype === "F32") {
    const values = new Float32Array(bytes.buffer, bytes.byteOffset, count);
    if (out === undefined) return values;
    out.set(values);
    return out;
  }
  return dequantize(bytesToCodes(t, bytes, count), f, out ? { out } : {}) as Float32Array;
}

/** Stored bytes of codes (packing F4/F6; the caller hands whole bytes' worth of packed codes, see SafetensorsWriter). */
export function codesToBytes(t: TensorInfo, codes: CodeArray): Uint8Array {
  const bits = t.info.bits;
  if (bits === 4 || bits === 6) return packCodes(codes as Uint8Array, bits);
  return new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength);
}

/**
 * Stored bytes of values converted to the tensor's format with the caller's projection. Without rounding or
 * saturation options, F32 and F64 targets take IEEE round to nearest directly (Math.fround is binary64 → binary32
 * RNE); binary64 holds every input exactly, so it accepts no options.
 */
export function valuesToBytes(t: TensorInfo, values: Float32Array | Float64Array, options: QuantizeOptions): Uint8Array {
  const f = requireFormat(t);
  const { rounding, saturation, stochasticBits, seed, random } = options;
  const projected = [rounding, saturation, stochasticBits, seed, random].some((v) => v !== undefined);
  if (t.dtype === "F64") {
    if (projected)
      throw new SafetensorsError(
        `tensor "${t.name}"`,
        "is F64, which holds every float32/float64 input exactly; allowed: no rounding, saturation or seed options",
      );
    return bytesOf(values instanceof Float64Array ? values : Float64Array.from(values));
  }
  if (t.dtype === "F32" && !projected) return bytesOf(values instanceof Float32Array ? values : Float32Array.from(values));
  return codesToBytes(t, quantize(values, f, options));
}

/** Codes of values in the tensor's format under the caller's projection. */
export function valuesToCodes(t: TensorInfo, values: Float32Array | Float64Array, options: QuantizeOptions): CodeArray {
  return quantize(values, requireFormat(t), options);
}

function bytesOf(a: Float32Array | Float64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
