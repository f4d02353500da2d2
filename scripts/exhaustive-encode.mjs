// Exhaustive check of the Wasm encode kernel: every float32 bit pattern (or a hex range of them) through the kernel,
// against an independent oracle: the sorted value table of the format (magnitude codes 0…MaxFinite + 1, checked
// against the exact core's decodeExact), rounding by comparison with lower/upper neighbours and their exact float64
// midpoint, overflow as "past MaxFinite". Only the code of each ωSaturate outcome (overflow, below MinFinite, ±0,
// ±∞, NaN by sign and kept payload) comes from the exact core's project(), once per outcome.
//
// usage: npm run check:exhaustive -- <format> [rounding saturation] [--bias B] [--from 0xHEX] [--to 0xHEX] [--workers W]
//   [--simd relaxed|baseline]
// (deterministic roundings; run `npm run build` first — the kernel is read from build/wasm). The kernels build is the
// one the library picks (relaxed SIMD where the engine has it), or the one --simd names: relaxed restarts Node 20
// with --experimental-wasm-relaxed-simd, baseline sets MINIFLOAT_SIMD=baseline.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, workerData } from "node:worker_threads";
import { spawnSync } from "node:child_process";
import { bundleForWorkers, mismatch, serveJobs, sweep } from "./exhaustive-pool.mjs";

const BLOCK = 2 ** 22; // bit patterns per kernel call
const JOB = 2 ** 26; // bit patterns per job handed to a worker

