// minifloat/parallel: bulk quantize/dequantize and batched dot products on worker threads (Node or browsers).
export { createPool, Pool, DEFAULT_MIN_ELEMENTS, type PoolOptions } from "./pool.js";
