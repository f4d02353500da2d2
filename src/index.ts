// minifloat: exact small floating-point formats (IEEE P3109, OCP, ml_dtypes, Tesla) for JavaScript — the bulk API.
// The P3109 operations, κ and conformance are in minifloat/p3109; safetensors I/O and the worker pool have subpaths too.
export { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError, type MiniFloatError } from "./errors.js";
export { Format, type FormatSpec, type Family, type Signedness, type Domain } from "./format/model.js";
export { format, customFormat, registeredNames } from "./format/registry.js";
export type { Exact } from "./exact/value.js";
export { ROUNDINGS, SATURATIONS, type Projection, type Rounding, type Saturation } from "./exact/projection.js";
export { newFlags, type ConversionFlags } from "./exact/cast.js";
export { decode, decodeExact, encode, encodeExact, type FormatLike } from "./api/scalar.js";
export { quantize, dequantize, convert, type ConvertOptions, type DequantizeOptions, type DequantizeTarget, type Float16ArrayLike } from "./api/bulk.js";
export type { QuantizeOptions, RandomArray, RandomOptions } from "./api/plan.js";
export type { CodeArray } from "./api/validate.js";
export { packCodes, unpackCodes, quantizePacked, dequantizePacked, packedLength, type PackedBits } from "./api/packed.js";
export { allocFloat32, allocCodes, allocBytes } from "./api/wasm-memory.js";
export { memoryStats } from "./wasm/memory.js";
export { WasmArray } from "./wasm/memory.js";
// The one kernel switch: useKernels(false) makes every bulk call (here, in minifloat/parallel and its workers) run the reference.
export { useKernels, kernelStatus } from "./wasm/instance.js";
export { initKernels } from "./api/init.js";
export { MiniFloatArray, type MiniFloatSource, type FromOptions } from "./views/minifloat-array.js";
export {
  miniFloatArrayType,
  type MiniFloatArrayType,
  Float8E4M3FNArray,
  Float8E5M2Array,
  Float8E4M3FNUZArray,
  Float8E5M2FNUZArray,
  Float8E8M0FNUArray,
  Float6E3M2FNArray,
  Float6E2M3FNArray,
  Float4E2M1FNArray,
  BFloat16Array,
} from "./views/types.js";
export {
  quantizeBlocks,
  dequantizeBlocks,
  blockScheme,
  MX_SCHEMES,
  MXINT8_ELEMENT,
  type BlockQuantizeOptions,
  type BlockScheme,
  type BlockTensor,
  type CustomScheme,
  type SchemeName,
} from "./block/index.js";
export { dot, dotRows, matvec, matmul, DOT_OVERFLOW_MODES, type DotOptions, type DotOverflow, type MatOptions, type MatScales } from "./dot/index.js";
export { PARTIALS_FORMATS, type PartialsName } from "./dot/partials.js";
