// The WebGPU checks of test/webgpu.test.ts, run inside the page (plain JavaScript: the page loads this file as it
// is). Each check runs generated WGSL on the page's GPUDevice and compares with the CPU library of the same bundle
// (its Wasm kernels and exact reference) in the page, returning counts and the first mismatches: the arrays never
// cross to Node. Batches of functions share one shader module (SwiftShader compiles slowly).
import { dequantize, dequantizeBlocks, format, packCodes, quantize, quantizeBlocks } from "/build/browser/index.js";
import { dequantizeGpu, matvecGpu, quantizeGpu, readBuffer, uploadBuffer, wgsl } from "/build/browser/webgpu.js";

let device;

/** The adapter's description, or a reason there is none. */
export async function init() {
  if (!navigator.gpu) return { error: "navigator.gpu is undefined (WebGPU is off in this browser)" };
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) return { error: "navigator.gpu.requestAdapter() returned null (no WebGPU adapter)" };
  device = await adapter.requestDevice({
    requiredLimits: { maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize, maxBufferSize: adapter.limits.maxBufferSize },
  });
  device.addEventListener("uncapturederror", (e) => console.error(`WebGPU: ${e.error.message}`));
  const info = adapter.info ?? {};
  return { adapter: [info.vendor, info.architecture, info.description].filter(Boolean).join(" "), f16: adapter.features.has("shader-f16") };
}

const USAGE = { STORAGE: 128, COPY_SRC: 4, COPY_DST: 8, UNIFORM: 64 };

/** Builds one module whose main runs `fns[params.which]` over u32 inputs; returns run(which, inputs) → outputs. */
async function batch(fns, signature) {
  const cases = fns.map((_, k) => `    case ${k}u: { out[i] = f${k}(src[i]); }`).join("\n");
  const code = `${fns.join("\n")}
struct Params { n: u32, which: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.y * groups.x * 64u + gid.x;
  if (i >= params.n) { return; }
  switch params.which {
${cases}
    default: {}
  }
}
`;
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === "error");
  if (errors.length) throw new Error(`${signature}: ${errors.map((m) => `${m.lineNum}: ${m.message}`).join("; ")}`);
  const pipeline = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: "main" } });
  return async (which, inputs) => {
    const n = inputs.length;
    const params = device.createBuffer({ size: 16, usage: USAGE.UNIFORM | USAGE.COPY_DST });
    device.queue.writeBuffer(params, 0, new Uint32Array([n, which, 0, 0]));
    const src = uploadBuffer(device, inputs);
    const out = device.createBuffer({ size: Math.max(4, 4 * n), usage: USAGE.STORAGE | USAGE.COPY_SRC });
    const bindGroup = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [params, src, out].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    const groups = Math.ceil(n / 64);
    const x = Math.min(groups, 65535);
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(x, Math.ceil(groups / x));
    pass.end();
    device.queue.submit([encoder.finish()]);
    const result = new Uint32Array(await readBuffer(device, out, 4 * n));
    for (const b of [params, src, out]) b.destroy();
    return result;
  };
}

const hex = (v) => `0x${(v >>> 0).toString(16)}`;

/** Compares GPU words with expected ones; keeps the first few mismatches. */
function compare(label, inputs, got, expected, report) {
  report.checked += got.length;
  for (let i = 0; i < got.length; i++) {
    if (got[i] === expected[i]) continue;
    report.mismatches++;
    if (report.first.length < 8) report.first.push(`${label}: input ${hex(inputs[i])} → GPU ${hex(got[i])}, CPU ${hex(expected[i])}`);
  }
}

/** Every code of every named format through the generated decodeBits, against the CPU dequantize's float32 bits. */
export async function decodeAll(names) {
  const report = { checked: 0, mismatches: 0, first: [] };
  const run = await batch(
    names.map((n, k) => wgsl(n, "decodeBits", { name: `f${k}` })),
    "decodeBits",
  );
  for (let k = 0; k < names.length; k++) {
    const f = format(names[k]);
    const codes = new Uint32Array(f.codeCount).map((_, c) => c);
    const cpu = dequantize(f.K <= 8 ? Uint8Array.from(codes) : Uint16Array.from(codes), f);
    compare(names[k], codes, await run(k, codes), new Uint32Array(cpu.buffer, cpu.byteOffset, cpu.length), report);
  }
  return report;
}

/**
 * The float32 patterns of the encode sweep for f: every 65 521st pattern of all 2^32, every code's value, the
 * midpoints of neighbouring values, and the patterns next to each of these.
 */
function sweep(f) {
  const out = [];
  for (let j = 0; j * 65521 < 2 ** 32; j++) out.push(j * 65521);
  const values = dequantize(f.K <= 8 ? Uint8Array.from({ length: f.codeCount }, (_, c) => c) : Uint16Array.from({ length: f.codeCount }, (_, c) => c), f);
  const finite = [...new Set(Array.from(values).filter(Number.isFinite))].sort((a, b) => a - b);
  const points = new Float32Array(values.length + finite.length);
  points.set(values);
  for (let i = 0; i + 1 < finite.length; i++) points[values.length + i] = (finite[i] + finite[i + 1]) / 2;
  for (const b of new Uint32Array(points.buffer)) out.push(b, (b + 1) >>> 0, (b - 1) >>> 0);
  return Uint32Array.from(out);
}

/** encodeBits over the sweep for each { name, projection } case, against the CPU quantize. */
export async function encodeSweep(cases) {
  const report = { checked: 0, mismatches: 0, first: [] };
  const run = await batch(
    cases.map((c, k) => wgsl(c.name, "encodeBits", { name: `f${k}`, ...(c.projection && { projection: c.projection }) })),
    "encodeBits",
  );
  for (let k = 0; k < cases.length; k++) {
    const f = format(cases[k].name);
    const inputs = sweep(f);
    const cpu = quantize(new Float32Array(inputs.buffer), f, cases[k].projection);
    compare(`${cases[k].name} ${JSON.stringify(cases[k].projection ?? {})}`, inputs, await run(k, inputs), Uint32Array.from(cpu), report);
  }
  return report;
}
