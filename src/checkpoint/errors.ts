// Errors of checkpoint reading: like the library's errors, each names the argument (a file, a tensor, a config
// field), what was found and what is allowed or missing.
import { argumentError } from "../errors.js";

/** A checkpoint whose tensors, scales or quantization config break the convention they claim (or claim none known). */
export class CheckpointError extends argumentError(Error, "CheckpointError") {}
