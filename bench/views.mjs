// npm run bench:views: what MiniFloatArray costs. Per-element get/set and iteration against plain typed arrays,
// and bulk conversion through a view against the functional API (JS arrays and Wasm arrays). Median of
// interleaved rounds; not part of npm test.
//   node bench/views.mjs [--sizes 65536,1048576] [--rounds 7] [--format float8_e4m3fn]
import { MiniFloatArray, allocCodes, allocFloat32, decode, dequantize, format, kernelStatus, quantize } from "minifloat";
import { logUniform } from "./values.mjs";

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : [])));
const SIZES = (args.get("sizes") ?? "65536,1048576").split(",").map(Number);
const ROUNDS = Number(args.get("rounds") ?? 7);
const FORMAT = format(args.get("format") ?? "float8_e4m3fn");
/** Each sample repeats its operation until it took this long. */
const SAMPLE_MS = 20;

function values(n) {
  return logUniform(decode(FORMAT.maxFiniteCode, FORMAT), n, 512);
}

/** Nanoseconds per element of one sample of `run` (which handles `n` elements per call). */
function sample(run, n) {
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    run();
    calls++;
    elapsed = performance.now() - start;
  } while (elapsed < SAMPLE_MS);
  return (elapsed * 1e6) / (calls * n);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Cases of one size: [group, name, elements per call, run]. The setup's arrays are freed after the rounds. */
function cases(n) {
  const x = values(n);
  const view = MiniFloatArray.from(x, FORMAT);
  const codes = quantize(x, FORMAT);
  const table = new Float64Array(FORMAT.codeCount).map((_, c) => decode(c, FORMAT));
  const f32 = dequantize(codes, FORMAT);
  const input = allocFloat32(n);
  input.array.set(x);
  const wasmCodes = allocCodes(FORMAT, n);
  const wasmOut = allocFloat32(n);
  const out = new Float32Array(n);
  const small = Math.min(n, 4096);
  let sink = 0;
  const list = [
    [
      "element",
      "view.get(i)",
      n,
      () => {
        let s = 0;
        for (let i = 0; i < n; i++) s += view.get(i);
        sink += s;
      },
    ],
    [
      "element",
      "table[codes[i]] (plain arrays)",
      n,
      () => {
        let s = 0;
        for (let i = 0; i < n; i++) s += table[codes[i]];
        sink += s;
      },
    ],
    [
      "element",
      "Float32Array[i]",
      n,
      () => {
        let s = 0;
        for (let i = 0; i < n; i++) s += f32[i];
        sink += s;
      },
    ],
    [
      "element",
      "for (const v of view)",
      n,
      () => {
        let s = 0;
        for (const v of view) s += v;
        sink += s;
      },
    ],
    [
      "element",
      `view.set(i, v) (${small} per call)`,
      small,
      () => {
        for (let i = 0; i < small; i++) view.set(i, x[i]);
      },
    ],
    ["element", `codes[i] = encode(v) via quantize (${small})`, small, () => quantize(x.subarray(0, small), FORMAT, { out: codes.subarray(0, small) })],
    ["quantize", "MiniFloatArray.from(Float32Array) + free", n, () => MiniFloatArray.from(x, FORMAT).free()],
    ["quantize", "view.quantizeFrom(Float32Array)", n, () => view.quantizeFrom(x)],
    ["quantize", "view.quantizeFrom(allocFloat32 handle) [zero copy]", n, () => view.quantizeFrom(input)],
    ["quantize", "quantize(Float32Array, { out: Uint8Array })", n, () => quantize(x, FORMAT, { out: codes })],
    ["quantize", "quantize(wasm f32, { out: wasm codes }) [zero copy]", n, () => quantize(input.array, FORMAT, { out: wasmCodes.array })],
    ["dequantize", "view.toFloat32Array(out)", n, () => view.toFloat32Array(out)],
    ["dequantize", "view.toFloat32Array(wasm out) [zero copy]", n, () => view.toFloat32Array(wasmOut.array)],
    ["dequantize", "dequantize(Uint8Array, { out })", n, () => dequantize(codes, FORMAT, { out })],
    ["dequantize", "dequantize(wasm codes, { out: wasm }) [zero copy]", n, () => dequantize(wasmCodes.array, FORMAT, { out: wasmOut.array })],
  ];
  // The element loops add into sink; reporting it keeps the engine from dropping their work.
  return { list, free: () => [view, input, wasmCodes, wasmOut].forEach((a) => a.free()), sink: () => sink };
}

console.log(`MiniFloatArray<${FORMAT.name}> — kernels ${kernelStatus().available ? "on" : "off"}, median of ${ROUNDS} rounds, ns per element (M elements/s)`);
for (const n of SIZES) {
  const { list, free, sink } = cases(n);
  const times = list.map(() => []);
  for (const [, , , run] of list) run(); // warm-up: compile every path before timing
  for (let r = 0; r < ROUNDS; r++) list.forEach(([, , count, run], i) => times[i].push(sample(run, count)));
  console.log(`\nn = ${n}`);
  let group = "";
  list.forEach(([g, name], i) => {
    if (g !== group) console.log(`  ${(group = g)}`);
    const ns = median(times[i]);
    console.log(`    ${name.padEnd(56)} ${ns.toFixed(2).padStart(9)} ns  ${(1e3 / ns).toFixed(1).padStart(8)} M/s`);
  });
  console.log(`  (checksum of the element reads: ${sink()})`);
  free();
}
