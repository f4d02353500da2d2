// fp8 / MXFP4 / NVFP4 weights on the GPU: decode and matvec with minifloat/webgpu, checked against the CPU library.
// From npm, import "minifloat", "minifloat/webgpu" and "minifloat/safetensors" instead of the build paths.
import { blockScheme, dequantize, dequantizeBlocks, format, packCodes, quantize, quantizeBlocks } from "../../build/browser/index.js";
import { BlobSource, SafetensorsReader } from "../../build/browser/safetensors.js";
import { dequantizeGpu, matvecGpu, quantizeGpu, readBuffer, uploadBuffer, wgsl } from "../../build/browser/webgpu.js";

const $ = (id) => document.getElementById(id);
let device;
let adapterName = "no adapter";
let reader;

/** Normal-ish random floats (deterministic: the page shows the same numbers on every run). */
function randomFloats(n, seed, scale) {
  let s = seed;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  return Float32Array.from({ length: n }, () => scale * Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next()));
}

/** Weights as the GPU kernels take them, the CPU's float32 values and the stored bytes. */
function randomWeights(choice, rows, cols) {
  const w = randomFloats(rows * cols, 1, 0.05);
  if (choice.startsWith("scheme:")) {
    const scheme = choice.slice(7);
    const q = quantizeBlocks(w, scheme, scheme === "nvfp4" ? { tensorScale: "auto" } : undefined);
    return blockWeights(q, rows, cols);
  }
  const f = format(choice);
  const codes = quantize(w, f, { saturation: "SatFinite" });
  return codeWeights(f, codes, rows, cols);
}

function codeWeights(f, codes, rows, cols) {
  const packed = f.K <= 4;
  const stored = packed ? packCodes(codes, 4) : codes;
  return {
    label: `${f.name} codes`,
    rows,
    cols,
    values: dequantize(codes, f),
    bytes: stored.byteLength,
    source: () => ({ format: f.name, codes: uploadBuffer(device, stored), layout: packed ? "u4" : "u8" }),
  };
}

function blockWeights(q, rows, cols) {
  return {
    label: `${q.scheme.name} blocks of ${q.blockSize}`,
    rows,
    cols,
    values: dequantizeBlocks(q),
    bytes: q.elements.byteLength + q.scales.byteLength + (q.tensorScale === undefined ? 0 : 4),
    source: () => ({
      scheme: q.scheme,
      elements: uploadBuffer(device, q.elements),
      scales: uploadBuffer(device, q.scales),
      blockSize: q.blockSize,
      tensorScale: q.tensorScale ?? 1,
    }),
  };
}

/** The tensors of an uploaded safetensors file the page can run: fp8 matrices and gpt-oss MXFP4 pairs. */
async function listTensors(file) {
  await reader?.close();
  reader = await SafetensorsReader.open(new BlobSource(file));
  const names = new Set(reader.tensors.map((t) => t.name));
  const options = [];
  for (const t of reader.tensors) {
    if (t.format && t.format.K === 8 && t.info.bits === 8 && t.shape.length >= 2)
      options.push(new Option(`${t.name} ${t.dtype} [${t.shape}]`, `codes:${t.name}`));
    const base = t.name.endsWith("_blocks") ? t.name.slice(0, -7) : undefined;
    if (base && names.has(`${base}_scales`) && t.shape.at(-1) === 16) options.push(new Option(`${base} MXFP4 [${t.shape}]`, `mxfp4:${base}`));
  }
  $("tensor").replaceChildren(...options);
  $("tensor").hidden = options.length === 0;
  document.body.dataset.tensors = options.map((o) => o.value).join(" ");
  $("result").textContent = options.length ? "" : `${file.name}: no fp8 matrix or MXFP4 pair in it`;
}

async function fileWeights(choice) {
  const [kind, name] = [choice.slice(0, choice.indexOf(":")), choice.slice(choice.indexOf(":") + 1)];
  const tensor = (n) => reader.tensors.find((t) => t.name === n);
  const bytes = (t) => reader.readTensorBytes(t, 0, t.end - t.begin);
  if (kind === "codes") {
    const t = tensor(name);
    return codeWeights(t.format, await reader.readCodes(t), t.shape[0], t.length / t.shape[0]);
  }
  const blocks = tensor(`${name}_blocks`);
  const rows = blocks.shape.slice(0, -2).reduce((a, b) => a * b, 1);
  const cols = blocks.shape.at(-2) * 32;
  const q = { scheme: blockScheme("mxfp4"), length: rows * cols, blockSize: 32, elements: await bytes(blocks), scales: await bytes(tensor(`${name}_scales`)) };
  return blockWeights(q, rows, cols);
}

const bits = (a) => new Uint32Array(a.buffer, a.byteOffset, a.length);

/** y = W·x on the CPU in matvecGpu's order: acc = +0, then acc = fround(acc + fround(w·x)) for j = 0, 1, …. */
function matvecCpu(values, x, rows, cols) {
  const y = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let acc = 0;
    for (let j = 0; j < cols; j++) acc = Math.fround(acc + Math.fround(values[r * cols + j] * x[j]));
    y[r] = acc;
  }
  return y;
}

