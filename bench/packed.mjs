// Packed FP4/FP6 quantize, MX/NVFP4 block quantize and dot products at 16M elements, single thread, optionally next to
// another build loaded in the same process and interleaved round by round (the before/after comparison on a shared
// machine). Not part of npm test. Prints medians of the rounds and the load average.
//   npm run build && node bench/packed.mjs [--rounds 7] [--baseline other/build/node/index.js] [--only quantizePacked,quantizeBlocks,dot]
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1] ?? ""]] : [])));
const ROUNDS = Number(args.get("rounds") ?? 7);
const ONLY = args.has("only") ? args.get("only").split(",") : undefined;
const N = 1 << 24;
const SAMPLE_MS = 300;

const libs = [["this build", await import("minifloat")]];
if (args.has("baseline")) libs.unshift(["baseline", await import(pathToFileURL(resolve(args.get("baseline"))).href)]);

function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
// Values over 16 binades, both signs, a few exact zeros: every code of the narrow formats is hit.
const r = lcg(3);
const src = new Float32Array(N);
for (let i = 0; i < N; i++) src[i] = (r() - 0.5) * 2 ** (r() * 16 - 8);
const codesA = new Uint8Array(N);
const codesB = new Uint8Array(N);

/** Per library: its Wasm-memory copies of the inputs and the cases. */
function casesOf(mf) {
  const inWasm = mf.allocFloat32(N);
  inWasm.array.set(src);
  const cases = [];
  // The anchor: quantize into one code per byte, zero-copy (docs/performance.md has its quiet-machine rate).
  const codes = mf.allocBytes(N);
  cases.push({
    group: "anchor",
    label: "quantize float4_e2m1fn unpacked, zero-copy",
    run: () => mf.quantize(inWasm.array, "float4_e2m1fn", { out: codes.array }),
  });
  for (const f of ["float4_e2m1fn", "float6_e2m3fn"]) {
    const bytes = mf.packedLength(N, f === "float4_e2m1fn" ? 4 : 6);
    const outWasm = mf.allocBytes(bytes);
    const outJs = new Uint8Array(bytes);
    cases.push({ group: "quantizePacked", label: `quantizePacked ${f}, zero-copy`, run: () => mf.quantizePacked(inWasm.array, f, { out: outWasm.array }) });
    cases.push({ group: "quantizePacked", label: `quantizePacked ${f}, JS arrays`, run: () => mf.quantizePacked(src, f, { out: outJs }) });
  }
  // Zero-copy: options.out in Wasm memory (a build without options.out writes new arrays instead).
  const scales = mf.allocBytes(N / 16);
  const elements = mf.allocBytes(N);
  const outOf = (s) => {
    const b = mf.blockScheme(s);
    return { scales: scales.array.subarray(0, N / b.blockSize), elements: elements.array.subarray(0, b.packed ? N / 2 : N) };
  };
  let hasOut = true;
  try {
    mf.quantizeBlocks(new Float32Array(N), "mxfp4", { out: outOf("mxfp4") });
  } catch {
    hasOut = false;
  }
  for (const s of ["mxfp4", "mxfp6_e2m3", "mxfp8_e4m3", "nvfp4"]) {
    cases.push({
      group: "quantizeBlocks",
      label: `quantizeBlocks ${s}, zero-copy`,
      run: () => mf.quantizeBlocks(inWasm.array, s, hasOut ? { out: outOf(s) } : {}),
    });
  }
  cases.push({ group: "quantizeBlocks", label: "quantizeBlocks mxfp4, JS array", run: () => mf.quantizeBlocks(src, "mxfp4") });
  cases.push({
    group: "quantizeBlocks",
    label: "quantizeBlocks nvfp4 tensorScale auto, JS array",
    run: () => mf.quantizeBlocks(src, "nvfp4", { tensorScale: "auto" }),
  });
  const a = mf.allocBytes(N);
  const b = mf.allocBytes(N);
  a.array.set(codesA);
  b.array.set(codesB);
  for (const overflow of ["OvSAT", "OvINF", "OvNAN"]) {
    cases.push({
      group: "dot",
      label: `dot E4M3 binary16 partials ${overflow}, Wasm memory`,
      run: () => mf.dot(a.array, b.array, { formats: "E4M3", overflow }),
    });
  }
  cases.push({ group: "dot", label: "dot E4M3 binary16 partials OvINF, JS arrays", run: () => mf.dot(codesA, codesB, { formats: "E4M3", overflow: "OvINF" }) });
  return cases.filter((c) => !ONLY || c.group === "anchor" || ONLY.includes(c.group));
}

// E4M3 codes of products that overflow binary16 partials now and then (activations up to 192, as in bench/dot.mjs).
{
  const [, mf] = libs.at(-1);
  const x = new Float32Array(N);
  for (let i = 0; i < N; i++) x[i] = (r() - 0.5) * 2 ** (r() * 12 - 4);
  codesA.set(mf.quantize(x, "float8_e4m3fn"));
  for (let i = 0; i < N; i++) x[i] = (r() - 0.5) * 2 ** (r() * 12 - 4);
  codesB.set(mf.quantize(x, "float8_e4m3fn"));
}

const perLib = libs.map(([name, mf]) => ({ name, cases: casesOf(mf) }));
const rates = perLib.map((l) => l.cases.map(() => []));
for (const l of perLib) for (const c of l.cases) for (let w = 0; w < 2; w++) c.run();
console.log(
  `load average at the start ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}; ${ROUNDS} rounds, ${N} elements`,
);
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < perLib[0].cases.length; i++) {
    perLib.forEach((l, j) => {
      const c = l.cases[i];
      let reps = 0;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      let t = t0;
      while (t - t0 < SAMPLE_MS || reps < 2) {
        c.run();
        reps++;
        t = performance.now();
      }
      const cpu = process.cpuUsage(c0);
      rates[j][i].push([(N * reps) / ((t - t0) / 1000), (N * reps) / ((cpu.user + cpu.system) / 1e6)]);
    });
  }
}
const median = (x) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)];
const g = (x) => `${(x / 1e9).toFixed(3)} G/s`;
// Per CPU-second rates leave out the time the process waited for a core (the machine is shared); wall rates follow.
for (const [k, what] of [
  [1, "per CPU-second"],
  [0, "wall clock"],
]) {
  console.log(`\n${perLib.map((l) => l.name).join(" | ")}: elements (dot: MACs) per second, ${what}, medians`);
  for (let i = 0; i < perLib[0].cases.length; i++) {
    const m = rates.map((rs) => median(rs[i].map((x) => x[k])));
    const ratio = m.length > 1 ? `  ×${(m[1] / m[0]).toFixed(2)}` : "";
    console.log(`${perLib[0].cases[i].label.padEnd(52)}${m.map((x) => g(x).padStart(13)).join("")}${ratio}`);
  }
}
console.log(
  `load average at the end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
