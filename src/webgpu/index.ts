// minifloat/webgpu: WGSL generated from the formats' parameters, and bulk kernels on a GPUDevice.
export { wgsl, WGSL_OPS, type WgslOp, type WgslOptions } from "./wgsl.js";
export {
  dequantizeGpu,
  quantizeGpu,
  matvecGpu,
  type CodeLayout,
  type GpuCodes,
  type GpuBlocks,
  type GpuDequantizeOptions,
  type GpuQuantizeOptions,
} from "./kernels.js";
export { readBuffer, uploadBuffer, type GpuBuffer, type GpuDevice } from "./gpu.js";
export { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError } from "../errors.js";
