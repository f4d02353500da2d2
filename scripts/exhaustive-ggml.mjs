// Exhaustive check of the Wasm passes of GGUF MXFP4/NVFP4 quantization (assembly/ggml.ts): the elements
// (e2m1Nearest), every finite float32 under each of a list of half-scales d, against ggml's best_index_mxfp4 written
// out here as ggml defines it (the first of the 16 kvalues k minimising fl32(|fl32(k·d) − x|); float64 differences of
// float32 operands rounded to float32 are the float32 differences); then NVFP4's scale bytes (ue4m3Scales), every
// finite non-negative float32 amax, against ggml_fp32_to_ue4m3(fl32(amax / 6)) written out here too.
//
// usage: npm run check:exhaustive-ggml [-- --d 0.5,224 --from 0xHEX --to 0xHEX --workers W]   (run `npm run build` first)
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, workerData } from "node:worker_threads";
import { parseArgs } from "node:util";
import { bundleForWorkers, mismatch, serveJobs, sweep } from "./exhaustive-pool.mjs";

const BLOCK = 2 ** 22; // bit patterns per kernel call (a multiple of 32)
const JOB = 2 ** 26;
const KVALUES = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];
// Half-scales of both types: zero (NVFP4 scale code 0), the smallest MXFP4 one (subnormal, 2^−128), an odd E4M3 value
// halved, a power of two, NVFP4's saturated 448 / 2, and the largest MXFP4 one (12·d overflows to ∞).
const DEFAULT_D = [0, 2 ** -128, 0.5625, 0.5, 224, 2 ** 127];

if (isMainThread) await main();
else await worker();

async function main() {
  const { values: args } = parseArgs({ options: { d: { type: "string" }, workers: { type: "string" }, from: { type: "string" }, to: { type: "string" } } });
  const from = Number(args.from ?? 0);
  const to = Number(args.to ?? 2 ** 32);
  const ds = args.d ? args.d.split(",").map(Number) : DEFAULT_D;
  const workers = Number(args.workers ?? Math.min(2, availableParallelism()));
  if (ds.some((d) => !(d >= 0 && Math.fround(d) === d)) || !(workers >= 1) || !(from >= 0 && to <= 2 ** 32 && from < to)) {
    console.error("usage: npm run check:exhaustive-ggml -- [--d <float32 half-scales ≥ 0, comma-separated>] [--from 0xHEX] [--to 0xHEX] [--workers W]");
    process.exit(2);
  }
  const bundle = await bundleForWorkers(`export { e2m1NearestWasm, ue4m3ScalesWasm } from "./src/wasm/ggml.ts";`);
  let failed = false;
  for (const d of [...ds, "ue4m3"]) {
    const started = performance.now();
    const { checked, mismatches, shown } = await sweep({
      script: fileURLToPath(import.meta.url),
      workerData: { bundle: bundle.url, d },
      workers,
      from,
      to,
      job: JOB,
      show: 10,
      onProgress: (t) => process.stdout.write(`\rd = ${d}: ${((t.checked / 2 ** 32) * 100).toFixed(1)} % of 2^32, ${t.mismatches} mismatches   `),
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `\r${d === "ue4m3" ? "UE4M3 scales of amax" : `d = ${d}`}: ${checked} finite float32 of [0x${from.toString(16)}, 0x${to.toString(16)}) in ${seconds.toFixed(1)} s on ${workers} workers: ${mismatches} mismatches`,
    );
    for (const line of shown) console.log(`  ${line}`);
    failed ||= mismatches > 0;
  }
  bundle.cleanup();
  process.exit(failed ? 1 : 0);
}

async function worker() {
  const { e2m1NearestWasm, ue4m3ScalesWasm } = await import(workerData.bundle);
  const d = workerData.d;
  if (d === "ue4m3") return checkUe4m3(ue4m3ScalesWasm);
  const x = new Float32Array(BLOCK);
  const bits = new Uint32Array(x.buffer);
  const scales = new Float32Array(BLOCK / 32).fill(d);
  // MXFP4's layout: per 32 elements one head byte, then element j in the low nibble of byte j, j + 16 in its high one.
  const layout = { width: 32, per: 1, stride: 17, head: 1 };
  const out = new Uint8Array((BLOCK / 32) * 17);
  const candidates = KVALUES.map((k) => Math.fround(k * d));
  serveJobs({}, BLOCK, (start, n, tally) => {
    // Non-finite inputs (the host refuses them) become 0, checked like any other zero; past n, zeros not checked.
    for (let i = 0; i < BLOCK; i++) bits[i] = i >= n || ((start + i) & 0x7f800000) === 0x7f800000 ? 0 : start + i;
    if (!e2m1NearestWasm(x, scales, out, layout)) throw new Error("the kernels are off");
    for (let i = 0; i < n; i++) {
      if (((start + i) & 0x7f800000) === 0x7f800000) continue;
      tally.count++;
      const j = i & 31;
      const byte = out[17 * (i >> 5) + 1 + (j & 15)];
      const got = j < 16 ? byte & 15 : byte >> 4;
      const want = bestIndex(x[i], candidates);
      if (got !== want) mismatch(tally, `0x${(start + i).toString(16).padStart(8, "0")} (${x[i]}): kernel ${got}, ggml ${want}`);
    }
  });
}

/** ggml's best_index_mxfp4(x, d) with the products k·d precomputed in float32. */
function bestIndex(x, candidates) {
  let best = 0;
  let bestErr = Math.fround(Math.abs(candidates[0] - x));
  for (let i = 1; i < 16; i++) {
    const err = Math.fround(Math.abs(candidates[i] - x));
    if (err < bestErr) {
      best = i;
      bestErr = err;
    }
  }
  return best;
}

/** The UE4M3 pass: every finite non-negative float32 amax of each job against the oracle below. */
function checkUe4m3(ue4m3ScalesWasm) {
  const amax = new Float32Array(BLOCK);
  const bits = new Uint32Array(amax.length);
  const view = new Uint32Array(amax.buffer);
  serveJobs({}, BLOCK, (start, length, tally) => {
    let n = 0;
    for (let b = start; b < start + length; b++) if (b < 0x7f800000) bits[n++] = b;
    if (n === 0) return;
    view.set(bits.subarray(0, n));
    const got = ue4m3ScalesWasm(amax.subarray(0, n), 6);
    if (!got) throw new Error("the kernels are off");
    tally.count += n;
    for (let i = 0; i < n; i++) {
      const want = ue4m3(Math.fround(amax[i] / 6));
      if (got[i] !== want) mismatch(tally, `amax 0x${bits[i].toString(16).padStart(8, "0")} (${amax[i]}): kernel ${got[i]}, ggml ${want}`);
    }
  });
}

const ONE = new Float32Array(1);
const ONE_BITS = new Uint32Array(ONE.buffer);

/** ggml_fp32_to_ue4m3 (float32 x ≥ 0): round half up at the top dropped mantissa bit, saturate at 0x7E; subnormals (int)(x · 512 + 0.5f). */
function ue4m3(x) {
  if (!(x > 0)) return 0;
  const y = Math.min(x, 448);
  ONE[0] = y;
  const b = ONE_BITS[0];
  let e = (b >>> 23) - 127 + 7;
  if (e <= 0) return Math.min(7, Math.trunc(Math.fround(y * 512 + 0.5)));
  let m = ((b >>> 20) & 7) + ((b >>> 19) & 1);
  if (m > 7) {
    m = 0;
    e++;
  }
  return e >= 15 ? 0x7e : (e << 3) | m;
}
