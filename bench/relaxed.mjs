// The relaxed-SIMD tier against the baseline SIMD build, in one process: two copies of the library (bundled from src/,
// each with its own kernels instance), one forced to the baseline (MINIFLOAT_SIMD=baseline), the other picking the
// relaxed build. Needs an engine with relaxed SIMD: Node 20 restarts itself with --experimental-wasm-relaxed-simd.
// Not part of npm test.
//   npm run bench:relaxed -- [--n 16777216] [--rounds 9] [--same baseline|relaxed]
import { spawnSync } from "node:child_process";
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : [])));
const N = Number(args.get("n") ?? 2 ** 24);
const ROUNDS = Number(args.get("rounds") ?? 9);
// --same baseline|relaxed: both copies on that build (an A/A run: how far the ratios stray with no difference).
const SAME = args.get("same");
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "minifloat-relaxed-"));
const bundle = join(dir, "minifloat.mjs");
await build({
  stdin: { contents: `export * from "./src/index.ts"; export { hasRelaxedSimd } from "./src/wasm/relaxed-probe.ts";`, resolveDir: root, loader: "ts" },
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: bundle,
  logLevel: "warning",
});
const RELAXED_FLAG = "--experimental-wasm-relaxed-simd";
if (!(await import(`${pathToFileURL(bundle).href}?probe`)).hasRelaxedSimd() && !process.execArgv.includes(RELAXED_FLAG)) {
  rmSync(dir, { recursive: true, force: true });
  const child = spawnSync(process.execPath, [RELAXED_FLAG, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exit(child.status ?? 1);
}
// The tier is picked at a copy's first kernel call: the baseline copy is woken with the variable set.
const copies = {};
for (const tier of ["baseline", "relaxed"]) {
  const mf = await import(`${pathToFileURL(bundle).href}?${tier}`);
  const want = SAME ?? tier;
  if (want === "baseline") process.env.MINIFLOAT_SIMD = "baseline";
  else delete process.env.MINIFLOAT_SIMD;
  if (mf.kernelStatus().tier !== want) throw new Error(`wanted the ${want} build, the engine loaded ${mf.kernelStatus().tier}`);
  copies[tier] = mf;
}
rmSync(dir, { recursive: true, force: true });

/** n values in an order no branch predictor learns: codes uniform over 0…255, floats over a wide exponent range. */
function fill(bytes) {
  let s = 12345;
  for (let i = 0; i < bytes.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    bytes[i] = s >>> 24;
  }
}
function fillFloats(x) {
  let s = 777;
  for (let i = 0; i < x.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = ((s >>> 8) / 2 ** 24 - 0.5) * 2 ** ((s & 31) - 16);
  }
}

/** The cases of one copy, on its own Wasm memory (zero copy: inputs and outputs allocated there). */
function cases(mf) {
  const codes = mf.allocCodes("float8_e4m3fn", N);
  const nibbles = mf.allocCodes("float4_e2m1fn", N);
  const halves = mf.allocCodes("float16", N);
  const f16 = mf.allocCodes("binary16", N);
  const x = mf.allocFloat32(N);
  const y = mf.allocFloat32(N);
  const out8 = mf.allocCodes("float8_e4m3fn", N);
  const out16 = mf.allocCodes("bfloat16", N);
  fill(codes.array);
  for (let i = 0; i < N; i++) nibbles.array[i] = codes.array[i] & 15;
  fill(new Uint8Array(halves.array.buffer, halves.array.byteOffset, 2 * N));
  fillFloats(x.array);
  return [
    // The affine decode is the same code in both builds (its swizzle indices reach 16…127): a control of the noise.
    ["decode fp8 → f32 (affine)", () => mf.dequantize(codes.array, "float8_e4m3fn", { out: y.array }), () => y.array],
    ["decode fp8 → f16 (affine)", () => mf.dequantize(codes.array, "float8_e4m3fn", { to: "float16", bits: true, out: f16.array }), () => f16.array],
    ["decode fp4 → f32 (swizzle)", () => mf.dequantize(nibbles.array, "float4_e2m1fn", { out: y.array }), () => y.array],
    ["decode float16 → f32 (IEEE)", () => mf.dequantize(halves.array, "float16", { out: y.array }), () => y.array],
    ["encode f32 → fp8 (fast RNE)", () => mf.quantize(x.array, "float8_e4m3fn", { out: out8.array }), () => out8.array],
    ["encode f32 → bf16 (fast RNE)", () => mf.quantize(x.array, "bfloat16", { out: out16.array }), () => out16.array],
    [
      "encode f32 → fp8 (directed)",
      () => mf.quantize(x.array, "float8_e4m3fn", { rounding: "TowardZero", saturation: "SatFinite", out: out8.array }),
      () => out8.array,
    ],
    // Stochastic rounding to a format without zero takes the generic kernel.
    [
      "encode f32 → e8m0 (generic)",
      () => mf.quantize(x.array, "float8_e8m0fnu", { rounding: "StochasticA", stochasticBits: 8, seed: 7, out: out8.array }),
      () => out8.array,
    ],
  ];
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const base = cases(copies.baseline);
const relaxed = cases(copies.relaxed);
// Wall time, and the process's CPU time (user + system: the time the call ran, without the time other processes held
// the core; the machine is shared).
const times = base.map(() => ({ baseline: [], relaxed: [] }));
const cpu = base.map(() => ({ baseline: [], relaxed: [] }));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const load0 = loadavg()[0];
base.forEach(([, run], i) => {
  run();
  relaxed[i][1]();
  const a = base[i][2]();
  const b = relaxed[i][2]();
  const same = new Uint8Array(a.buffer, a.byteOffset, a.byteLength).every((v, j) => v === new Uint8Array(b.buffer, b.byteOffset, b.byteLength)[j]);
  if (!same) throw new Error(`${base[i][0]}: the builds' outputs differ`);
});
for (let r = 0; r < ROUNDS; r++) {
  base.forEach(([, run], i) => {
    // Alternate which build goes first, so neither always runs on a warmer cache.
    const order =
      r % 2 === 0
        ? [
            ["baseline", run],
            ["relaxed", relaxed[i][1]],
          ]
        : [
            ["relaxed", relaxed[i][1]],
            ["baseline", run],
          ];
    for (const [tier, f] of order) {
      const c = cpuMs();
      const t = performance.now();
      f();
      times[i][tier].push(performance.now() - t);
      cpu[i][tier].push(cpuMs() - c);
    }
  });
}
const load1 = loadavg()[0];
console.log(
  `${SAME ? `A/A run, both copies on the ${SAME} build` : "relaxed SIMD against the baseline build"}, ${N} elements, ${ROUNDS} interleaved rounds, zero copy; Node ${process.version}`,
);
console.log(`load average ${load0.toFixed(2)} → ${load1.toFixed(2)} on ${availableParallelism()} CPUs; outputs of both builds identical\n`);
// Ratios of the two calls of each round (run back to back), then their median: steadier than a ratio of medians when
// the machine's load changes between rounds.
// Columns: median G elements/s by wall time of each build, the median of the paired ratios (relaxed speed / baseline
// speed) by wall time and by CPU time.
console.log(`${"case".padEnd(32)}${"baseline G/s".padStart(13)}${"relaxed G/s".padStart(13)}${"wall ratio".padStart(12)}${"CPU ratio".padStart(11)}`);
const paired = (t) => median(t.baseline.map((b, r) => b / t.relaxed[r]));
base.forEach(([name], i) => {
  const gb = N / median(times[i].baseline) / 1e6;
  const gr = N / median(times[i].relaxed) / 1e6;
  console.log(
    `${name.padEnd(32)}${gb.toFixed(2).padStart(13)}${gr.toFixed(2).padStart(13)}${paired(times[i]).toFixed(2).padStart(12)}${paired(cpu[i]).toFixed(2).padStart(11)}`,
  );
});
