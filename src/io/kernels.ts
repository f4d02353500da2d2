// The bulk conversions the file I/O uses: one place to switch to the fastest implementation of the library's
// quantize/dequantize contract.
export { dequantize, quantize } from "../api/bulk.js";
