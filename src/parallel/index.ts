// minifloat/parallel: bulk quantize/dequantize and batched dot products on worker threads (Node or browsers).
export { createPool, Pool, DEFAULT_MIN_ELEMENTS, type PoolOptions } from "./pool.js";
// The library's error classes (the same classes as minifloat's: entries share one chunk), to catch by class.
export { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError, type MiniFloatError } from "../errors.js";
