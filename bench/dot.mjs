// npm run bench:dot — throughput of the narrow-partials dot product (multiply-accumulates/s per overflow mode) and
// of MX / NVFP4 block quantization (elements/s), each next to a plain TypeScript loop measured in the same run; the
// targets are single-thread rates on 16M-element vectors (the "16M" rows).
// Not part of npm test. Median and best of interleaved rounds (after warm-up calls, so that V8 has tiered the
// Wasm up: a long first call runs in its baseline compiler).   node bench/dot.mjs [--rounds 7]
import { loadavg } from "node:os";
import { allocBytes, allocFloat32, dotRows, dot, decode, quantize, quantizeBlocks, useKernels } from "minifloat";

/** Runs `call` with the kernels switched off (the TypeScript reference), then switches them back on. */
function onReference(call) {
  useKernels(false);
  try {
    return call();
  } finally {
    useKernels(true);
  }
}

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : [])));
const ROUNDS = Number(args.get("rounds") ?? 7);
const SAMPLE_MS = 40;

function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
/**
 * E4M3 codes shaped like the activations of the dot-product saturation study (docs/blocks-and-dot.md): randn clipped to ±4, squared with its sign, rows scaled to a
 * maximum of 192 (so binary16 partials overflow in a few per cent of the dot products, as in the notebook).
 */
function activationCodes(rows, cols, seed) {
  const r = lcg(seed);
  const x = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    let max = 0;
    for (let j = 0; j < cols; j++) {
      const g = Math.max(-4, Math.min(4, Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r())));
      x[i * cols + j] = g * g * Math.sign(g);
      max = Math.max(max, Math.abs(x[i * cols + j]));
    }
    for (let j = 0; j < cols; j++) x[i * cols + j] = (x[i * cols + j] / max) * 192;
  }
  return quantize(x, "float8_e4m3fn");
}

/**
 * Calls fn until SAMPLE_MS passed; returns work units per wall-clock second and per CPU second of this process
 * (the second is the better estimate on a shared, loaded machine: time spent waiting for a core is not counted).
 */
function sample(fn, units) {
  fn();
  let reps = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < SAMPLE_MS) {
    fn();
    reps++;
    t = performance.now();
  }
  const c = process.cpuUsage(c0);
  return [(units * reps) / ((t - t0) / 1000), (units * reps) / ((c.user + c.system) / 1e6)];
}

function measure(cases) {
  for (const c of cases) for (let w = 0; w < 3; w++) c.run();
  const wall = cases.map(() => []);
  const cpu = cases.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    cases.forEach((c, i) => {
      const [w, u] = sample(c.run, c.units);
      wall[i].push(w);
      cpu[i].push(u);
    });
  }
  const median = (x) => x.sort((a, b) => a - b)[Math.floor(x.length / 2)];
  return cases.map((c, i) => ({ label: c.label, median: median(wall[i]), best: Math.max(...wall[i]), cpu: median(cpu[i]) }));
}

const fmtRate = (x) => (x >= 1e9 ? `${(x / 1e9).toFixed(2)} G` : `${(x / 1e6).toFixed(1)} M`);
function print(title, rows, unit) {
  console.log(`\n${title}`);
  for (const r of rows)
    console.log(`  ${r.label.padEnd(58)}${fmtRate(r.median).padStart(10)}${unit} median, ${fmtRate(r.best)} best, ${fmtRate(r.cpu)} per CPU-second`);
}

// A plain TypeScript loop of the same semantics (binary16 partials, BLK = 16, OvSAT), float64 arithmetic throughout.
const VALUES = Float64Array.from({ length: 256 }, (_, c) => decode(c, "float8_e4m3fn"));
function plainRound16(x) {
  if (x === 0 || x !== x) return x;
  const a = Math.abs(x);
  const e = Math.max(Math.floor(Math.log2(a)), -14);
  const q = 2 ** (e - 10);
  let r = Math.round(a / q);
  if (r - a / q === 0.5 && r % 2 === 1) r -= 1;
  const v = Math.min(r * q, 65504);
  return x < 0 ? -v : v;
}
function plainDot(a, b) {
  let total = 0;
  for (let s = 0; s < a.length; s += 16) {
    let block = 0;
    for (let i = s; i < s + 16 && i < a.length; i++) block += plainRound16(VALUES[a[i]] * VALUES[b[i]]);
    total = plainRound16(total + plainRound16(block));
  }
  return total;
}

const rows = 1000,
  cols = 2048;
const A = activationCodes(rows, cols, 1);
const B = activationCodes(rows, cols, 2);
const a1 = A.subarray(0, 65536 - 0),
  b1 = B.subarray(0, 65536);
