// npm run bench: throughput of the built package (elements/s), interleaved rounds, median and best, with
// baselines measured in the same process. Not part of npm test. Writes bench/results/<timestamp>.json.
//   node bench/run.mjs [--sizes 65536,1048576] [--rounds 7] [--only dequantize|quantize|blocks]
// To add rows (e.g. quantize kernels), append to CASES: { op, format, path, sizes?, make(n) → { run(), free?() } }.
import { mkdirSync, writeFileSync } from "node:fs";
import { arch, cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as mf from "minifloat";
import { logUniform } from "./values.mjs";

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : [])));
const SIZES = (args.get("sizes") ?? "65536,1048576,16777216").split(",").map(Number);
const ROUNDS = Number(args.get("rounds") ?? 7);
/** Each sample repeats the call until it takes this long, so timer resolution and call overhead stay small. */
const SAMPLE_MS = 15;

/** Deterministic codes covering the whole code range (uniform), as the format's code array type. */
function codesFor(f, n) {
  const a = f.K <= 8 ? new Uint8Array(n) : new Uint16Array(n);
  let s = 0x9e3779b9;
  for (let i = 0; i < n; i++) a[i] = ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 16) % f.codeCount;
  return a;
}

/** Float32 values spread over the format's range (log-uniform with both signs). */
function valuesFor(f, n) {
  return logUniform(mf.decode(f.maxFiniteCode, f), n);
}

/** A plain-JavaScript LUT loop over the same decode table: the baseline a user would write. */
function jsLut(f) {
  const all = f.K <= 8 ? new Uint8Array(f.codeCount).map((_, i) => i) : new Uint16Array(f.codeCount).map((_, i) => i);
  mf.useKernels(false);
  const table = new Uint32Array(mf.dequantize(all, f).buffer);
  mf.useKernels(true);
  return (codes, bits) => {
    for (let i = 0; i < codes.length; i++) bits[i] = table[codes[i]];
  };
}

const dequantizeFormats = [
  ["OCP FP8", "float8_e4m3fn"],
  ["OCP FP8", "float8_e5m2"],
  ["FNUZ", "float8_e4m3fnuz"],
  ["P3109 8-bit", "Binary8p3se"],
  ["MX FP6", "float6_e2m3fn"],
  ["MX FP4", "float4_e2m1fn"],
  ["bfloat16", "bfloat16"],
  ["float16", "float16"],
  ["P3109 12-bit", "Binary12p5se"],
];

const CASES = [];
for (const [family, name] of dequantizeFormats) {
  const f = mf.format(name);
  const op = "dequantize";
  CASES.push({
    op,
    family,
    format: name,
    path: "zero-copy",
    make(n) {
      const codes = mf.allocCodes(f, n);
      const out = mf.allocFloat32(n);
      codes.array.set(codesFor(f, n));
      return { run: () => mf.dequantize(codes.array, f, { out: out.array }), free: () => (codes.free(), out.free()) };
    },
  });
  CASES.push({
    op,
    family,
    format: name,
    path: "JS arrays",
    make(n) {
      const codes = codesFor(f, n);
      const out = new Float32Array(n);
      return { run: () => mf.dequantize(codes, f, { out }) };
    },
  });
  CASES.push({
    op,
    family,
    format: name,
    path: "plain JS LUT",
    baseline: "js",
    make(n) {
      const lut = jsLut(f);
      const codes = codesFor(f, n);
      const bits = new Uint32Array(n);
      return { run: () => lut(codes, bits) };
    },
  });
  CASES.push({
    op,
    family,
    format: name,
    path: "copy (same bytes)",
    baseline: "copy",
    make(n) {
      const src = [new Uint8Array(n * (f.K <= 8 ? 1 : 2)), new Uint8Array(4 * n)];
      const dst = src.map((a) => new Uint8Array(a.length));
      return { run: () => (dst[0].set(src[0]), dst[1].set(src[1])) };
    },
  });
  if (f.K === 4 || f.K === 6) {
    const bytes = (n) => mf.packedLength(n, f.K);
    CASES.push({
      op,
      family,
      format: name,
      path: "packed zero-copy",
      make(n) {
        const packed = mf.allocBytes(bytes(n));
        const out = mf.allocFloat32(n);
        mf.packCodes(codesFor(f, n), f.K, { out: packed.array });
        return { run: () => mf.dequantizePacked(packed.array, f, n, { out: out.array }), free: () => (packed.free(), out.free()) };
      },
    });
    CASES.push({
      op,
      family,
      format: name,
      path: "packed JS arrays",
      make(n) {
        const packed = mf.packCodes(codesFor(f, n), f.K);
        const out = new Float32Array(n);
        return { run: () => mf.dequantizePacked(packed, f, n, { out }) };
      },
    });
  }
}

