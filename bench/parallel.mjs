// Parallel bulk conversions (minifloat/parallel) against one thread: M elements/s, median of interleaved rounds.
// Usage: node bench/parallel.mjs [--threads 2] [--rounds 9] [--sizes 1048576,4194304,16777216]
// Rows: one thread with the arrays in its Wasm memory (allocFloat32/allocCodes, the fastest single-thread path), the
// pool with the arrays in its shared memory (pool.allocFloat32/allocCodes, zero-copy), and the pool on plain
// SharedArrayBuffer arrays (each worker copies its part through its own Wasm memory).
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { allocCodes, allocFloat32, dequantize, quantize } from "../build/node/index.js";
import { createPool } from "../build/node/parallel.js";

const { values: args } = parseArgs({ options: { threads: { type: "string", default: "2" }, rounds: { type: "string", default: "9" }, sizes: { type: "string", default: "1048576,4194304,16777216" } } });
const rounds = Number(args.rounds);
const sizes = args.sizes.split(",").map(Number);
const pool = await createPool({ threads: Number(args.threads), minElements: 0 });

const uptime = () => {
  try {
    return execFileSync("uptime", { encoding: "utf8" }).trim();
  } catch {
    return `load average: ${loadavg().map((x) => x.toFixed(2)).join(", ")}`;
  }
};
const fill = (a) => {
  for (let i = 0; i < a.length; i++) a[i] = Math.sin(i) * 2 ** ((i % 29) - 14) || 0.5;
  return a;
};
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
  { name: "quantize float8_e4m3fn (RNE)", fmt: "float8_e4m3fn", options: {} },
  { name: "quantize Binary8p3se StochasticA N=8 seeded", fmt: "Binary8p3se", options: { rounding: "StochasticA", stochasticBits: 8, seed: 1 } },
  { name: "dequantize float8_e4m3fn", fmt: "float8_e4m3fn", dequant: true },
];
console.log(uptime());
console.log(`threads ${pool.threads}, rounds ${rounds} (interleaved), cores free for ${pool.threads} spinning threads: ${(await freeCores(pool.threads)).toFixed(2)}`);
console.log("case | N | 1 thread, Wasm memory M/s median (best) | pool, shared memory M/s | speedup of medians (of bests) | pool, SharedArrayBuffer arrays M/s | speedup");
for (const c of cases) {
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
    if (Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) !== 0) throw new Error(`${c.name}: pool result differs`);
    const t = { one: [], pool: [], sab: [] };
    const reps = Math.max(1, Math.round(4e6 / n));
    for (let r = 0; r < rounds; r++) {
      for (const k of ["one", "pool", "sab"]) t[k].push((await time(async () => { for (let i = 0; i < reps; i++) await run[k](); })) / reps);
    }
    const rate = (k) => n / median(t[k]) / 1e6;
    const best = (k) => n / Math.min(...t[k]) / 1e6;
    const both = (k) => `${rate(k).toFixed(0)} (${best(k).toFixed(0)})`;
    const speedup = (k) => `${(rate(k) / rate("one")).toFixed(2)}× (${(best(k) / best("one")).toFixed(2)}×)`;
    console.log(`${c.name} | ${n} | ${both("one")} | ${both("pool")} | ${speedup("pool")} | ${both("sab")} | ${speedup("sab")}`);
    for (const h of [x1, codes1, values1, xp, codesP, valuesP]) h.free();
  }
}
console.log(`cores free after: ${(await freeCores(pool.threads)).toFixed(2)}`);
console.log(uptime());
await pool.close();
