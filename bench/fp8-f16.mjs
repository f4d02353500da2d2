// npm run bench:f16: float8_e4m3fn codes → binary16 bits, zero copy (codes and output in Wasm memory), in Node and in
// headless Chromium (the test suite's static server and browser build), side by side. Not part of npm test.
//   node bench/fp8-f16.mjs [--n 16777216] [--rounds 9]
import sparticuz from "@sparticuz/chromium";
import * as mf from "minifloat";
import { createPool } from "minifloat/parallel";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { availableParallelism, loadavg } from "node:os";
import { chromium } from "playwright-core";
import { serveStatic } from "../scripts/static-server.mjs";
import { measure } from "./fp8-f16-cases.mjs";
import { compileProbes } from "./compile-probes.mjs";
import { probeInstance } from "./probes.mjs";

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : [])));
const N = Number(args.get("n") ?? 2 ** 24);
const ROUNDS = Number(args.get("rounds") ?? 9);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const probeBinary = compileProbes();

/** Runs the cases in headless Chromium; the probe's bytes are served to the page as /probe/probe.bin. */
async function inChromium() {
  const probeDir = await mkdtemp(join(tmpdir(), "minifloat-probe-"));
  await writeFile(join(probeDir, "probe.bin"), probeBinary);
  // Cross-origin isolated, so the page has SharedArrayBuffer and can start the worker pool.
  const server = await serveStatic({ "/build/browser/": join(root, "build", "browser"), "/bench/": join(root, "bench"), "/probe/": probeDir }, [], {
    isolated: true,
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath()),
    headless: true,
    args: ["--headless", "--no-sandbox", "--no-zygote", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/bench/fp8-f16.html?n=${N}&rounds=${ROUNDS}`);
    await page.waitForFunction(() => window.benchResult !== undefined, undefined, { timeout: 600_000 });
    const result = await page.evaluate(() => window.benchResult);
    if (result.error) throw new Error(`in Chromium: ${result.error}`);
    return { ...result, version: browser.version() };
  } finally {
    await browser.close();
    await server.close();
    await rm(probeDir, { recursive: true, force: true });
  }
}

await mf.initKernels();
// One worker per core besides the caller, which runs chunks too (PoolOptions.callerRuns).
const pool = await createPool({ threads: Math.max(1, availableParallelism() - 1), callerRuns: true, minElements: 0 });
const node = await measure(mf, N, ROUNDS, probeInstance(probeBinary, 5 * N + 65536), pool);
await pool.close();
const browser = await inChromium();
const load = loadavg()[0].toFixed(2);
console.log(`fp8 (float8_e4m3fn) → 16-bit output, ${N} elements, ${ROUNDS} rounds: median G elements/s (ms per call), best round`);
console.log(`Node ${process.version} (kernels: ${mf.kernelStatus().available}), Chromium ${browser.version} (kernels: ${browser.kernels})`);
console.log(`load average ${load} on ${availableParallelism()} CPUs (other processes share the machine)\n`);
console.log(`${"case".padEnd(40)}${"Node".padStart(24)}${"Chromium".padStart(24)}`);
node.forEach((row, i) => {
  const cell = (r) => `${r.gps.toFixed(2)} (${r.ms.toFixed(1)} ms), ${r.best.toFixed(2)}`.padStart(24);
  console.log(`${row.name.padEnd(40)}${cell(row)}${cell(browser.rows[i])}`);
});
const share = (rows, kernel, probe) => `${((100 * rows[kernel].gps) / rows[probe].gps).toFixed(0)} %`;
console.log(`\nmedians against the probe that moves the same bytes (Node, Chromium):`);
console.log(`  dequantize → float16 bits: ${share(node, 0, 2)}, ${share(browser.rows, 0, 2)}`);
console.log(`  dequantize → float32:      ${share(node, 3, 4)}, ${share(browser.rows, 3, 4)}`);
console.log(`  pool, float16 bits:        ${share(node, 5, 2)}, ${share(browser.rows, 5, 2)} (of one thread's probe)`);
