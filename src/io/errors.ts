// Errors of the safetensors reader and writer: like the library's errors, each names the argument (a file, a
// tensor, a header field), the value found and what is allowed.
import { argumentError } from "../errors.js";

/** A safetensors file (or a header being written) that breaks the format's rules. */
export class SafetensorsError extends argumentError(Error, "SafetensorsError") {}

/** A file-system condition the caller must resolve (output exists, output is the input, write interrupted). */
export class IoError extends argumentError(Error, "IoError") {}
