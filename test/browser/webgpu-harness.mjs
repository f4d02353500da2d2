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

/** Functions per shader module: SwiftShader's compile time grows faster than the module. */
const BATCH = 16;

/**
 * Runs `check(k, run)` for every k, where run(inputs, random?) applies fns[k] on the GPU (with R = random[i] for the
 * stochastic encoders), modules of BATCH functions each.
 */
async function each(fns, signature, check) {
  for (let start = 0; start < fns.length; start += BATCH) {
    const run = await batch(fns.slice(start, start + BATCH), signature);
    for (let k = start; k < Math.min(fns.length, start + BATCH); k++) await check(k, (inputs, random) => run(k - start, inputs, random));
  }
}

/** Builds one module whose main runs `fns[params.which]` over u32 inputs (R after them); returns run(which, inputs, random). */
async function batch(fns, signature) {
  const args = (fn) => (fn.includes("random: u32") ? "src[i], src[params.n + i]" : "src[i]");
  const cases = fns.map((fn, k) => `    case ${k}u: { out[i] = f${k}(${args(fn)}); }`).join("\n");
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
  return async (which, inputs, random) => {
    const n = inputs.length;
    const params = device.createBuffer({ size: 16, usage: USAGE.UNIFORM | USAGE.COPY_DST });
    device.queue.writeBuffer(params, 0, new Uint32Array([n, which, 0, 0]));
    const both = new Uint32Array(random ? 2 * n : n);
    both.set(inputs);
    if (random) both.set(random, n);
    const src = uploadBuffer(device, both);
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
  const fns = names.map((n, k) => wgsl(n, "decodeBits", { name: `f${k % BATCH}` }));
  await each(fns, "decodeBits", async (k, run) => {
    const f = format(names[k]);
    const codes = new Uint32Array(f.codeCount).map((_, c) => c);
    const cpu = dequantize(f.K <= 8 ? Uint8Array.from(codes) : Uint16Array.from(codes), f);
    compare(names[k], codes, await run(codes), new Uint32Array(cpu.buffer, cpu.byteOffset, cpu.length), report);
  });
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

/** encodeBits over the sweep for each { name, projection } case, against the CPU quantize (with the same R). */
export async function encodeSweep(cases) {
  const report = { checked: 0, mismatches: 0, first: [] };
  const fns = cases.map((c, k) => wgsl(c.name, "encodeBits", { name: `f${k % BATCH}`, ...(c.projection && { projection: c.projection }) }));
  await each(fns, "encodeBits", async (k, run) => {
    const f = format(cases[k].name);
    const inputs = sweep(f);
    const N = cases[k].projection?.stochasticBits;
    const next = random(k + 7);
    const R = N ? Uint32Array.from(inputs, () => Math.floor(next() * 2 ** N)) : undefined;
    const cpu = quantize(new Float32Array(inputs.buffer), f, { ...cases[k].projection, ...(R && { random: R }) });
    compare(`${cases[k].name} ${JSON.stringify(cases[k].projection ?? {})}`, inputs, await run(inputs, R), Uint32Array.from(cpu), report);
  });
  return report;
}

/** A deterministic generator (xorshift32) for the test data. */
function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** Floats of both signs over 2^−20 … 2^20 (with exact zeros). */
function floats(n, seed) {
  const r = random(seed);
  return Float32Array.from({ length: n }, (_, i) => (i % 97 === 0 ? 0 : (r() - 0.5) * 2 ** Math.floor(r() * 40 - 20)));
}

/** Element codes as stored: byte i, or nibble i low-first. */
function storedCode(q, i) {
  return q.scheme.packed ? (q.elements[i >> 1] >> ((i & 1) * 4)) & 15 : q.elements[i];
}

/** Repacks n 4-bit codes into an order: "high-first", or "split-half" within whole blocks of B. */
function repack(code, n, order, B) {
  const out = new Uint8Array(order === "split-half" ? Math.ceil(n / B) * (B / 2) : Math.ceil(n / 2));
  for (let i = 0; i < n; i++) {
    const byte = order === "split-half" ? Math.floor(i / B) * (B / 2) + (i % (B / 2)) : i >> 1;
    const high = order === "split-half" ? i % B >= B / 2 : order === "high-first" ? (i & 1) === 0 : (i & 1) === 1;
    out[byte] |= code(i) << (high ? 4 : 0);
  }
  return out;
}

/** Every MX/NVFP4 scheme (all scale codes, all element codes, a partial last block) in every nibble order. */
export async function blocks(schemes) {
  const report = { checked: 0, mismatches: 0, first: [] };
  for (const [k, scheme] of schemes.entries()) {
    const probe = quantizeBlocks(new Float32Array(1), scheme);
    const B = probe.blockSize;
    const n = 256 * B + 5;
    const q = quantizeBlocks(floats(n, k + 1), scheme, scheme === "nvfp4" ? { tensorScale: "auto" } : undefined);
    const limit = q.scheme.packed ? 256 : q.scheme.element.codeCount;
    for (let b = 0; b < q.scales.length; b++) q.scales[b] = b % 256;
    for (let i = 0; i < q.elements.length; i += 3) q.elements[i] = (i / 3) % limit;
    const cpu = dequantizeBlocks(q);
    const expected = new Uint32Array(cpu.buffer);
    const scales = uploadBuffer(device, q.scales);
    const orders = q.scheme.packed ? ["low-first", "high-first", "split-half"] : ["low-first"];
    for (const order of orders) {
      const bytes = order === "low-first" ? q.elements : repack((i) => storedCode(q, i), n, order, B);
      const elements = uploadBuffer(device, bytes);
      const src = { scheme, elements, scales, blockSize: B, tensorScale: q.tensorScale ?? 1, nibbleOrder: order };
      const out = dequantizeGpu(device, src, n);
      compare(
        `${scheme} ${order}`,
        new Uint32Array(n).map((_, i) => i),
        new Uint32Array(await readBuffer(device, out, 4 * n)),
        expected,
        report,
      );
      elements.destroy();
      out.destroy();
    }
    scales.destroy();
  }
  return report;
}

/** Plain dequantize (u4 both orders, u8, u16; float32 and binary16 bits) and quantize, byte for byte. */
export async function bulk(names) {
  const report = { checked: 0, mismatches: 0, first: [] };
  for (const name of names) {
    const f = format(name);
    const n = 3 * f.codeCount + 1;
    const codes = (f.K <= 8 ? Uint8Array : Uint16Array).from({ length: n }, (_, i) => (i * 7919) % f.codeCount);
    const layouts = f.K <= 4 ? ["u4", "u4-high", "u8"] : f.K <= 8 ? ["u8", "u16"] : ["u16"];
    const values = dequantize(codes, f);
    const halves = dequantize(codes, f, { to: "float16", bits: true });
    const x = floats(4099, f.K);
    const input = new Uint32Array(x.buffer);
    new Uint32Array(input.buffer, 0, 64).set(
      Uint32Array.from({ length: 64 }, (_, i) => [0x7f800000, 0xff800000, 0x7fc00001, 0xffc00000, 0x80000000, 1, 0x80000001, 0x7f7fffff][i % 8]),
    );
    const encoded = quantize(x, f);
    for (const layout of layouts) {
      const bits = layout.startsWith("u4") ? 4 : layout === "u8" ? 8 : 16;
      const order = layout === "u4-high" ? "high-first" : "low-first";
      const stored = (a, m) => (bits === 4 ? repack((i) => a[i], m, order, 2) : bits === 8 ? Uint8Array.from(a) : Uint16Array.from(a));
      const opts = { layout: bits === 4 ? "u4" : layout, nibbleOrder: order };
      const buffer = uploadBuffer(device, stored(codes, n));
      const label = `${name} ${layout}`;
      const out = dequantizeGpu(device, { format: name, codes: buffer, ...opts }, n);
      compare(`${label} → float32`, codes, new Uint32Array(await readBuffer(device, out, 4 * n)), new Uint32Array(values.buffer), report);
      const half = dequantizeGpu(device, { format: name, codes: buffer, ...opts }, n, { target: "float16" });
      compare(`${label} → float16`, codes, new Uint16Array(await readBuffer(device, half, 2 * n)), halves, report);
      const src = uploadBuffer(device, x);
      const q = quantizeGpu(device, src, x.length, name, opts);
      const want = new Uint8Array(stored(encoded, x.length).buffer);
      compare(`${label} quantize (bytes)`, input, new Uint8Array(await readBuffer(device, q, want.length)), want, report);
      for (const b of [buffer, out, half, src, q]) b.destroy();
    }
  }
  return report;
}

/** matvec against the CPU model of its order: acc = +0, then acc = fround(acc + fround(w·x)) for j = 0, 1, …. */
export async function matvec(cases) {
  const report = { checked: 0, mismatches: 0, first: [] };
  const rows = 48;
  const cols = 256;
  for (const [k, c] of cases.entries()) {
    const w = floats(rows * cols, 100 + k);
    const x = floats(cols, 200 + k).map((v) => v * 2 ** 8);
    let source;
    let values;
    if (c.scheme) {
      const q = quantizeBlocks(w, c.scheme, c.scheme === "nvfp4" ? { tensorScale: "auto" } : undefined);
      values = dequantizeBlocks(q);
      const buffers = [uploadBuffer(device, q.elements), uploadBuffer(device, q.scales)];
      source = { scheme: c.scheme, elements: buffers[0], scales: buffers[1], tensorScale: q.tensorScale ?? 1 };
    } else {
      const f = format(c.format);
      const codes = quantize(w, f, { saturation: "SatFinite" });
      values = dequantize(codes, f);
      source = { format: c.format, codes: uploadBuffer(device, c.layout === "u4" ? packCodes(codes, 4) : codes), layout: c.layout };
    }
    const expected = new Float32Array(rows);
    for (let r = 0; r < rows; r++) {
      let acc = 0;
      for (let j = 0; j < cols; j++) acc = Math.fround(acc + Math.fround(values[r * cols + j] * x[j]));
      expected[r] = acc;
    }
    const y = matvecGpu(device, source, uploadBuffer(device, x), rows, cols);
    compare(
      `matvec ${c.scheme ?? `${c.format} ${c.layout}`}`,
      new Uint32Array(rows).map((_, i) => i),
      new Uint32Array(await readBuffer(device, y, 4 * rows)),
      new Uint32Array(expected.buffer),
      report,
    );
  }
  return report;
}

/** More elements than one dispatch dimension holds (65 535 workgroups of 64): the grid's second row decodes too. */
export async function large() {
  const report = { checked: 0, mismatches: 0, first: [] };
  const n = 65535 * 64 + 4099;
  const codes = Uint8Array.from({ length: n }, (_, i) => (i * 31) & 255);
  const buffer = uploadBuffer(device, codes);
  const out = dequantizeGpu(device, { format: "float8_e5m2", codes: buffer }, n);
  const cpu = dequantize(codes, "float8_e5m2");
  compare("float8_e5m2 × 4.2M", codes, new Uint32Array(await readBuffer(device, out, 4 * n)), new Uint32Array(cpu.buffer), report);
  buffer.destroy();
  out.destroy();
  return report;
}
