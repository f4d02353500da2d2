// npm start: builds a small deterministic transformer-like checkpoint (generated here from a seeded generator, so
// the repository carries no binary file), quantizes it into several formats and prints the error of each, then
// runs the `minifloat` command-line tool on it once.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { decode, dequantize, dequantizeBlocks, format, quantize, quantizeBlocks, unpackCodes } from "minifloat";
import { SafetensorsReader, SafetensorsWriter, blockRecord, blockSpecs, storageOf } from "minifloat/safetensors";

const FORMATS = ["float8_e4m3fn", "float8_e5m2", "Binary8p3se", "Binary8p4se", "float6_e2m3fn", "float4_e2m1fn"];
const SCHEMES = ["mxfp8_e4m3", "mxfp6_e2m3", "mxfp4", "nvfp4"];
const D = 128; // model width
const LAYERS = 2;

/** Seeded normal variates (LCG + Box–Muller): the same checkpoint on every machine. */
function normals(seed) {
  let s = seed >>> 0;
  const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

/** Weights ~ N(0, 1/fan_in), with a few outlier input channels ×20 as trained LLMs show. */
function tensor(shape, seed, { std = 1 / Math.sqrt(shape[shape.length - 1]), mean = 0, outliers = 0 } = {}) {
  const g = normals(seed);
  const cols = shape[shape.length - 1];
  const x = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < x.length; i++) x[i] = mean + std * g() * (i % cols < outliers ? 20 : 1);
  return x;
}

function model() {
  const t = [["embed_tokens.weight", "F32", [512, D], tensor([512, D], 1, { std: 0.02 })]];
  for (let l = 0; l < LAYERS; l++) {
    const p = `layers.${l}.`;
    for (const [i, n] of ["q", "k", "v", "o"].entries())
      t.push([`${p}attn.${n}_proj.weight`, "F32", [D, D], tensor([D, D], 10 + 10 * l + i, { outliers: n === "o" ? 2 : 0 })]);
    t.push([`${p}input_norm.weight`, "BF16", [D], tensor([D], 20 + 10 * l, { mean: 1, std: 0.05 })]);
    t.push([`${p}mlp.up_proj.weight`, "F32", [4 * D, D], tensor([4 * D, D], 30 + 10 * l, { outliers: 3 })]);
    t.push([`${p}mlp.down_proj.weight`, "F32", [D, 4 * D], tensor([D, 4 * D], 40 + 10 * l)]);
  }
  return t;
}

/** Error accumulators: Σe², Σx², max |e|, saturated and flushed counts. */
function errors() {
  return {
    se: 0,
    ss: 0,
    maxErr: 0,
    saturated: 0,
    flushed: 0,
    add(x, y) {
      for (let i = 0; i < x.length; i++) {
        const e = Math.abs(y[i] - x[i]);
        this.se += e * e;
        this.ss += x[i] * x[i];
        if (e > this.maxErr) this.maxErr = e;
        if (y[i] === 0 && x[i] !== 0) this.flushed++;
      }
    },
  };
}

async function formatFile(name, inputs, out) {
  const f = format(name);
  const { dtype, recorded } = storageOf(f);
  const writer = await SafetensorsWriter.create(
    out,
    inputs.map(({ t }) => ({ name: t.name, dtype, shape: t.shape, ...(recorded && { format: f }) })),
  );
  const e = errors();
  const max = decode(f.maxFiniteCode, f);
  for (const { x } of inputs) {
    const codes = quantize(x, f, { saturation: "SatFinite" }); // the Wasm kernel (flags would take the exact reference)
    await writer.writeCodes(codes);
    e.add(x, dequantize(codes, f));
    for (let i = 0; i < x.length; i++) if (Math.abs(x[i]) > max) e.saturated++;
  }
  await writer.commit();
  return { ...e, stored: `${dtype}${recorded ? "*" : ""}` };
}

