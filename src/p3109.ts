// minifloat/p3109: the P3109 operations beyond conversion — specializations of the operation catalogue (§4.9–4.16),
// κ-approximations, conformance declarations, ωProject of exact reals, the §5 block operations, and the narrow-partials
// research tools (projectPartial, the dot-product saturation experiment).
export { omegaProject } from "./api/scalar.js";
export {
  specialize,
  operationNames,
  operationInfo,
  CLASS_NAMES,
  FORMAT_QUERIES,
  measureKappa,
  approximate,
  approximationNames,
  kappaOf,
  conformanceFiles,
  mandatorySpecializations,
  isSupported,
  specializationOf,
  type Specialization,
  type OperationSpec,
  type MapOptions,
  type Code,
  type KappaResult,
  type ApproximateSpecialization,
} from "./ops/index.js";
export {
  blockDecode,
  blockProject,
  convertToBlock,
  convertFromBlock,
  convertToBlockMaxAbsFinite,
  blockReduceAdd,
  blockReduceMultiply,
  blockDotProduct,
  blockOp,
  BLOCK_OPS,
  type ScaledBlock,
  type BlockProjection,
  type BlockOperand,
  type BlockOpName,
} from "./block/p3109.js";
export { saturationExperiment, type SaturationOptions, type SaturationResult } from "./dot/saturation.js";
export { projectPartial, OVERFLOW_MODES, type OverflowMode } from "./dot/partials.js";
// The projection steps under the report's names (§4.7.3–§4.7.6) and the decoding they start from (§4.7.2, §4.8).
export {
  roundToPrecision,
  saturate,
  SATURATE_RESULTS,
  encode as omegaEncode,
  projectP3109,
  type RoundedCode,
  type Saturated,
  type SaturationRule,
} from "./exact/project.js";
export { decodeExact as omegaDecode, operandValue as omegaDecodeExternal } from "./exact/decode.js";
export { resolveProjection, type ResolvedProjection } from "./exact/projection.js";
export { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError, type MiniFloatError } from "./errors.js";
