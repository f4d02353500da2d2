// minifloat: exact small floating-point formats (IEEE P3109, OCP, ml_dtypes, Tesla) for JavaScript.
export { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError, type MiniFloatError } from "./errors.js";
export { Format, type FormatSpec, type Family, type Signedness, type Domain } from "./format/model.js";
export { format, customFormat, registeredNames } from "./format/registry.js";
export type { Exact } from "./exact/value.js";
export { ROUNDINGS, SATURATIONS, type Projection, type Rounding, type Saturation } from "./exact/projection.js";
export { newFlags, type ConversionFlags } from "./exact/project.js";
export { decode, decodeExact, encode, encodeExact, type FormatLike } from "./api/scalar.js";
export { quantize, dequantize, type QuantizeOptions, type CodeArray } from "./api/bulk.js";
export { randomR, seedKeys } from "./random.js";