if (isMainThread) await main();
else await worker();

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    if (i < 0) return fallback;
    const value = args[i + 1];
    args.splice(i, 2);
    return value;
  };
  const bias = option("bias");
  const from = Number(option("from", "0"));
  const to = Number(option("to", "0x100000000"));
  const workers = Number(option("workers", String(Math.min(2, availableParallelism()))));
  const simd = option("simd");
  const relaxedFlag = "--experimental-wasm-relaxed-simd";
  if (simd === "relaxed" && !process.execArgv.includes(relaxedFlag)) {
    // V8 flags are per process (worker threads share them): a fresh Node with the flag runs the check.
    const child = spawnSync(process.execPath, [relaxedFlag, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      stdio: "inherit",
    });
    process.exit(child.status ?? 1);
  }
  if (simd === "baseline") process.env.MINIFLOAT_SIMD = "baseline";
  else if (simd !== undefined && simd !== "relaxed") {
    console.error(`--simd: is ${simd}; allowed: relaxed, baseline`);
    process.exit(2);
  }
  const [name, rounding, saturation] = args;
  if (!name || (rounding === undefined) !== (saturation === undefined) || !(from >= 0 && to <= 2 ** 32 && from < to)) {
    console.error("usage: npm run check:exhaustive -- <format> [rounding saturation] [--bias B] [--from 0xHEX] [--to 0xHEX] [--workers W]");
    process.exit(2);
  }
  // The exact core and the kernel wrapper, bundled once from src/ for the workers.
  const bundle = await bundleForWorkers(`export { format } from "./src/format/registry.ts";
        export { project } from "./src/exact/cast.ts";
        export { decodeExact } from "./src/exact/decode.ts";
        export { resolveProjection } from "./src/exact/projection.ts";
        export { fromFloat32Bits, toNumberExact, finite } from "./src/exact/value.ts";
        export { quantizeWasm } from "./src/wasm/encode.ts";
        export { kernelStatus } from "./src/wasm/instance.ts";`);
  const config = { bundle: bundle.url, name, rounding, saturation, bias: bias === undefined ? undefined : Number(bias) };
  const started = performance.now();
  let announced = false;
  const { checked, mismatches, shown } = await sweep({
    script: fileURLToPath(import.meta.url),
    workerData: config,
    workers,
    from,
    to,
    job: JOB,
    show: 20,
    onReady: (m) => {
      if (!announced) console.log(`${m.format} ${m.projection}, ${m.tier} kernels build`);
      announced = true;
      if (simd !== undefined && m.tier !== simd) throw new Error(`--simd ${simd}: the engine loaded the ${m.tier} build`);
    },
    onProgress: (t) => {
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(`\r${((t.checked / 2 ** 32) * 100).toFixed(1)} % of 2^32 checked, ${t.mismatches} mismatches, ${seconds.toFixed(0)} s   `);
    },
  });
  bundle.cleanup();
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\n${checked} bit patterns [0x${from.toString(16)}, 0x${to.toString(16)}) in ${seconds.toFixed(1)} s on ${workers} workers: ${mismatches} mismatches`,
  );
  for (const line of shown) console.log(`  ${line}`);
  process.exit(mismatches === 0 ? 0 : 1);
}

async function worker() {
  const core = await import(workerData.bundle);
  const f = core.format(workerData.name, workerData.bias === undefined ? undefined : { bias: workerData.bias });
  const options = workerData.rounding === undefined ? undefined : { rounding: workerData.rounding, saturation: workerData.saturation };
  const rho = core.resolveProjection(f, options);
  if (rho.stochasticBits > 0) throw new Error("the exhaustive check covers the deterministic roundings");
  const oracle = makeOracle(core, f, rho);
  const src = new Float32Array(BLOCK);
  const bits = new Uint32Array(src.buffer);
  const out = f.K <= 8 ? new Uint8Array(BLOCK) : new Uint16Array(BLOCK);
  const ready = {
    tier: core.kernelStatus().tier,
    format: f.name,
    projection: `${rho.rounding}/${rho.saturation}${rho.vendor === "none" ? "" : `/${rho.vendor}`}`,
  };
  serveJobs(ready, BLOCK, (start, n, tally) => {
    for (let i = 0; i < n; i++) bits[i] = start + i;
    const codes = core.quantizeWasm(n === BLOCK ? src : src.subarray(0, n), f, rho, n === BLOCK ? out : out.subarray(0, n), undefined);
    if (!codes) throw new Error(`the kernel does not support ${f.name} ${rho.rounding}/${rho.saturation}`);
    tally.count += n;
    for (let i = 0; i < n; i++) {
      const want = oracle(start + i);
      if (codes[i] !== want) mismatch(tally, `0x${(start + i).toString(16).padStart(8, "0")}: kernel ${codes[i]}, oracle ${want}`);
    }
  });
}

/**
 * The oracle: code of float32 bit pattern b. Magnitudes are looked up in the ascending table V[c] of magnitude codes
 * c = 0…MaxFinite + 1 (the last is the first value past MaxFinite, exponent unbounded); a pointer follows ascending
 * magnitudes, so a sequential sweep costs O(1) per pattern.
 */
function makeOracle(core, f, rho) {
  const P = f.P;
  const max = f.maxFiniteMagnitude;
  const half = 2 ** (P - 1);
  // V[c] from the code layout (P3109 §1.5 integer form), float64 (±∞/0 past its range: never a float32 neighbour).
  const V = new Float64Array(max + 2);
  for (let c = 0; c <= max + 1; c++) {
    const E = Math.floor(c / half);
    const T = c % half;
    const significand = f.zero && E === 0 ? T : half + T;
    const exponent = (f.zero ? Math.max(E, 1) : E) - f.bias - (P - 1);
    V[c] = significand * 2 ** exponent;
  }
  for (let c = 0; c <= max; c++) {
    // The table agrees with the exact core wherever the core has the value (flushed subnormals decode to 0).
    if (f.subnormals === "flush" && c > 0 && c < half) continue;
    const v = core.toNumberExact(core.decodeExact(c, f));
    if (v !== undefined && v !== V[c] && Number.isFinite(V[c]) && V[c] !== 0) throw new Error(`value table: code ${c} is ${v}, table ${V[c]}`);
  }
  const mode = rho.vendor === "ml_dtypes_e8m0" ? "vendor" : rho.rounding;
  const outcomes = new Map();
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  // The code of a ωSaturate/ωEncode outcome, from the exact core on the first input that reaches it.
  const outcome = (key, b) => {
    let code = outcomes.get(key);
    if (code === undefined) {
      code = core.project(core.fromFloat32Bits(b), f, rho, 0);
      outcomes.set(key, code);
    }
    return code;
  };
  let p = 0;
  return (b) => {
    const negative = b >= 2 ** 31;
    const a = negative ? b - 2 ** 31 : b;
    if (a >= 0x7f800000) {
      // ±∞, and NaN with the payload bits a format may keep (numpy float16: the top P − 1).
      const key = a === 0x7f800000 ? `inf${negative}` : `nan${negative}/${(a & 0x7fffff) >>> (24 - P)}`;
      return outcome(key, b);
    }
    if (a === 0) return outcome(`zero-input${negative}`, b);
    // ml_dtypes' E8M0 cast treats float32 subnormals specially: ask the core for those.
    if (mode === "vendor" && a < 0x800000) return core.project(core.fromFloat32Bits(b), f, rho, 0);
    u32[0] = a;
    const x = f32[0];
    if (x >= V[max + 1]) return overflow(negative, b);
    // Move the pointer to the largest c with V[c] ≤ x (−1: below V[0] in a format without zero).
    if (p > 0 && V[p] > x) p = 0;
    if (p < 0) p = 0;
    while (p <= max && V[p + 1] <= x) p++;
    if (V[p] > x) p = -1;
    const lo = p < 0 ? 0 : V[p];
    let m;
    if (lo === x) m = p;
    else {
      const hi = V[p + 1];
      const mid = (lo + hi) / 2;
      const loEven = p < 0 || p % 2 === 0;
      let up;
      switch (mode) {
        case "NearestTiesToEven":
          up = x > mid || (x === mid && !loEven);
          break;
        case "NearestTiesToAway":
        case "vendor":
          up = x >= mid;
          break;
        case "TowardZero":
          up = false;
          break;
        case "TowardPositive":
          up = !negative;
          break;
        case "TowardNegative":
          up = negative;
          break;
        case "TowardMaxMagnitude":
          up = true;
          break;
        case "ToOdd":
          up = loEven;
          break;
        default:
          throw new Error(`rounding ${mode} is not covered`);
      }
      m = up ? p + 1 : p;
    }
    if (m > max) return overflow(negative, b);
    if (f.subnormals === "flush" && m > 0 && m < half) m = 0;
    const zeroResult = m < 0 || (f.zero && m === 0);
    if (zeroResult) return f.zero ? outcome(`zero${negative}`, b) : outcome(`below${negative}`, b);
    if (!negative) return m;
    return f.signed ? m + f.signBit : outcome("below-true", b);
  };

  function overflow(negative, b) {
    return outcome(negative ? "below-true" : "above", b);
  }
}
