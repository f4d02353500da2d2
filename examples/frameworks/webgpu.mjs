// WebGPU: fp8 weights uploaded as binary16 bits (convert returns a Uint16Array, exact: every E4M3 value is a binary16
// value) and read in WGSL with unpack2x16float, which needs no feature; with the "shader-f16" feature a shader may
// declare array<f16> instead. Without an adapter only the CPU part runs.
import assert from "node:assert/strict";
import { convert, dequantize, quantize } from "minifloat";

const fp8 = quantize(
  Float32Array.from({ length: 64 }, (_, i) => (i - 32) / 4),
  "float8_e4m3fn",
);
const half = convert(fp8, "float8_e4m3fn", "binary16");
assert.ok(half instanceof Uint16Array);

const adapter = await globalThis.navigator?.gpu?.requestAdapter();
if (adapter) {
  const device = await adapter.requestDevice();
  const input = device.createBuffer({ size: half.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(input, 0, half);
  const output = device.createBuffer({ size: half.length * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: half.length * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const code = `
    @group(0) @binding(0) var<storage, read> x: array<u32>; // two binary16 values a word, the first in the low half
    @group(0) @binding(1) var<storage, read_write> y: array<vec2f>;
    @compute @workgroup_size(32) fn main(@builtin(global_invocation_id) id: vec3u) { y[id.x] = unpack2x16float(x[id.x]); }`;
  const pipeline = device.createComputePipeline({ layout: "auto", compute: { module: device.createShaderModule({ code }), entryPoint: "main" } });
  const entries = [input, output].map((buffer, binding) => ({ binding, resource: { buffer } }));
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }));
  pass.dispatchWorkgroups(half.length / 64); // 32 words per workgroup
  pass.end();
  encoder.copyBufferToBuffer(output, 0, read, 0, read.size);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  assert.deepEqual(new Float32Array(read.getMappedRange().slice(0)), dequantize(fp8, "float8_e4m3fn"));
  device.destroy();
}
console.log(`webgpu: ok (${adapter ? "checked on the GPU" : "no WebGPU adapter: CPU part only"})`);
