// onnxruntime-web / -node: the data of a "float16" tensor is a Float16Array where the runtime has one, else a
// Uint16Array of bits — what dequantize(…, { to: "float16" }) returns. ONNX packs FLOAT4E2M1 (and INT4/UINT4) two
// elements per byte, the first in the low nibble: the layout of quantizePacked.
import assert from "node:assert/strict";
import { dequantize, quantize, quantizePacked } from "minifloat";
import * as ort from "onnxruntime-web";

const weights = Float32Array.of(0.5, -1, 3, 6, -0.25, 2);
const fp8 = quantize(weights, "float8_e4m3fn");
const tensor = new ort.Tensor("float16", dequantize(fp8, "float8_e4m3fn", { to: "float16" }), [2, 3]);
assert.equal(tensor.type, "float16");
assert.deepEqual(tensor.dims, [2, 3]);

const fp4 = quantizePacked(weights, "float4_e2m1fn"); // the raw bytes of a FLOAT4E2M1 tensor: 3 bytes for 6 elements
const codes = quantize(weights, "float4_e2m1fn");
assert.deepEqual([...fp4], [codes[0] | (codes[1] << 4), codes[2] | (codes[3] << 4), codes[4] | (codes[5] << 4)]);
console.log("onnxruntime: ok");