// Quantize rows through the public API (kernel when wired, else the reference); the BigInt reference is ~10^6/s,
// so its baseline row runs at 64K only. Stochastic rows use a seed (counter-based generator, N = 8).
const SR = { rounding: "StochasticA", stochasticBits: 8, seed: 7 };
const quantizeCases = [
  ["OCP FP8", "float8_e4m3fn", {}],
  ["OCP FP8", "float8_e5m2", {}],
  ["FNUZ", "float8_e4m3fnuz", {}],
  ["MX FP6", "float6_e2m3fn", { saturation: "SatFinite" }],
  ["MX FP4", "float4_e2m1fn", { saturation: "SatFinite" }],
  ["P3109 8-bit", "Binary8p3se", {}],
  ["bfloat16", "bfloat16", {}],
  ["float16", "float16", {}],
  ["P3109 12-bit", "Binary12p5se", {}],
  ["stochastic", "Binary8p3se", SR, "Binary8p3se SR-A8"],
  ["stochastic", "float8_e4m3fn", { ...SR, rounding: "StochasticC" }, "e4m3fn SR-C8"],
];
for (const [family, name, options, label = name] of quantizeCases) {
  const f = mf.format(name);
  const op = "quantize";
  // `of`: the format a stochastic row rounds into, whose nearest-even row it is compared with.
  const row = { op, family, format: label, of: name };
  CASES.push({
    ...row,
    path: "zero-copy",
    make(n) {
      const x = mf.allocFloat32(n);
      const out = mf.allocCodes(f, n);
      x.array.set(valuesFor(f, n));
      return { run: () => mf.quantize(x.array, f, { ...options, out: out.array }), free: () => (x.free(), out.free()) };
    },
  });
  CASES.push({
    ...row,
    path: "JS arrays",
    make(n) {
      const x = valuesFor(f, n);
      const out = f.K <= 8 ? new Uint8Array(n) : new Uint16Array(n);
      return { run: () => mf.quantize(x, f, { ...options, out }) };
    },
  });
  if (f.K === 4 || f.K === 6) {
    CASES.push({
      ...row,
      path: "packed JS arrays",
      make(n) {
        const x = valuesFor(f, n);
        const out = new Uint8Array(mf.packedLength(n, f.K));
        return { run: () => mf.quantizePacked(x, f, { ...options, out }) };
      },
    });
  }
  CASES.push({
    ...row,
    path: "TS reference (BigInt)",
    baseline: "js",
    sizes: [65536],
    make(n) {
      const x = valuesFor(f, n);
      const out = f.K <= 8 ? new Uint8Array(n) : new Uint16Array(n);
      return { run: () => (mf.useKernels(false), mf.quantize(x, f, { ...options, out }), mf.useKernels(true)) };
    },
  });
  CASES.push({
    ...row,
    path: "copy (same bytes)",
    baseline: "copy",
    make(n) {
      const src = [new Uint8Array(4 * n), new Uint8Array(n * (f.K <= 8 ? 1 : 2))];
      const dst = src.map((a) => new Uint8Array(a.length));
      return { run: () => (dst[0].set(src[0]), dst[1].set(src[1])) };
    },
  });
}

