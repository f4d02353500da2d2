// npm run bench:ml_dtypes — minifloat next to ml_dtypes 0.6.0 in one run: every ml_dtypes float dtype, both
// directions (f32 → codes, codes → f32), from ordinary JS arrays and zero-copy in Wasm memory, at 1M and 16M
// elements; interleaved rounds (ml_dtypes, then minifloat, per round), medians. Prints the table with the ratios,
// writes it into docs/performance.md (between its ml_dtypes markers) and docs/ml_dtypes-ratios.svg. A probe bounds
// each zero-copy row: a Wasm kernel that only reads the input's bytes and writes the output's (no arithmetic), so a
// row can be read against what its bytes allow; a copy probe bounds each JS-array row: the copies into and out of
// Wasm memory that the library makes for JS arrays (64K-element chunks through a scratch region), with no kernel.
// Needs Python 3 with NumPy and ml_dtypes 0.6.0 (python3 -m venv .venv && .venv/bin/pip install ml_dtypes==0.6.0;
// MINIFLOAT_PYTHON names another interpreter); without them it says so and prints minifloat's rates alone.
//   node bench/ml-dtypes.mjs [--sizes 1048576,16777216] [--rounds 7] [--only float8_e4m3fn,bfloat16] [--no-write]
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import * as mf from "minifloat";
import { compileProbes } from "./compile-probes.mjs";
import { probeInstance } from "./probes.mjs";
import { logUniform } from "./values.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1] ?? ""]] : [])));
const SIZES = (args.get("sizes") ?? "1048576,16777216").split(",").map(Number);
const ROUNDS = Number(args.get("rounds") ?? 7);
const SAMPLE_MS = 15;
const DTYPES = [
  "float8_e4m3fn",
  "float8_e5m2",
  "float8_e4m3fnuz",
  "float8_e5m2fnuz",
  "float8_e4m3b11fnuz",
  "float8_e3m4",
  "float8_e4m3",
  "float8_e8m0fnu",
  "float6_e2m3fn",
  "float6_e3m2fn",
  "float4_e2m1fn",
  "bfloat16",
  "float16",
].filter((d) => !args.has("only") || args.get("only").split(",").includes(d));

/** The ml_dtypes timing server, or undefined (with the reason printed) when Python, NumPy or ml_dtypes is missing. */
async function startPython() {
  const candidates = [process.env.MINIFLOAT_PYTHON, join(root, ".venv/bin/python"), "python3"].filter(Boolean);
  const python = candidates.find((p) => !p.includes("/") || existsSync(p));
  const probe = spawnSync(python, ["-c", "import ml_dtypes, numpy; print(ml_dtypes.__version__)"], { encoding: "utf8" });
  if (probe.status !== 0) {
    console.log(`ml_dtypes is not available to ${python} (${(probe.stderr || probe.error?.message || "").trim().split("\n").at(-1)}):`);
    console.log("  python3 -m venv .venv && .venv/bin/pip install ml_dtypes==0.6.0   (or set MINIFLOAT_PYTHON); printing minifloat alone.\n");
    return undefined;
  }
  const child = spawn(python, [join(root, "bench/ml_dtypes_server.py")], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value);
  const hello = await next();
  return {
    version: hello.ml_dtypes,
    numpy: hello.numpy,
    async time(dtype, direction, n) {
      child.stdin.write(`${JSON.stringify({ dtype, direction, n, ms: SAMPLE_MS })}\n`);
      return (await next()).seconds;
    },
    close: () => child.stdin.end(),
  };
}

const probeBinary = compileProbes();

/** The memory probe of a case moving n elements of `from` bytes into `to` bytes, on a Wasm memory of its own. */
function probe(n, from, to) {
  const k = probeInstance(probeBinary, (from + to) * n + 65536);
  const move = k[`move${from}${to}`];
  return () => move(65536, 65536 + from * n, n);
}

/** Seconds per call of `run`, repeated until SAMPLE_MS has passed (after one warm call). */
function timeJs(run) {
  run();
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    run();
    calls++;
    elapsed = performance.now() - start;
  } while (elapsed < SAMPLE_MS);
  return elapsed / 1000 / calls;
}