const dotCases = [];
for (const overflow of ["OvSAT", "OvINF", "OvNAN", "exact"]) {
  dotCases.push({
    label: `dotRows ${rows}×${cols} E4M3, binary16 partials, ${overflow} (Wasm)`,
    units: rows * cols,
    run: () => dotRows(A, B, rows, cols, { formats: "E4M3", overflow }),
  });
}
dotCases.push({ label: "dot 65536 E4M3, binary16, OvINF (Wasm, one call)", units: 65536, run: () => dot(a1, b1, { formats: "E4M3", overflow: "OvINF" }) });
// 16M-element vectors: JS arrays (streamed through Wasm memory in 64K parts) and Wasm views (read in place).
const BIG = 1 << 24;
const bigA = activationCodes(BIG / cols, cols, 3);
const bigB = activationCodes(BIG / cols, cols, 4);
const wasmA = allocBytes(BIG);
const wasmB = allocBytes(BIG);
for (const overflow of ["OvSAT", "OvINF", "OvNAN"]) {
  dotCases.push({
    label: `dot 16M E4M3, binary16 partials, ${overflow} (Wasm, JS arrays)`,
    units: BIG,
    run: () => dot(bigA, bigB, { formats: "E4M3", overflow }),
  });
}
dotCases.push({
  label: "dot 16M E4M3, binary16, OvINF (Wasm, operands in Wasm memory)",
  units: BIG,
  run: () => dot(wasmA.array, wasmB.array, { formats: "E4M3", overflow: "OvINF" }),
});
dotCases.push({
  label: "dotRows bfloat16 partials, OvINF (Wasm)",
  units: rows * cols,
  run: () => dotRows(A, B, rows, cols, { formats: "E4M3", partials: "bfloat16", overflow: "OvINF" }),
});
dotCases.push({ label: "plain TypeScript loop (same semantics, OvSAT)", units: 65536, run: () => plainDot(a1, b1) });
dotCases.push({
  label: "TypeScript reference (dot, useKernels(false), OvSAT)",
  units: 65536,
  run: () => onReference(() => dot(a1, b1, { formats: "E4M3", overflow: "OvSAT" })),
});
wasmA.array.set(bigA);
wasmB.array.set(bigB);
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}; ${ROUNDS} rounds`,
);
print("Dot products (multiply-accumulates per second)", measure(dotCases), "MAC/s");

const N = 1 << 22;
const src = new Float32Array(N);
const r = lcg(3);
for (let i = 0; i < N; i++) src[i] = (r() - 0.5) * 2 ** (r() * 16 - 8);
const small = src.subarray(0, 1 << 14);
const E2M1 = Float64Array.from({ length: 8 }, (_, c) => decode(c, "float4_e2m1fn"));
// Plain TypeScript MXFP4: exponent bits of amax, then nearest E2M1 magnitude by comparisons (ties to even code).
const u32 = new Uint32Array(src.buffer);
function plainMxfp4(out, scales) {
  for (let k = 0; k < N / 32; k++) {
    let amax = 0;
    for (let i = k * 32; i < k * 32 + 32; i++) amax = Math.max(amax, u32[i] & 0x7fffffff);
    const e = Math.min(127, Math.max(-127, (amax >>> 23) - 127 - 2));
    scales[k] = e + 127;
    const inv = 2 ** -e;
    for (let i = k * 32; i < k * 32 + 32; i += 2) {
      let byte = 0;
      for (let j = 0; j < 2; j++) {
        const v = src[i + j] * inv;
        const a = Math.min(Math.abs(v), 6);
        let c = 0;
        while (c < 7 && a > (E2M1[c] + E2M1[c + 1]) / 2) c++;
        if (c < 7 && a === (E2M1[c] + E2M1[c + 1]) / 2 && c % 2 === 1) c++;
        byte |= (c | (v < 0 ? 8 : 0)) << (4 * j);
      }
      out[i >> 1] = byte;
    }
  }
}
const plainOut = new Uint8Array(N / 2),
  plainScales = new Uint8Array(N / 32);
const inWasm = allocFloat32(N);
inWasm.array.set(src);
const BIGN = 1 << 24;
const bigSrc = new Float32Array(BIGN);
for (let i = 0; i < BIGN; i++) bigSrc[i] = src[i & (N - 1)] * (1 + (i >>> 22));
const bigInWasm = allocFloat32(BIGN);
bigInWasm.array.set(bigSrc);
const mxCases = [
  { label: `quantizeBlocks 16M f32 → mxfp4 (Wasm, input in Wasm memory)`, units: BIGN, run: () => quantizeBlocks(bigInWasm.array, "mxfp4") },
  { label: `quantizeBlocks 16M f32 → mxfp4 (Wasm, JS arrays in/out)`, units: BIGN, run: () => quantizeBlocks(bigSrc, "mxfp4") },
  { label: `quantizeBlocks ${N} f32 → mxfp4 (Wasm, input in Wasm memory)`, units: N, run: () => quantizeBlocks(inWasm.array, "mxfp4") },
  { label: `quantizeBlocks ${N} f32 → mxfp4 (Wasm, JS arrays in/out)`, units: N, run: () => quantizeBlocks(src, "mxfp4") },
  { label: `quantizeBlocks ${N} f32 → mxfp8_e4m3 (Wasm)`, units: N, run: () => quantizeBlocks(src, "mxfp8_e4m3") },
  { label: `quantizeBlocks ${N} f32 → mxint8 (Wasm)`, units: N, run: () => quantizeBlocks(src, "mxint8") },
  { label: "quantizeBlocks 16M f32 → nvfp4 (Wasm, JS arrays in/out)", units: BIGN, run: () => quantizeBlocks(bigSrc, "nvfp4", { tensorScale: "auto" }) },
  { label: `quantizeBlocks ${N} f32 → nvfp4 (Wasm, input in Wasm memory)`, units: N, run: () => quantizeBlocks(inWasm.array, "nvfp4") },
  { label: "TypeScript reference (useKernels(false)) f32 → nvfp4", units: 1 << 14, run: () => onReference(() => quantizeBlocks(small, "nvfp4")) },
  { label: "plain TypeScript loop f32 → mxfp4", units: N, run: () => plainMxfp4(plainOut, plainScales) },
  { label: "TypeScript reference (useKernels(false)) f32 → mxfp4", units: 1 << 14, run: () => onReference(() => quantizeBlocks(small, "mxfp4")) },
];
print("MX / NVFP4 block quantization (elements per second)", measure(mxCases), "elem/s");
console.log(
  `\nload average at the end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