async function blockFile(name, inputs, out) {
  // Rows here are multiples of the block size, so whole tensors quantize as rows of blocks.
  const quantized = inputs.map(({ t, x }) => {
    return { t, x, q: quantizeBlocks(x, name, name === "nvfp4" ? { tensorScale: "auto" } : {}) };
  });
  const scheme = quantized[0].q.scheme;
  const metadata = Object.fromEntries(quantized.map(({ t, q }) => [`minifloat.block.${t.name}`, blockRecord(scheme, q.tensorScale ?? 1, t.shape)]));
  const writer = await SafetensorsWriter.create(
    out,
    inputs.flatMap(({ t }) => blockSpecs(t.name, t.shape, scheme)),
    { metadata },
  );
  const e = errors();
  const maxElement = decode(scheme.element.maxFiniteCode, scheme.element);
  for (const { x, q } of quantized) {
    await writer.writeCodes(scheme.packed ? unpackCodes(q.elements, 4, x.length) : q.elements);
    await writer.writeCodes(q.scales);
    e.add(x, dequantizeBlocks(q));
    for (let k = 0; k < q.scales.length; k++) {
      const limit = decode(q.scales[k], scheme.scale) * (q.tensorScale ?? 1) * maxElement; // largest |value| of block k
      for (let i = k * q.blockSize; i < Math.min(x.length, (k + 1) * q.blockSize); i++) if (Math.abs(x[i]) > limit) e.saturated++;
    }
  }
  await writer.commit();
  return {
    ...e,
    stored: `${blockSpecs("w", [1], scheme)
      .map((s) => s.dtype)
      .join("+")}`,
  };
}

const dir = mkdtempSync(join(tmpdir(), "minifloat-example-"));
try {
  const source = join(dir, "model.safetensors");
  const tensors = model();
  const w = await SafetensorsWriter.create(
    source,
    tensors.map(([name, dtype, shape]) => ({ name, dtype, shape })),
    { metadata: { producer: "minifloat example" } },
  );
  for (const [, , , values] of tensors) await w.writeValues(values);
  await w.commit();
  const elements = tensors.reduce((n, t) => n + t[3].length, 0);
  console.log(
    `A small transformer-like checkpoint: ${tensors.length} tensors, ${elements} weights, ${(statSync(source).size / 2 ** 20).toFixed(2)} MiB (F32/BF16)\n`,
  );

  // Each format: quantize every tensor (round to nearest even, saturate to MaxFinite) into a new file; each block
  // scheme: blocks of 32 (MX) or 16 (NVFP4) along rows, a scale per block, elements saturating.
  const reader = await SafetensorsReader.open(source);
  const inputs = [];
  for (const t of reader.tensors) inputs.push({ t, x: Float32Array.from(await reader.readValues(t)) });
  await reader.close();
  const rows = [];
  for (const name of [...FORMATS, ...SCHEMES]) {
    const out = join(dir, `${name}.safetensors`);
    const started = performance.now();
    const e = SCHEMES.includes(name) ? await blockFile(name, inputs, out) : await formatFile(name, inputs, out);
    const seconds = (performance.now() - started) / 1000;
    rows.push([
      name,
      e.stored,
      (statSync(out).size / 2 ** 20).toFixed(2),
      Math.sqrt(e.se / elements).toExponential(2),
      `${(Math.sqrt(e.se / e.ss) * 100).toFixed(2)}%`,
      e.maxErr.toExponential(2),
      `${((100 * e.saturated) / elements).toFixed(3)}%`,
      `${((100 * e.flushed) / elements).toFixed(2)}%`,
      (elements / seconds / 1e6).toFixed(2),
    ]);
  }
  const header = ["format", "stored as", "MiB", "RMSE", "rel err", "max |err|", "saturated", "flushed", "file M elt/s"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [header, widths.map((n) => "-".repeat(n)), ...rows])
    console.log(r.map((c, i) => (i === 0 || i === 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
  console.log("* U8 codes; the format is recorded in the file's __metadata__ as minifloat.dtype.<tensor>");
  console.log("FP6/FP4 hold nothing below 0.125/0.5: without a scale most weights flush to zero; a scale per block (MX, NVFP4) fixes that.\n");

  // The same through the command-line tool, with its per-tensor report.
  const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "build", "node", "cli.js");
  const args = ["quantize", source, "--to", "Binary8p3se", "--only", "layers.0.*", "-o", join(dir, "cli.safetensors")];
  console.log(`$ minifloat ${args.map((a) => a.replace(dir, "<tmp>")).join(" ")}`);
  process.stdout.write(execFileSync(process.execPath, [cli, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).replaceAll(dir, "<tmp>"));
  console.log("\nMore: minifloat --help, minifloat inspect <file>, minifloat table Binary8p3se");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
