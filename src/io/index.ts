// minifloat/safetensors: safetensors and GGUF reading and writing with minifloat's formats (conventions: docs/cli.md),
// local files, Blobs or URLs (HTTP range requests).
export { IoError, SafetensorsError } from "./errors.js";
export { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError, type MiniFloatError } from "../errors.js";
export { DTYPES, FORMAT_KEY_PREFIX, storageOf } from "./dtypes.js";
export { MAX_HEADER_BYTES, type TensorInfo, type TensorSpec } from "./header.js";
export { SafetensorsReader } from "./reader.js";
export { SafetensorsWriter, type WriterOptions } from "./writer.js";
export { abortPendingWrites, writeFileAtomic } from "./atomic.js";
export { GgufError } from "./gguf/errors.js";
export { GgufReader, type GgufTensorInfo } from "./gguf/reader.js";
export { GgufWriter, type GgufTensorSpec, type GgufWriterOptions } from "./gguf/writer.js";
export { mxfp4Blocks, mxfp4BlocksFromPairs, nvfp4Blocks, nvfp4BlocksFromPairs, quantizeMxfp4, quantizeNvfp4, quantizeQ8_0 } from "./gguf/encode.js";
export {
  type GgmlType,
  type GgufScalar,
  type GgufValue,
  type GgufValueType,
  DECODABLE_TYPES,
  GGUF_VERSION,
  ggmlTypeById,
  ggmlTypeByName,
} from "./gguf/format.js";
export { BLOCK_KEY_PREFIX, SCALES_SUFFIX, type BlockLayout, blockLayouts, blockRecord, blockRowLength, blockSpecs, readBlockRows } from "./blocks.js";
export { BlobSource, type ByteSource, FileSource } from "./source.js";
export { HttpSource, openGguf, openSafetensors, type Progress, type RemoteOptions } from "./remote.js";
export { CheckpointError } from "../checkpoint/errors.js";
export { CHECKPOINT_SCHEMES, CHECKPOINT_SCHEME_NAMES, type CheckpointScheme } from "../checkpoint/schemes.js";
export { Checkpoint, type CheckpointInput, type CheckpointOptions, openCheckpoint } from "../checkpoint/open.js";
export type { CheckpointPart, CheckpointTensor, TensorScheme } from "../checkpoint/recognize.js";
export type { QuantConfig } from "../checkpoint/config.js";
export { type DequantizeCheckpointOptions, type DequantizeCheckpointResult, type ProgressSink, dequantizeCheckpoint } from "../checkpoint/dequantize.js";
export type { Target } from "../checkpoint/decode.js";
export { type ProduceJob, type ProduceResult, produceCheckpoint } from "../checkpoint/produce-files.js";
export { PRODUCED_SCHEMES, type Granularity, type ProducedScheme } from "../checkpoint/scales.js";
