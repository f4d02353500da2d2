// Two builds of the library in one process: zero-copy quantize and dequantize (operands in each build's Wasm memory)
// per format, rounds interleaved, medians; the outputs of both builds are compared byte for byte first. The kernel
// before/after comparison on a shared machine, whose speed drifts by tens of percent within minutes. Not part of
// npm test.
//   npm run build && node bench/builds.mjs --baseline other/build/node/index.js [--n 1048576] [--rounds 9]
//     [--quantize float16,float8_e4m3fn] [--dequantize float16]
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { logUniform } from "./values.mjs";

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1] ?? ""]] : [])));
if (!args.has("baseline")) throw new Error("--baseline <path to another build's build/node/index.js> is required");
const N = Number(args.get("n") ?? 1 << 20);
const ROUNDS = Number(args.get("rounds") ?? 9);
const SAMPLE_MS = 150;
const QUANTIZE = (args.get("quantize") ?? "float16,float8_e4m3fn,float8_e5m2,float4_e2m1fn,Binary16p11se,Binary8p3se").split(",").filter(Boolean);
const DEQUANTIZE = (args.get("dequantize") ?? "float16,cfloat16_uhp").split(",").filter(Boolean);

const libs = [await import(pathToFileURL(resolve(args.get("baseline"))).href), await import("minifloat")];

/** Float32 values log-uniform over [MaxFinite·2^−16, MaxFinite], both signs (bench/run.mjs's distribution). */
function values(mf, f) {
  return logUniform(Math.abs(mf.decode(f.maxFiniteCode, f)), N);
}

/** Uniform codes over the whole code range. */
function codes(f, into) {
  let s = 7;
  for (let i = 0; i < N; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    into[i] = (s >>> 16) % f.codeCount;
  }
}

const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function compare(op, name, make) {
  const sides = libs.map(make);
  for (const s of sides) s.run();
  const [a, b] = sides.map((s) => bytesOf(s.out()));
  let differ = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differ++;
  const rates = sides.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    sides.forEach((s, k) => {
      let calls = 0;
      const start = performance.now();
      do {
        s.run();
        calls++;
      } while (performance.now() - start < SAMPLE_MS);
      rates[k].push((calls * N) / (performance.now() - start) / 1e3);
    });
  }
  for (const s of sides) s.free();
  const [before, after] = rates.map((v) => v.sort((x, y) => x - y)[Math.floor(v.length / 2)]);
  console.log(
    `${`${op} ${name}`.padEnd(34)} baseline ${before.toFixed(0).padStart(6)}  this build ${after.toFixed(0).padStart(6)} M/s  ×${(after / before).toFixed(2)}${differ ? `  OUTPUTS DIFFER in ${differ} bytes` : ""}`,
  );
}

console.log(
  `${N} elements, zero-copy, medians of ${ROUNDS} rounds; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
for (const name of QUANTIZE) {
  compare("quantize", name, (mf) => {
    const f = mf.format(name);
    const src = mf.allocFloat32(N);
    src.array.set(values(mf, f));
    const dst = mf.allocCodes(f, N);
    return { run: () => mf.quantize(src.array, f, { out: dst.array }), out: () => dst.array, free: () => (src.free(), dst.free()) };
  });
}
for (const name of DEQUANTIZE) {
  compare("dequantize", name, (mf) => {
    const f = mf.format(name);
    const src = mf.allocCodes(f, N);
    codes(f, src.array);
    const dst = mf.allocFloat32(N);
    return { run: () => mf.dequantize(src.array, f, { out: dst.array }), out: () => dst.array, free: () => (src.free(), dst.free()) };
  });
}
console.log(
  `load average at the end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
