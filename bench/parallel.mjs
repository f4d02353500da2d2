// Parallel bulk conversions (minifloat/parallel) against one thread: M elements/s, median of interleaved rounds.
// Usage: node bench/parallel.mjs [--threads 2] [--rounds 9] [--sizes 1048576,4194304,16777216] [--only convert|dot]
// Rows: one thread with the arrays in its Wasm memory (allocFloat32/allocCodes, the fastest single-thread path), the
// pool with the arrays in its shared memory (pool.allocFloat32/allocCodes, zero-copy), and the pool on plain
// SharedArrayBuffer arrays (each worker copies its part through its own Wasm memory).
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { allocCodes, allocFloat32, dequantize, dotRows, matmul, matvec, quantize } from "../build/node/index.js";
import { createPool } from "../build/node/parallel.js";

const { values: args } = parseArgs({
  options: {
    threads: { type: "string", default: "2" },
    rounds: { type: "string", default: "9" },
    sizes: { type: "string", default: "1048576,4194304,16777216" },
    only: { type: "string" },
  },
});
const rounds = Number(args.rounds);
const sizes = args.sizes.split(",").map(Number);
const pool = await createPool({ threads: Number(args.threads), minElements: 0 });

const uptime = () => {
  try {
    return execFileSync("uptime", { encoding: "utf8" }).trim();
  } catch {
    return `load average: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(", ")}`;
  }
};
const fill = (a) => {
  for (let i = 0; i < a.length; i++) a[i] = Math.sin(i) * 2 ** ((i % 29) - 14) || 0.5;
  return a;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
/** Each round times calls on this many elements in all (4 calls at 16M): a host hiccup of a few ms spreads over them. */
const REPS_ELEMENTS = 64 * 2 ** 20;
/** A copy of `a` in a SharedArrayBuffer. */
const shared = (a) => {
  const s = new a.constructor(new SharedArrayBuffer(a.byteLength));
  s.set(a);
  return s;
};
/** One table row from per-round seconds of the three paths. */
function report(name, n, t) {
  const rate = (k) => n / median(t[k]) / 1e6;
  const best = (k) => n / Math.min(...t[k]) / 1e6;
  const both = (k) => `${rate(k).toFixed(0)} (${best(k).toFixed(0)})`;
  const speedup = (k) => `${(rate(k) / rate("one")).toFixed(2)}× (${(best(k) / best("one")).toFixed(2)}×)`;
  console.log(`${name} | ${n} | ${both("one")} | ${both("pool")} | ${speedup("pool")} | ${both("sab")} | ${speedup("sab")}`);
}

/** CPU time per wall time of the pool's threads spinning for 0.5 s: how many cores the machine gives us right now. */
async function freeCores(threads) {
  const code = `const { parentPort } = require("node:worker_threads");
parentPort.on("message", () => { const t = Date.now(); while (Date.now() - t < 500); parentPort.postMessage(0); });`;
  const workers = Array.from({ length: threads }, () => new Worker(code, { eval: true }));
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once("message", resolve).postMessage(0))));
  const used = process.cpuUsage(cpu);
  await Promise.all(workers.map((w) => w.terminate()));
  return (used.user + used.system) / 1000 / (performance.now() - start);
}
async function time(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

const cases = [
  { name: "quantize float8_e4m3fn (RNE)", fmt: "float8_e4m3fn", options: {} },
  { name: "quantize Binary8p3se StochasticA N=8 seeded", fmt: "Binary8p3se", options: { rounding: "StochasticA", stochasticBits: 8, seed: 1 } },
  { name: "dequantize float8_e4m3fn", fmt: "float8_e4m3fn", dequant: true },
];
console.log(uptime());
console.log(
  `threads ${pool.threads}, rounds ${rounds} (interleaved), cores free for ${pool.threads} spinning threads: ${(await freeCores(pool.threads)).toFixed(2)}`,
);
console.log(
  "case | N | 1 thread, Wasm memory M/s median (best) | pool, shared memory M/s | speedup of medians (of bests) | pool, SharedArrayBuffer arrays M/s | speedup",
);
for (const c of args.only === "dot" ? [] : cases) {
  for (const n of sizes) {
    // One thread: arrays in the single-thread Wasm memory. Pool: arrays in the pool's shared memory. Same values.
    const x1 = allocFloat32(n);
    fill(x1.array);
    const codes1 = allocCodes(c.fmt, n);
    quantize(x1.array, c.fmt, { ...c.options, out: codes1.array });
    const values1 = allocFloat32(n);
    const xp = pool.allocFloat32(n);
    xp.array.set(x1.array);
    const codesP = pool.allocCodes(c.fmt, n);
    codesP.array.set(codes1.array);
    const valuesP = pool.allocFloat32(n);
    const sabSrc = new Float32Array(new SharedArrayBuffer(4 * n));
    sabSrc.set(x1.array);
    const sabCodes = new Uint8Array(new SharedArrayBuffer(n));
    sabCodes.set(codes1.array);
    const sabOutCodes = new Uint8Array(new SharedArrayBuffer(n));
    const sabValues = new Float32Array(new SharedArrayBuffer(4 * n));
    const run = c.dequant
      ? {
          one: () => dequantize(codes1.array, c.fmt, { out: values1.array }),
          pool: () => pool.dequantize(codesP.array, c.fmt, { out: valuesP.array }),
          sab: () => pool.dequantize(sabCodes, c.fmt, { out: sabValues }),
        }
      : {
          one: () => quantize(x1.array, c.fmt, { ...c.options, out: codes1.array }),
          pool: () => pool.quantize(xp.array, c.fmt, { ...c.options, out: codesP.array }),
          sab: () => pool.quantize(sabSrc, c.fmt, { ...c.options, out: sabOutCodes }),
        };
    // Bit-identical check before timing.
    await run.pool();
    await run.one();
    const [a, b] = c.dequant ? [valuesP.array, values1.array] : [codesP.array, codes1.array];
    if (Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) !== 0)
      throw new Error(`${c.name}: pool result differs`);
    const t = { one: [], pool: [], sab: [] };
    const reps = Math.max(1, Math.round(REPS_ELEMENTS / n));
    for (let r = 0; r < rounds; r++) {
      for (const k of ["one", "pool", "sab"])
        t[k].push(
          (await time(async () => {
            for (let i = 0; i < reps; i++) await run[k]();
          })) / reps,
        );
    }
    report(c.name, n, t);
    for (const h of [x1, codes1, values1, xp, codesP, valuesP]) h.free();
  }
}

