// Errors of the GGUF reader and writer: like the library's errors, each names the argument (a file, a tensor, a
// metadata key), the value found and what is allowed.
import { argumentError } from "../../errors.js";

/** A GGUF file (or a file being written) that breaks the format's rules, or a tensor type minifloat cannot decode. */
export class GgufError extends argumentError(Error, "GgufError") {}
