// Parallel bulk conversions (minifloat/parallel) against one thread: M elements/s, median of interleaved rounds.
// Usage: node bench/parallel.mjs [--threads 2] [--rounds 11] [--sizes 65536,1048576,16777216]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { dequantize, quantize } from "../build/node/index.js";
import { createPool } from "../build/node/parallel.js";

const { values: args } = parseArgs({ options: { threads: { type: "string", default: "2" }, rounds: { type: "string", default: "11" }, sizes: { type: "string", default: "65536,262144,1048576,4194304,16777216" } } });
const rounds = Number(args.rounds);
const sizes = args.sizes.split(",").map(Number);
const pool = await createPool({ threads: Number(args.threads), minElements: 0 });

const shared = (Type, n) => new Type(new SharedArrayBuffer(n * Type.BYTES_PER_ELEMENT));
function input(n) {
  const src = shared(Float32Array, n);
  for (let i = 0; i < n; i++) src[i] = (Math.sin(i) * 2 ** ((i % 29) - 14)) || 0.5;
  return src;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

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
  { name: "quantize e4m3 (RNE)", fmt: "float8_e4m3fn", options: {} },
  { name: "quantize Binary8p3se StochasticA N=8", fmt: "binary8p3se", options: { rounding: "StochasticA", stochasticBits: 8, seed: 1 } },
  { name: "dequantize e4m3", fmt: "float8_e4m3fn", dequant: true },
];
console.log(`threads ${pool.threads}, rounds ${rounds}, load average before: ${loadavg().map((x) => x.toFixed(2)).join(" ")}, cores free for ${pool.threads} spinning threads: ${(await freeCores(pool.threads)).toFixed(2)}`);
console.log("case | N | 1 thread M/s median (best) | pool M/s | speedup of medians (of bests) | pool, non-shared arrays (copies) M/s");
for (const c of cases) {
  for (const n of sizes) {
    const src = input(n);
    const codes = quantize(src, c.fmt, { ...c.options, out: shared(Uint8Array, n) });
    const outCodes = shared(Uint8Array, n);
    const outValues = shared(Float32Array, n);
    const plainSrc = new Float32Array(src);
    const plainCodes = new Uint8Array(codes);
    const one = c.dequant ? () => dequantize(codes, c.fmt, { out: outValues }) : () => quantize(src, c.fmt, { ...c.options, out: outCodes });
    const many = c.dequant ? () => pool.dequantize(codes, c.fmt, { out: outValues }) : () => pool.quantize(src, c.fmt, { ...c.options, out: outCodes });
    const copied = c.dequant ? () => pool.dequantize(plainCodes, c.fmt) : () => pool.quantize(plainSrc, c.fmt, c.options);
    const t = { one: [], many: [], copied: [] };
    const reps = Math.max(1, Math.round(4e6 / n));
    for (let r = 0; r < rounds; r++) {
      for (const k of ["one", "many", "copied"]) {
        const f = { one, many, copied }[k];
        t[k].push((await time(async () => { for (let i = 0; i < reps; i++) await f(); })) / reps);
      }
    }
    const rate = (k) => n / median(t[k]) / 1e6;
    const best = (k) => n / Math.min(...t[k]) / 1e6;
    const both = (k) => `${rate(k).toFixed(0)} (${best(k).toFixed(0)})`;
    console.log(`${c.name} | ${n} | ${both("one")} | ${both("many")} | ${(rate("many") / rate("one")).toFixed(2)}× (${(best("many") / best("one")).toFixed(2)}×) | ${both("copied")}`);
  }
}
console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(" ")}, cores free: ${(await freeCores(pool.threads)).toFixed(2)}`);
await pool.close();
