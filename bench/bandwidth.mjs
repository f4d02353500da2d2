// Memory-bandwidth ceiling of the machine for the pool: one thread against W workers on disjoint parts of a shared
// Wasm memory, for a store-only stream and for dequantize-shaped traffic (1 byte read, 4 bytes written per element,
// no arithmetic to speak of). If W workers gain little here, a conversion bound by that traffic cannot gain more.
// Usage: node bench/bandwidth.mjs [--threads 2] [--rounds 11]   (M elements/s, best of the rounds)
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { compileProbes } from "./compile-probes.mjs";
import { probeOptions } from "./probes.mjs";

const { values: args } = parseArgs({ options: { threads: { type: "string", default: "2" }, rounds: { type: "string", default: "11" } } });
const threads = Number(args.threads);
const N = 1 << 24;
const PAGES = 2048; // 128 MiB: 16 MiB of bytes at 1 MiB, 64 MiB of float32 after them
const SRC = 1 << 20;
const DST = SRC + N;

const module = new WebAssembly.Module(compileProbes({ ...probeOptions(true), initialMemory: PAGES, maximumMemory: PAGES }));
const memory = new WebAssembly.Memory({ initial: PAGES, maximum: PAGES, shared: true });
const imports = { env: { memory, abort() {} } };
const main = new WebAssembly.Instance(module, imports).exports;
const code = `const { parentPort, workerData } = require("node:worker_threads");
const k = new WebAssembly.Instance(workerData.module, { env: { memory: workerData.memory, abort() {} } }).exports;
parentPort.on("message", ({ op, a, b }) => {
  if (op === "store") k.store(${DST} + 4 * a, b - a);
  else k.move14(${SRC} + a, ${DST} + 4 * a, b - a);
  parentPort.postMessage(0);
});`;
const workers = Array.from({ length: threads }, () => new Worker(code, { eval: true, workerData: { module, memory } }));
const job = (w, msg) => new Promise((resolve) => w.once("message", resolve).postMessage(msg));
const part = N / threads;
console.log(`bandwidth probe: ${N} elements, ${threads} workers, best of ${args.rounds} interleaved rounds`);
for (const op of ["store", "widen"]) {
  let one = Infinity;
  let all = Infinity;
  for (let r = 0; r < Number(args.rounds); r++) {
    let t = performance.now();
    if (op === "store") main.store(DST, N);
    else main.move14(SRC, DST, N);
    one = Math.min(one, performance.now() - t);
    t = performance.now();
    await Promise.all(workers.map((w, i) => job(w, { op, a: i * part, b: (i + 1) * part })));
    all = Math.min(all, performance.now() - t);
  }
  const rate = (ms) => (N / ms / 1e3).toFixed(0);
  const what = op === "store" ? "store 16 B vectors (4 B/element)" : "widen u8 → u32 (1 B read + 4 B written)";
  console.log(`${what}: 1 thread ${rate(one)} M/s, ${threads} workers ${rate(all)} M/s, ${(one / all).toFixed(2)}×`);
}
await Promise.all(workers.map((w) => w.terminate()));
