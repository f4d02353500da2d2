// The P3109 operation catalogue (report §4.9–4.16, §5.5): specializations, ω-functions, κ-approximations and the
// conformance declarations generated from the catalogue.
export {
  specialize,
  requireOperationFormat,
  codeArrayFor,
  type Specialization,
  type OperationSpec,
  type MapOptions,
  type Code,
  type CodeArrayLike,
  type Result,
} from "./specialize.js";
export { operationInfo, operationNames, type OpInfo, type OpKind, type OpGroup } from "./registry.js";
export { CLASS_NAMES, type ClassName } from "./comparison.js";
export { FORMAT_QUERIES, type FormatQuery } from "./queries.js";
export type { Omega } from "./arithmetic.js";
export {
  measureKappa,
  approximate,
  approximationNames,
  kappaOf,
  type KappaResult,
  type KappaPiece,
  type ApproximateOp,
  type ApproximateSpecialization,
} from "./kappa.js";
export {
  conformanceFiles,
  mandatorySpecializations,
  isSupported,
  specializationOf,
  declaredKappas,
  F4,
  F8,
  FX,
  type Mandatory,
  type ConformanceOptions,
} from "./conformance.js";