/** Values spread over the format's range, both signs, log-uniform: the same distribution the Python side draws. */
function values(f, n) {
  return logUniform(Math.abs(mf.decode(f.maxFiniteCode, f)), n);
}

/**
 * The copy probe of a JS-array row: input chunks of 64K elements copied into a scratch region in Wasm memory and the
 * output's chunks copied out of it (what the library's streaming does around its kernels), no kernel in between.
 */
function copies(input, output) {
  const chunk = 65536;
  const inBytes = input.BYTES_PER_ELEMENT * chunk;
  const outBytes = output.BYTES_PER_ELEMENT * chunk;
  const scratch = mf.allocBytes(inBytes + outBytes);
  const src = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const dst = new Uint8Array(output.buffer, output.byteOffset, output.byteLength);
  return {
    run: () => {
      const s = scratch.array;
      for (let i = 0, o = 0; i < src.length; i += inBytes, o += outBytes) {
        s.set(src.subarray(i, i + inBytes));
        dst.set(s.subarray(inBytes, inBytes + Math.min(outBytes, dst.length - o)), o);
      }
    },
    free: () => scratch.free(),
  };
}

/** minifloat's two paths for one case: from JS arrays and zero-copy (operands in Wasm memory). */
function cases(dtype, direction, n) {
  const f = mf.format(dtype);
  const x = values(f, n);
  const codes = mf.quantize(x, f);
  if (direction === "encode") {
    const out = new codes.constructor(n);
    const src = mf.allocFloat32(n);
    const dst = mf.allocCodes(f, n);
    src.array.set(x);
    const copy = copies(x, out);
    return {
      js: () => mf.quantize(x, f, { out }),
      zero: () => mf.quantize(src.array, f, { out: dst.array }),
      probe: probe(n, 4, codes.BYTES_PER_ELEMENT),
      copies: copy.run,
      free: () => (src.free(), dst.free(), copy.free()),
    };
  }
  const out = new Float32Array(n);
  const src = mf.allocCodes(f, n);
  const dst = mf.allocFloat32(n);
  src.array.set(codes);
  const copy = copies(codes, out);
  return {
    js: () => mf.dequantize(codes, f, { out }),
    zero: () => mf.dequantize(src.array, f, { out: dst.array }),
    probe: probe(n, codes.BYTES_PER_ELEMENT, 4),
    copies: copy.run,
    free: () => (src.free(), dst.free(), copy.free()),
  };
}

const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const rate = (n, s) => n / s / 1e6;

const python = await startPython();
const load = loadavg()[0].toFixed(2);
const rows = [];
for (const n of SIZES) {
  for (const dtype of DTYPES) {
    for (const direction of ["encode", "decode"]) {
      const c = cases(dtype, direction, n);
      const t = { ml: [], js: [], zero: [], memory: [], copies: [] };
      for (let r = 0; r < ROUNDS; r++) {
        if (python) t.ml.push(await python.time(dtype, direction, n));
        t.js.push(timeJs(c.js));
        t.zero.push(timeJs(c.zero));
        t.memory.push(timeJs(c.probe));
        t.copies.push(timeJs(c.copies));
      }
      c.free();
      const [js, zero, memory, copied] = [t.js, t.zero, t.memory, t.copies].map((ts) => rate(n, median(ts)));
      const row = { n, dtype, direction, ml: python ? rate(n, median(t.ml)) : undefined, js, zero, memory, copies: copied };
      rows.push(row);
      const ratio = row.ml ? `  ×${(row.js / row.ml).toFixed(1)} / ×${(row.zero / row.ml).toFixed(1)}` : "";
      console.log(
        `${String(n).padStart(9)} ${dtype.padEnd(19)} ${direction === "encode" ? "f32 → codes" : "codes → f32"}  ml_dtypes ${row.ml?.toFixed(0) ?? "-"}  JS ${js.toFixed(0)} (copies ${copied.toFixed(0)})  zero-copy ${zero.toFixed(0)} (memory ${memory.toFixed(0)}) M/s${ratio}`,
      );
    }
  }
}
python?.close();

