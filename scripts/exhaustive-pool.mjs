// What the exhaustive checkers share: their workers import parts of src/ (TypeScript, with the built kernels),
// bundled once into a temporary directory; and a range of bit patterns handed out to the workers in jobs.
import { build } from "esbuild";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, parentPort } from "node:worker_threads";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Bundles `contents` (ES module source importing ./src/…) for worker threads: its file URL and a cleanup. */
export async function bundleForWorkers(contents) {
  if (!existsSync(join(root, "build/wasm/kernels.js"))) {
    console.error("build/wasm/kernels.js is missing: run `npm run build` first");
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), "minifloat-exhaustive-"));
  const outfile = join(dir, "bundle.mjs");
  await build({ stdin: { contents, resolveDir: root, loader: "ts" }, bundle: true, platform: "node", format: "esm", outfile, logLevel: "warning" });
  return { url: pathToFileURL(outfile).href, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Bit patterns [from, to) in jobs of `job`, each `{ start, end }` posted to the next idle one of `workers` workers
 * running `script` with `workerData`. A worker posts `{ ready: true, … }` once (handed to onReady, which may throw to
 * stop) and then, per job, a result `{ count, mismatches, examples }`. Returns the totals and up to `show` examples.
 */
export async function sweep({ script, workerData, workers, from = 0, to = 2 ** 32, job, show, onReady, onProgress }) {
  let next = from;
  const total = { checked: 0, mismatches: 0, shown: [] };
  await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise((resolve, reject) => {
          const w = new Worker(script, { workerData });
          const feed = () => {
            if (next >= to) return w.postMessage(null);
            const start = next;
            next = Math.min(to, next + job);
            w.postMessage({ start, end: next });
          };
          w.on("message", (m) => {
            if (m.ready) {
              try {
                onReady?.(m);
              } catch (error) {
                reject(error);
              }
              return feed();
            }
            total.checked += m.count;
            total.mismatches += m.mismatches;
            for (const line of m.examples) if (total.shown.length < show) total.shown.push(line);
            onProgress?.(total);
            feed();
          });
          w.on("error", reject);
          w.on("exit", resolve);
        }),
    ),
  );
  return total;
}

/**
 * A checker's worker side of sweep(): posts `{ ready: true, ...ready }`, then runs check(start, n, tally) on each job
 * in pieces of at most `block` bit patterns and posts the job's tally ({ count, mismatches, examples }).
 */
export function serveJobs(ready, block, check) {
  parentPort.postMessage({ ready: true, ...ready });
  parentPort.on("message", (job) => {
    if (job === null) return parentPort.close();
    const tally = { count: 0, mismatches: 0, examples: [] };
    for (let start = job.start; start < job.end; start += block) check(start, Math.min(block, job.end - start), tally);
    parentPort.postMessage(tally);
  });
}

/** Counts a mismatch in a serveJobs tally, keeping the first five descriptions. */
export function mismatch(tally, line) {
  tally.mismatches++;
  if (tally.examples.length < 5) tally.examples.push(line);
}