function countEqual(a, b) {
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same;
}

async function run() {
  const choice = $("tensor").hidden ? undefined : $("tensor").value;
  const w = choice ? await fileWeights(choice) : randomWeights($("format").value, Number($("rows").value), Number($("cols").value));
  const n = w.rows * w.cols;
  const source = w.source();
  const x = randomFloats(w.cols, 2, 1);
  const decoded = new Float32Array(await readBuffer(device, dequantizeGpu(device, source, n), 4 * n));
  const y = new Float32Array(await readBuffer(device, matvecGpu(device, source, uploadBuffer(device, x), w.rows, w.cols), 4 * w.rows));
  const yCpu = matvecCpu(w.values, x, w.rows, w.cols);
  const decodeSame = countEqual(bits(decoded), bits(w.values));
  const matvecSame = countEqual(bits(y), bits(yCpu));
  globalThis.lastRun = { decoded, y, yCpu }; // for scripts and tests driving the page
  document.body.dataset.decodeEqual = `${decodeSame}/${n}`;
  document.body.dataset.matvecEqual = `${matvecSame}/${w.rows}`;
  const rowsShown = Array.from({ length: Math.min(8, w.rows) }, (_, r) => `<tr><td>${r}</td><td>${y[r]}</td><td>${yCpu[r]}</td></tr>`);
  const mark = (same, all) => `<span class="${same === all ? "good" : "bad"}">${same} of ${all} bit-identical</span>`;
  $("result").innerHTML = `<p>${w.label}, ${w.rows} × ${w.cols}: ${w.bytes.toLocaleString()} bytes instead of ${(4 * n).toLocaleString()} as float32
    (${(100 * (1 - w.bytes / (4 * n))).toFixed(1)}% saved).</p>
    <p>GPU decode: ${mark(decodeSame, n)} to the CPU's. GPU matvec: ${mark(matvecSame, w.rows)} to the CPU model of its order.</p>
    <table><tr><th>row</th><th>y (GPU)</th><th>y (CPU)</th></tr>${rowsShown.join("")}</table>`;
}

/** Seconds for `work` to finish on the GPU (after one warm-up run that compiles the pipeline). */
async function time(work) {
  work();
  await device.queue.onSubmittedWorkDone();
  const t0 = performance.now();
  work();
  await device.queue.onSubmittedWorkDone();
  return (performance.now() - t0) / 1000;
}

async function bench() {
  const n = 1 << 20;
  const lines = [];
  const report = (label, count, seconds) => {
    lines.push(`${label}: ${(count / seconds / 1e6).toFixed(1)} M elements/s on ${adapterName}`);
    $("bench-out").textContent = lines.join("\n");
  };
  const x = randomFloats(n, 3, 1);
  const src = uploadBuffer(device, x);
  const codes = uploadBuffer(device, quantize(x, "float8_e4m3fn", { saturation: "SatFinite" }));
  const decodeOut = device.createBuffer({ size: 4 * n, usage: 128 | 4 });
  const encodeOut = device.createBuffer({ size: n, usage: 128 | 4 });
  report("decode float8_e4m3fn → float32", n, await time(() => dequantizeGpu(device, { format: "float8_e4m3fn", codes }, n, { out: decodeOut })));
  report("encode float32 → float8_e4m3fn", n, await time(() => quantizeGpu(device, src, n, "float8_e4m3fn", { out: encodeOut })));
  const [rows, cols] = [512, 2048];
  const q = quantizeBlocks(randomFloats(rows * cols, 4, 0.05), "mxfp4");
  const w = { scheme: "mxfp4", elements: uploadBuffer(device, q.elements), scales: uploadBuffer(device, q.scales) };
  const xv = uploadBuffer(device, randomFloats(cols, 5, 1));
  report(`matvec MXFP4 ${rows} × ${cols}`, rows * cols, await time(() => matvecGpu(device, w, xv, rows, cols)));
  document.body.dataset.bench = "done";
}

function showWgsl() {
  $("wgsl").textContent = wgsl($("wgsl-format").value, $("wgsl-op").value);
}

async function main() {
  showWgsl();
  $("wgsl-format").onchange = $("wgsl-op").onchange = showWgsl;
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) {
    $("adapter").textContent = "none: this browser has no WebGPU adapter (Chrome/Edge 113+, or --enable-unsafe-webgpu)";
    return;
  }
  device = await adapter.requestDevice();
  const info = adapter.info ?? {};
  adapterName = [info.vendor, info.architecture, info.description].filter(Boolean).join(" ") || "unnamed adapter";
  $("adapter").textContent = adapterName;
  const guard = (f) => () => f().catch((e) => ($("result").textContent = `${e.name}: ${e.message}`));
  $("run").onclick = guard(run);
  $("bench").onclick = guard(bench);
  $("file").onchange = guard(() => listTensors($("file").files[0]));
  document.body.dataset.ready = "true";
}

main().catch((e) => {
  $("adapter").textContent = `${e.name}: ${e.message}`;
});
