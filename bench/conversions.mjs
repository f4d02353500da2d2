// Every checkpoint conversion of the CLI against `cp` (issue #13: each at ≥ 50 % of the speed of cp of the same bytes
// on a warm page cache, files of ≥ 400 MB). Builds in a temporary directory a BF16 model of [4096, 4096] weights and
// a gpt-oss-style one of BF16 expert tensors [E, 2048, 3072] (random values, ~--mb MB each), then times, interleaved
// in each round: quantize --scheme (all seven conventions), dequantize --to bf16 of each result, gguf --type
// f16/q8_0/mxfp4/nvfp4 of the BF16 model, gguf of the ModelOpt NVFP4 / compressed-tensors MXFP4 / gpt-oss results
// (repacked), dequantize of the GGUF files; and cp of each conversion's input and of a file of its output's size.
// Prints medians, the ratios cp / conversion (both sizes) and the CPU seconds. Not part of npm test.
// --threads 1,2 times each conversion with each of those --threads values in the same rounds (default: the CLI's default).
//   npm run build && node bench/conversions.mjs [--mb 420] [--rounds 3] [--only quantize,dequantize,gguf] [--threads 1,2]
import { execFileSync } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { closeSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PRODUCED_SCHEMES } from "minifloat/safetensors";
import { cpuOf } from "./cpu-time.mjs";
import { openWithHeader } from "./safetensors-header.mjs";

