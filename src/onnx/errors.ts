// Errors of the ONNX reader and quantizer: each names the model, tensor or option at fault and what is allowed.
import { argumentError } from "../errors.js";

/** An ONNX model, tensor or quantization request that cannot be handled as asked. */
export class OnnxError extends argumentError(Error, "OnnxError") {}