const machine = `${cpus().length}× ${cpus()[0]?.model.trim()}, Node ${process.versions.node}`;
const header = `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine}, 1-minute load average ${load} at the start; ${python ? `ml_dtypes ${python.version}, NumPy ${python.numpy}` : "ml_dtypes not available"}; median of ${ROUNDS} interleaved rounds; M elements/s.`;
const table = [
  "| elements | dtype | direction | ml_dtypes | minifloat, JS arrays | minifloat, zero-copy | ratio (JS / zero-copy) | copy probe | JS / copies | memory probe | zero-copy / probe |",
  "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.n >= 1 << 20 ? `${r.n >> 20}M` : r.n} | ${r.dtype} | ${r.direction === "encode" ? "f32 → codes" : "codes → f32"} | ${r.ml?.toFixed(0) ?? "—"} | ${r.js.toFixed(0)} | ${r.zero.toFixed(0)} | ${r.ml ? `${(r.js / r.ml).toFixed(1)}× / ${(r.zero / r.ml).toFixed(1)}×` : "—"} | ${r.copies.toFixed(0)} | ${((100 * r.js) / r.copies).toFixed(0)} % | ${r.memory.toFixed(0)} | ${((100 * r.zero) / r.memory).toFixed(0)} % |`,
  ),
].join("\n");
console.log(`\n${header}\n\n${table}`);

if (python && !args.has("no-write")) {
  const docs = join(root, "docs/performance.md");
  const start = "<!-- bench:ml_dtypes:start -->";
  const end = "<!-- bench:ml_dtypes:end -->";
  const text = existsSync(docs) ? readFileSync(docs, "utf8") : "# Performance\n";
  // The block keeps this run and the one before it (the issue asks for two runs side by side), newest first.
  const previous = text.match(new RegExp(`${start}\\n### Run 1\\n\\n([\\s\\S]*?)\\n\\n(?:### Run 2|!\\[)`))?.[1];
  const block = [
    start,
    "### Run 1",
    "",
    `${header}\n\n${table}`,
    ...(previous ? ["", "### Run 2 (the run before)", "", previous] : []),
    "",
    "![minifloat / ml_dtypes ratios, run 1](ml_dtypes-ratios.svg)",
    end,
  ].join("\n");
  writeFileSync(
    docs,
    text.includes(start) ? text.replace(new RegExp(`${start}[\\s\\S]*?${end}`), block) : `${text.trimEnd()}\n\n## minifloat next to ml_dtypes\n\n${block}\n`,
  );
  // Aligned by the formatter `npm run lint` checks, so a committed run passes the lint as it is.
  spawnSync(process.execPath, [join(root, "node_modules/@biomejs/biome/bin/biome"), "format", "--write", docs], { stdio: "ignore" });
  writeFileSync(join(root, "docs/ml_dtypes-ratios.svg"), chart(rows.filter((r) => r.n === Math.max(...SIZES))));
  console.log(`\nwrote docs/performance.md and docs/ml_dtypes-ratios.svg`);
}

/** A horizontal bar chart of the JS-array ratios (log scale), one bar per dtype and direction, 1× marked. */
function chart(data) {
  const bar = 14;
  const left = 250;
  const width = 760;
  const scale = (v) => ((Math.log10(Math.max(v, 0.1)) + 1) / 3) * (width - left - 40); // 0.1× … 100×
  const height = 40 + data.length * (bar + 6);
  const parts = data.map((r, i) => {
    const y = 30 + i * (bar + 6);
    const ratio = r.js / r.ml;
    const label = `${r.dtype} ${r.direction === "encode" ? "f32→codes" : "codes→f32"}`;
    return `<text x="${left - 6}" y="${y + bar - 3}" text-anchor="end">${label}</text><rect x="${left}" y="${y}" width="${scale(ratio).toFixed(1)}" height="${bar}" fill="${ratio >= 1 ? "#3a7" : "#c54"}"/><text x="${left + scale(ratio) + 4}" y="${y + bar - 3}">${ratio.toFixed(1)}×</text>`;
  });
  const one = left + scale(1);
  const title = `minifloat (from JS arrays) / ml_dtypes, ${data[0]?.n >> 20}M elements, log scale`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">
<title>${title}</title>
<text x="${left}" y="16">${title}</text>
${parts.join("\n")}
<line x1="${one}" y1="24" x2="${one}" y2="${height - 8}" stroke="#333" stroke-dasharray="3,3"/>
</svg>
`;
}
