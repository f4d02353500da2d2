// minifloat/safetensors in browsers and workers: reading only (files over HTTP range requests, Blobs and Files);
// the writer needs a file system. A file path is the one input that needs Node (its node:fs is loaded on demand).
export { IoError, SafetensorsError } from "./errors.js";
export { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError, type MiniFloatError } from "../errors.js";
export { DTYPES, FORMAT_KEY_PREFIX, storageOf } from "./dtypes.js";
export { MAX_HEADER_BYTES, type TensorInfo } from "./header.js";
export { SafetensorsReader } from "./reader.js";
export { BlobSource, type ByteSource } from "./source.js";
export { HttpSource, openGguf, openSafetensors, type Progress, type RemoteOptions } from "./remote.js";
export { GgufError } from "./gguf/errors.js";
export { GgufReader, type GgufTensorInfo } from "./gguf/reader.js";
export { BLOCK_KEY_PREFIX, SCALES_SUFFIX, type BlockLayout, blockLayouts, readBlockRows } from "./blocks.js";
export { CheckpointError } from "../checkpoint/errors.js";
export { CHECKPOINT_SCHEMES, CHECKPOINT_SCHEME_NAMES, type CheckpointScheme } from "../checkpoint/schemes.js";
export { Checkpoint, type CheckpointInput, type CheckpointOptions, openCheckpoint } from "../checkpoint/open.js";
export type { CheckpointPart, CheckpointTensor, TensorScheme } from "../checkpoint/recognize.js";
export type { QuantConfig } from "../checkpoint/config.js";