// Batched dot products: N multiply-adds, float8_e4m3fn codes, binary16 partials, OvSAT. One thread reads operands in
// its Wasm memory; the pool reads them in its shared memory (each worker streams its rows through its own memory)
// or in SharedArrayBuffers.
const DOT = { formats: "float8_e4m3fn", partials: "binary16", overflow: "OvSAT" };
const dotCases = [
  {
    name: "dotRows (rows × 4096)",
    shape: (n) => [n / 4096, 4096],
    one: (a, b, [r, c]) => dotRows(a, b, r, c, DOT),
    pool: (a, b, [r, c]) => pool.dotRows(a, b, r, c, DOT),
  },
  {
    name: "matvec (rows × 4096)",
    shape: (n) => [n / 4096, 4096],
    one: (a, b, [r, c]) => matvec(a, b.subarray(0, c), r, c, DOT),
    pool: (a, b, [r, c]) => pool.matvec(a, b.subarray(0, c), r, c, DOT),
  },
  {
    name: "matmul (m × 256 · 256 × 256)",
    shape: (n) => [n / 65536, 256],
    one: (a, b, [m]) => matmul(a.subarray(0, m * 256), b.subarray(0, 65536), m, 256, 256, DOT),
    pool: (a, b, [m]) => pool.matmul(a.subarray(0, m * 256), b.subarray(0, 65536), m, 256, 256, DOT),
  },
];
for (const c of args.only === "convert" ? [] : dotCases) {
  for (const n of sizes) {
    const shape = c.shape(n);
    const [a1, b1, ap, bp] = [
      allocCodes("float8_e4m3fn", n),
      allocCodes("float8_e4m3fn", n),
      pool.allocCodes("float8_e4m3fn", n),
      pool.allocCodes("float8_e4m3fn", n),
    ];
    let s = 7;
    for (const h of [a1, b1]) for (let i = 0; i < n; i++) h.array[i] = ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 24) & 0x7e;
    ap.array.set(a1.array);
    bp.array.set(b1.array);
    const [as, bs] = [shared(a1.array), shared(b1.array)];
    const run = { one: () => c.one(a1.array, b1.array, shape), pool: () => c.pool(ap.array, bp.array, shape), sab: () => c.pool(as, bs, shape) };
    const [x, y] = [await run.pool(), run.one()];
    if (Buffer.compare(Buffer.from(x.buffer, x.byteOffset, x.byteLength), Buffer.from(y.buffer, y.byteOffset, y.byteLength)) !== 0)
      throw new Error(`${c.name}: pool result differs`);
    const t = { one: [], pool: [], sab: [] };
    const reps = Math.max(1, Math.round(REPS_ELEMENTS / n));
    for (let r = 0; r < rounds; r++) {
      for (const k of ["one", "pool", "sab"])
        t[k].push(
          (await time(async () => {
            for (let i = 0; i < reps; i++) await run[k]();
          })) / reps,
        );
    }
    report(`${c.name}, M multiply-adds/s`, n, t);
    for (const h of [a1, b1, ap, bp]) h.free();
  }
}
console.log(`cores free after: ${(await freeCores(pool.threads)).toFixed(2)}`);
console.log(uptime());
await pool.close();
