// The CLI against `cp` of the same file on a warm page cache: F32 → F8_E4M3, BF16 → F8_E4M3 and F8_E4M3 → BF16 of
// ≥ 400 MB inputs (issue target: each conversion at ≥ 50 % of cp's speed, i.e. a ratio cp time / CLI time ≥ 0.5).
// Usage: node bench/cli.mjs [--mb 400] [--rounds 3]   (needs `npm run build`; writes its inputs to a temp dir). Prints
// medians of interleaved rounds: the default run (atomic, not flushed to disk, like cp) against cp of the input, and
// the run with --fsync against cp + sync of a file of the output's size; --baseline other/build/node/cli.js times
// another build in the same rounds.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeSync, closeSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cpuOf } from "./cpu-time.mjs";
import { openWithHeader } from "./safetensors-header.mjs";

const { values: args } = parseArgs({
  options: { mb: { type: "string", default: "400" }, rounds: { type: "string", default: "3" }, baseline: { type: "string" } },
});
const MB = Number(args.mb);
const rounds = Number(args.rounds);
const cli = join(import.meta.dirname, "..", "build", "node", "cli.js");
const dir = mkdtempSync(join(tmpdir(), "minifloat-bench-cli-"));

/** A safetensors file of `bytes` bytes of data in tensors of at most 64 Mi elements, filled by `fill(chunk)`. */
function writeInput(path, dtype, bytesPerElement, bytes, fill) {
  const per = 64 << 20;
  const total = Math.floor(bytes / bytesPerElement);
  const header = {};
  let offset = 0;
  for (let i = 0, left = total; left > 0; i++, left -= per) {
    const n = Math.min(per, left);
    header[`layers.${i}.weight`] = { dtype, shape: [n / 4096, 4096], data_offsets: [offset, offset + n * bytesPerElement] };
    offset += n * bytesPerElement;
  }
  const fd = openWithHeader(path, header);
  const chunk = fill(new Uint8Array(16 << 20));
  for (let done = 0; done < offset; done += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, offset - done));
  closeSync(fd);
}

/** Normal-ish float32 values (sum of uniforms) with a spread of magnitudes. */
function f32Bytes(bytes) {
  const f = new Float32Array(bytes.buffer);
  for (let i = 0; i < f.length; i++) f[i] = (Math.random() + Math.random() + Math.random() - 1.5) * 2 ** ((i % 13) - 6);
  return bytes;
}
const bf16Bytes = (bytes) => {
  const u = new Uint16Array(bytes.buffer);
  const f = f32Bytes(new Uint8Array(bytes.length * 2));
  const w = new Uint32Array(f.buffer);
  for (let i = 0; i < u.length; i++) u[i] = w[i] >>> 16;
  return bytes;
};
const f8Bytes = (bytes) => bytes.map((_, i) => ((i * 37) % 0x7f) | (i & 128));

const inputs = {
  f32: join(dir, "f32.safetensors"),
  bf16: join(dir, "bf16.safetensors"),
  f8: join(dir, "f8.safetensors"),
};
writeInput(inputs.f32, "F32", 4, MB << 20, f32Bytes);
writeInput(inputs.bf16, "BF16", 2, MB << 20, bf16Bytes);
writeInput(inputs.f8, "F8_E4M3", 1, MB << 20, f8Bytes);

const cases = [
  { name: "F32 → F8_E4M3 (quantize --to float8_e4m3fn)", input: inputs.f32, args: ["quantize", "--to", "float8_e4m3fn"] },
  { name: "BF16 → F8_E4M3 (quantize --to float8_e4m3fn)", input: inputs.bf16, args: ["quantize", "--to", "float8_e4m3fn"] },
  { name: "F8_E4M3 → BF16 (dequantize --to bf16)", input: inputs.f8, args: ["dequantize", "--to", "bf16"] },
];

const seconds = (run) => {
  const t = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - t) / 1e9;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}; ${MB} MB inputs; ${rounds} rounds, medians\n`,
);
// Each step starts with no dirty pages of another one (sync between steps, untimed; copies removed at once).
const settled = (fn) => {
  execFileSync("sync");
  const t = seconds(fn);
  rmSync(join(dir, "copy.safetensors"), { force: true });
  return t;
};
for (const c of cases) {
  readFileSync(c.input); // warm the page cache
  const out = join(dir, "out.safetensors");
  const convert = (...extra) => cpuOf(process.execPath, [cli, ...c.args, c.input, "-o", out, "--force", ...extra]);
  convert(); // the first output: the file `cp + sync` copies
  const sample = join(dir, "sample.safetensors");
  execFileSync("cp", [out, sample]);
  const [cp, cpSync, run, runSync, baseline, cpu, cpuSync, cpuBase] = [[], [], [], [], [], [], [], []];
  const base = () => cpuBase.push(cpuOf(process.execPath, [args.baseline, ...c.args, c.input, "-o", out, "--force"]));
  for (let r = 0; r < rounds; r++) {
    cp.push(settled(() => execFileSync("cp", [c.input, join(dir, "copy.safetensors")])));
    cpSync.push(settled(() => execFileSync("sh", ["-c", 'cp "$1" "$2" && sync "$2"', "sh", sample, join(dir, "copy.safetensors")])));
    run.push(settled(() => cpu.push(convert())));
    runSync.push(settled(() => cpuSync.push(convert("--fsync"))));
    if (args.baseline) baseline.push(settled(base));
  }
  rmSync(out);
  rmSync(sample);
  const [a, b, m, ms] = [cp, cpSync, run, runSync].map(median);
  console.log(
    `  ${c.name.padEnd(48)} cp ${a.toFixed(2)} s, minifloat ${m.toFixed(2)} s (CPU ${median(cpu).toFixed(2)} s): ratio ${(a / m).toFixed(2)}; cp + sync of the output's size ${b.toFixed(2)} s, minifloat --fsync ${ms.toFixed(2)} s (CPU ${median(cpuSync).toFixed(2)} s): ratio ${(b / ms).toFixed(2)}`,
  );
  if (args.baseline)
    console.log(
      `  ${"".padEnd(48)} baseline ${median(baseline).toFixed(2)} s (CPU ${median(cpuBase).toFixed(2)} s): ratios to cp ${(a / median(baseline)).toFixed(2)}, to cp + sync ${(b / median(baseline)).toFixed(2)}`,
    );
}
console.log(
  `\nload average at the end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
rmSync(dir, { recursive: true, force: true });
