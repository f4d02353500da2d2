// npm run bench:first-call: the time of the FIRST call of every registered format (one per distinct format, plus the
// Tesla formats that take a bias), each (format, operation) in a fresh Node process after `await initKernels()`:
// everything built lazily on first use (tables, kernel forms, encode constants) is inside the measured call. The
// target (issue #15) is ≤ 5 ms per row; rows above are flagged. Not part of npm test.
//   node bench/first-call.mjs [--n 1024] [--runs 3] [--only float16,bfloat16]
import { execFileSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import * as mf from "minifloat";

const TARGET_MS = 5;
const OPERATIONS = {
  "dequantize→f32": (mf, f, codes) => mf.dequantize(codes, f),
  "dequantize→f16": (mf, f, codes) => mf.dequantize(codes, f, { to: "float16", bits: true }),
  "dequantize→bf16": (mf, f, codes) => mf.dequantize(codes, f, { to: "bfloat16" }),
  "quantize f32": (mf, f, _codes, values) => mf.quantize(values, f),
};

/** Formats format() accepts that registeredNames() leaves out: Tesla formats at one bias each, and P3109 names. */
const EXTRA = [
  ["cfloat8_1_4_3", 7],
  ["cfloat8_1_5_2", 15],
  ["cfloat16_shp", 15],
  ["binary8p3se", undefined],
  ["binary8p4sf", undefined],
  ["binary16p11se", undefined],
  ["binary16p8sf", undefined],
];

/** Formats of about the same code width that warm the library's code before a "warm" cell (the first one ≠ the measured). */
const WARM = [
  [4, ["float4_e2m1fn", "binary4p2se"]],
  [6, ["float6_e2m3fn", "float6_e3m2fn"]],
  [8, ["float8_e5m2", "float8_e4m3"]],
  [16, ["binary16", "bfloat16"]],
];

/** Deterministic inputs for f spread over its code space and over ±2^±20 (no table of the format is built here). */
function inputs(f, n) {
  const codes = new (f.K <= 8 ? Uint8Array : Uint16Array)(n);
  const values = new Float32Array(n);
  for (let i = 0, s = 1; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    codes[i] = s % f.codeCount;
    values[i] = (s & 1 ? -1 : 1) * (s >>> 8) * 2 ** ((s % 41) - 40);
  }
  return { codes, values };
}

/**
 * The child: one first call of one operation on one format, timed after the kernels are ready; with `warm`, after the
 * same operation ran once on another format of about the same width (the library's code compiled, this format's
 * tables, forms and constants still to build).
 */
async function child(name, bias, operation, n, warm) {
  const i0 = performance.now();
  await mf.initKernels();
  const init = performance.now() - i0;
  const f = mf.format(name, bias === undefined ? undefined : { bias });
  if (warm) {
    const other = mf.format(WARM.find(([k]) => f.K <= k)[1].find((w) => mf.format(w) !== f));
    const { codes, values } = inputs(other, n);
    OPERATIONS[operation](mf, other, codes, values);
  }
  const { codes, values } = inputs(f, n);
  const cpu0 = cpuMs();
  const t0 = performance.now();
  OPERATIONS[operation](mf, f, codes, values);
  const ms = performance.now() - t0;
  const cpu = cpuMs() - cpu0;
  process.stdout.write(JSON.stringify({ ms, cpu, init }));
}

/**
 * The process's CPU time (all threads, so V8's compiler threads too): waiting for a CPU that other processes hold is
 * left out, so on a shared machine it bounds from above what the wall time would be on a quiet one.
 */
function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * One entry per distinct format of codes up to 16 bits (binary32/64 have no code tables): the first registered name
 * of each interned Format, then EXTRA.
 */
function formats(only) {
  const seen = new Map();
  for (const name of mf.registeredNames()) {
    const f = mf.format(name);
    if (f.K <= 16 && !seen.has(f)) seen.set(f, [name, undefined]);
  }
  const all = [...seen.values(), ...EXTRA];
  if (!only) return all;
  const named = (name, bias) => mf.format(name, bias === undefined ? undefined : { bias });
  const wanted = new Set(only.map((name) => EXTRA.find(([n]) => n === name.toLowerCase()) ?? [name]).map(([name, bias]) => named(name, bias)));
  return all.filter(([name, bias]) => wanted.has(named(name, bias)));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[(s.length - 1) >> 1];
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") {
  const [, name, bias, operation, n, warm] = argv;
  await child(name, bias === "-" ? undefined : Number(bias), operation, Number(n), warm === "warm");
} else {
  const args = new Map(argv.flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : [])));
  const n = Number(args.get("n") ?? 1024);
  const runs = Number(args.get("runs") ?? 3);
  // Names as format() takes them; a Tesla format that takes a bias at EXTRA's bias.
  const only = args.get("only")?.split(",");
  const self = fileURLToPath(import.meta.url);
  const loadAtStart = loadavg()[0].toFixed(2);
  const ops = Object.keys(OPERATIONS);
  console.log(
    `first call after initKernels(), ${n} elements, median of ${runs} fresh processes (Node ${process.version}): wall ms (process CPU ms) in a fresh process / wall ms after the same operation on another format (library code warm)`,
  );
  console.log(`${"format".padEnd(24)}${ops.map((o) => o.padStart(24)).join("")}`);
  let slow = 0;
  let slowWarm = 0;
  const inits = [];
  for (const [name, bias] of formats(only)) {
    const label = bias === undefined ? name : `${name}(bias=${bias})`;
    const cells = ops.map((op) => {
      // A cell's processes run one after another, so they see about the same machine state.
      const measure = (warm) =>
        Array.from({ length: runs }, () =>
          JSON.parse(
            execFileSync(process.execPath, [self, "--child", name, bias === undefined ? "-" : String(bias), op, String(n), warm], { encoding: "utf8" }),
          ),
        );
      const fresh = measure("fresh");
      inits.push(...fresh.map((t) => t.init));
      const warm = measure("warm");
      const ms = median(fresh.map((t) => t.ms));
      const cpu = median(fresh.map((t) => t.cpu));
      const warmMs = median(warm.map((t) => t.ms));
      if (ms > TARGET_MS) slow++;
      if (warmMs > TARGET_MS) slowWarm++;
      return `${ms.toFixed(1)} (${cpu.toFixed(1)})${ms > TARGET_MS ? "*" : " "} / ${warmMs.toFixed(1)}${warmMs > TARGET_MS ? "*" : " "}`.padStart(24);
    });
    console.log(`${label.padEnd(24)}${cells.join("")}`);
  }
  console.log(
    `\nawait initKernels() in the fresh processes (compiling the kernels and running the bulk paths once): median ${median(inits).toFixed(1)} ms, range ${Math.min(...inits).toFixed(1)}–${Math.max(...inits).toFixed(1)} ms`,
  );
  console.log(
    `* wall time above ${TARGET_MS} ms: ${slow} fresh-process cell(s), ${slowWarm} warm cell(s); load average ${loadAtStart} at start, ${loadavg()[0].toFixed(2)} at end on ${availableParallelism()} CPUs`,
  );
}