const { values: args } = parseArgs({
  options: { mb: { type: "string", default: "420" }, rounds: { type: "string", default: "3" }, only: { type: "string" }, threads: { type: "string" } },
});
const cli = fileURLToPath(new URL("../build/node/cli.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "minifloat-bench-conversions-"));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A safetensors file of BF16 tensors (name → shape), values ~N(0, 0.02²)-like from random bits (no NaN/∞). */
function writeBf16(path, tensors) {
  const header = {};
  let at = 0;
  for (const [name, shape] of tensors) {
    const bytes = 2 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: "BF16", shape, data_offsets: [at, (at += bytes)] };
  }
  const fd = openWithHeader(path, header);
  for (const [, shape] of tensors) {
    const bits = new Uint16Array(shape.reduce((a, b) => a * b, 1));
    randomFillSync(bits);
    // Sign and a mantissa at random, exponents 2^-14 … 2^-4: finite weights of a trained model's range.
    for (let i = 0; i < bits.length; i++) bits[i] = (bits[i] & 0x807f) | ((113 + (bits[i] % 11)) << 7);
    writeSync(fd, new Uint8Array(bits.buffer));
  }
  closeSync(fd);
}

const sizeOf = (path) => (statSync(path).isDirectory() ? readdirSync(path).reduce((s, f) => s + sizeOf(join(path, f)), 0) : statSync(path).size);

try {
  const mb = Number(args.mb);
  const dense = join(dir, "dense");
  const experts = join(dir, "experts");
  execFileSync("mkdir", ["-p", dense, experts]);
  const layers = Math.max(1, Math.round((mb * 1e6) / (2 * 4096 * 4096)));
  writeBf16(
    join(dense, "model.safetensors"),
    Array.from({ length: layers }, (_, l) => [`model.layers.${l}.mlp.down_proj.weight`, [4096, 4096]]),
  );
  writeFileSync(join(dense, "config.json"), JSON.stringify({ architectures: ["LlamaForCausalLM"], torch_dtype: "bfloat16" }));
  const E = Math.max(1, Math.round((mb * 1e6) / (2 * 2048 * 3072)));
  writeBf16(join(experts, "model.safetensors"), [["model.layers.0.mlp.experts.gate_up_proj", [E, 2048, 3072]]]);
  writeFileSync(join(experts, "config.json"), JSON.stringify({ architectures: ["GptOssForCausalLM"], torch_dtype: "bfloat16" }));

  const out = (name) => join(dir, name);
  const schemes = PRODUCED_SCHEMES;
  /** [group, label, input path, output path, argv]: in dependency order (a dequantize reads a quantize's output). */
  const conversions = [
    ...schemes.map((s) => [
      "quantize",
      `quantize --scheme ${s}`,
      s === "gpt-oss-mxfp4" ? experts : dense,
      out(`q-${s}`),
      ["quantize", s === "gpt-oss-mxfp4" ? experts : dense, "--scheme", s],
    ]),
    ...schemes.map((s) => ["dequantize", `dequantize ${s} --to bf16`, out(`q-${s}`), out(`d-${s}`), ["dequantize", out(`q-${s}`), "--to", "bf16"]]),
    ...["f16", "q8_0", "mxfp4", "nvfp4"].map((t) => ["gguf", `gguf --type ${t}`, dense, out(`g-${t}.gguf`), ["gguf", dense, "--type", t]]),
    ...["modelopt-nvfp4", "compressed-tensors-mxfp4", "gpt-oss-mxfp4"].map((s) => [
      "gguf",
      `gguf of ${s} (repacked)`,
      out(`q-${s}`),
      out(`g-${s}.gguf`),
      ["gguf", out(`q-${s}`)],
    ]),
    ...["q8_0", "mxfp4", "nvfp4"].map((t) => [
      "dequantize",
      `dequantize .gguf ${t} --to bf16`,
      out(`g-${t}.gguf`),
      out(`dg-${t}.safetensors`),
      ["dequantize", out(`g-${t}.gguf`), "--to", "bf16"],
    ]),
  ];
  const threads = args.threads ? args.threads.split(",") : [undefined];
  const run = ([, , , output, argv], t) => {
    rmSync(output, { recursive: true, force: true });
    return cpuOf(process.execPath, [cli, ...argv, "-o", output, ...(t ? ["--threads", t] : [])]);
  };
  // Every output once (later conversions read them; --only times a subset), then the page cache warmed with the inputs.
  for (const c of conversions) if (!statSafe(c[3])) run(c);
  const timed = conversions.filter(([group]) => !args.only || args.only.split(",").includes(group));
  for (const c of timed) execFileSync("sh", ["-c", 'cat "$1"/* "$1" > /dev/null 2>&1; true', "sh", c[2]]);

  const copy = join(dir, "copy");
  const cpTime = (path) => {
    execFileSync("sync");
    const t0 = performance.now();
    execFileSync("cp", ["-r", path, copy]);
    const t = (performance.now() - t0) / 1000;
    rmSync(copy, { recursive: true, force: true });
    return t;
  };
  const sizeFile = join(dir, "size");
  const cpSize = (bytes) => {
    if (!statSafe(sizeFile) || statSync(sizeFile).size !== bytes) writeFileSync(sizeFile, Buffer.alloc(bytes, 1));
    return cpTime(sizeFile);
  };
  console.log(`load average at the start ${load()}; ${timed.length} conversions, ${args.rounds} interleaved rounds, medians`);
  const times = timed.map(() => ({ cpIn: [], cpOut: [], runs: threads.map(() => ({ wall: [], cpu: [] })) }));
  for (let r = 0; r < Number(args.rounds); r++) {
    timed.forEach((c, i) => {
      const outBytes = sizeOf(c[3]);
      times[i].cpIn.push(cpTime(c[2]));
      times[i].cpOut.push(cpSize(outBytes));
      threads.forEach((t, j) => {
        execFileSync("sync");
        const t0 = performance.now();
        times[i].runs[j].cpu.push(run(c, t));
        times[i].runs[j].wall.push((performance.now() - t0) / 1000);
      });
    });
  }
  const rows = timed.flatMap((c, i) =>
    threads.map((t, j) => {
      const [wall, cpIn, cpOut] = [median(times[i].runs[j].wall), median(times[i].cpIn), median(times[i].cpOut)];
      const label = t ? `${c[1]} --threads ${t}` : c[1];
      return [label, sizeOf(c[2]) / 1e6, sizeOf(c[3]) / 1e6, wall, median(times[i].runs[j].cpu), cpIn, cpOut, cpIn / wall, cpOut / wall];
    }),
  );
  const head = ["conversion", "in MB", "out MB", "s", "CPU s", "cp in s", "cp out s", "cp in / conv", "cp out / conv"];
  console.log(`\n| ${head.join(" | ")} |\n|${head.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`);
  for (const row of rows)
    console.log(`| ${row.map((v, i) => (i === 0 ? v : i < 3 ? v.toFixed(0) : i < 7 ? v.toFixed(2) : `${(100 * v).toFixed(0)} %`)).join(" | ")} |`);
  console.log(`\nload average at the end ${load()}; target: cp / conversion ≥ 50 %`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function statSafe(path) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