// Block-scaled quantize (quantizeBlocks): the Wasm block kernel, with the input as a JS array (streamed through the
// scratch region) or in Wasm memory (read in place); the TypeScript reference at 64K as the baseline.
const blockCases = [
  ["MX", "mxfp4", {}],
  ["MX", "mxfp8_e4m3", {}],
  ["MX", "mxint8", {}],
  ["NVFP4", "nvfp4", { tensorScale: "auto" }],
];
for (const [family, scheme, options] of blockCases) {
  const row = { op: "blocks", family, format: scheme };
  // Values spread over the element format's range (block scales then take many codes).
  const f = mf.format(scheme.endsWith("fp4") ? "float4_e2m1fn" : "float8_e4m3fn");
  CASES.push({
    ...row,
    path: "input in Wasm",
    make(n) {
      const x = mf.allocFloat32(n);
      x.array.set(valuesFor(f, n));
      return { run: () => mf.quantizeBlocks(x.array, scheme, options), free: () => x.free() };
    },
  });
  CASES.push({
    ...row,
    path: "JS arrays",
    make(n) {
      const x = valuesFor(f, n);
      return { run: () => mf.quantizeBlocks(x, scheme, options) };
    },
  });
  CASES.push({
    ...row,
    path: "TS reference",
    baseline: "js",
    sizes: [65536],
    make(n) {
      const x = valuesFor(f, n);
      return { run: () => (mf.useKernels(false), mf.quantizeBlocks(x, scheme, options), mf.useKernels(true)) };
    },
  });
}

/** Runs fn `reps` times and returns seconds. */
function time(fn, reps) {
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < reps; r++) fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const only = args.get("only");
const results = [];
for (const n of SIZES) {
  const cases = CASES.filter((c) => (!only || c.op === only) && (!c.sizes || c.sizes.includes(n)));
  const live = cases.map((c) => ({ c, ...c.make(n), rates: [] }));
  for (const x of live) {
    x.run();
    x.reps = Math.max(1, Math.ceil(SAMPLE_MS / 1000 / time(x.run, 1)));
  }
  for (let r = 0; r < ROUNDS; r++) for (const x of live) x.rates.push((n * x.reps) / time(x.run, x.reps));
  for (const x of live) {
    x.free?.();
    results.push({
      op: x.c.op,
      family: x.c.family,
      format: x.c.format,
      of: x.c.of,
      path: x.c.path,
      baseline: x.c.baseline ?? null,
      n,
      median: median(x.rates),
      best: Math.max(...x.rates),
      rounds: ROUNDS,
    });
  }
}

const M = (r) => (r / 1e6).toFixed(0).padStart(7);
console.log(
  `minifloat bench — Node ${process.version}, ${cpus()[0]?.model} ×${cpus().length} (${arch()}), load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${ROUNDS} rounds, M elements/s median (best)`,
);
console.log("op          format            path                     N        median    best   ×JS/ref   ×copy");
for (const r of results) {
  // Same N when the baseline ran at that N, else its only N (the BigInt quantize reference runs at 64K only).
  const peers = (b) => results.filter((q) => q.op === r.op && q.format === r.format && q.baseline === b);
  const peer = (b) => peers(b).find((q) => q.n === r.n) ?? peers(b)[0];
  const js = peer("js");
  const copy = peer("copy");
  const ratio = (b) => (b && !r.baseline ? `${(r.median / b.median).toFixed(1).padStart(7)}×` : "        ");
  console.log(
    `${r.op.padEnd(11)} ${r.format.padEnd(17)} ${r.path.padEnd(22)} ${String(r.n).padStart(9)} ${M(r.median)} ${M(r.best)}  ${ratio(js)} ${ratio(copy)}`,
  );
}
console.log("×JS/ref: against the plain-JS LUT loop (dequantize) or the TypeScript reference at N = 65536 (quantize, blocks).");
// Stochastic rounding against nearest-even into the same format, same path and N (kernel issue target: ≥ 0.5×).
for (const r of results.filter((q) => q.family === "stochastic" && !q.baseline)) {
  const ne = results.find((q) => q.op === r.op && q.format === r.of && q.path === r.path && q.n === r.n);
  if (ne)
    console.log(
      `${r.format} / ${r.of} nearest-even, ${r.path}, N = ${r.n}: ${(r.median / ne.median).toFixed(2)}× (medians), ${(r.best / ne.best).toFixed(2)}× (best)`,
    );
}

const dir = join(dirname(fileURLToPath(import.meta.url)), "results");
mkdirSync(dir, { recursive: true });
const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify({ node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, load: loadavg(), rounds: ROUNDS, results }, null, 1));
console.log(`wrote ${file}`);
