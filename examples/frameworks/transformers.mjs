// transformers.js: pipeline(task, model, { dtype }) loads model.onnx for "fp32", model_fp16.onnx for "fp16",
// model_quantized.onnx for "q8" and model_q4.onnx for "q4". A "float16" tensor's data is a Float16Array where the
// runtime has one, else Uint16Array bits; quantize reads either with from: "float16".
import assert from "node:assert/strict";
import { dequantize, quantize } from "minifloat";

// Stands in for an fp16 model's output: { type: "float16", data, dims } holding 2.75, −0.5 and 300.
const data = globalThis.Float16Array ? Float16Array.of(2.75, -0.5, 300) : Uint16Array.of(0x4180, 0xb800, 0x5cb0);
const logits = { type: "float16", data, dims: [1, 3] };

const fp8 = quantize(logits.data, "float8_e4m3fn", { from: "float16", saturation: "SatFinite" });
assert.deepEqual([...dequantize(fp8, "float8_e4m3fn")], [2.75, -0.5, 288]); // 300 rounds to 288 in E4M3
console.log("transformers: ok");
