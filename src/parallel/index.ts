// minifloat/parallel (Node only): bulk quantize/dequantize on worker threads.
export { createPool, Pool, DEFAULT_MIN_ELEMENTS, type PoolOptions } from "./pool.js";
