// Dequantizing a DeepSeek-style FP8 checkpoint against copying it: builds a ≥ 400 MB safetensors file (F8_E4M3
// weights [4096, 4096] with F32 128×128 block scales in weight_scale_inv, config.json beside it) in a temporary
// directory, warms the page cache, then times, interleaved in each round: `cp` of the input, `cp` of a file of the
// output's size (dequantize writes twice the bytes), `cp` + `sync` of it, `minifloat dequantize --to bf16` (atomic,
// not flushed to disk, like cp) and the same with --fsync. Prints medians and the ratios cp / dequantize (the issue's
// target: ≥ 50 %) and cp + sync / dequantize --fsync. Every timed step writes a new file, removed after it untimed
// (replacing an existing output costs its deletion: 0.3-0.5 s for 400 MB of dirty pages, which cp is not charged).
// Usage: npm run build && node bench/checkpoint.mjs [--mb 420] [--rounds 5] [--baseline other/build/node/cli.js]
// (--baseline times another build in the same rounds; not part of npm test)
import { execFileSync } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { closeSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cpuOf } from "./cpu-time.mjs";
import { openWithHeader } from "./safetensors-header.mjs";

const { values: args } = parseArgs({
  options: { mb: { type: "string", default: "420" }, rounds: { type: "string", default: "5" }, baseline: { type: "string" } },
});
const N = 4096;
const K = 4096;
const layers = Math.ceil((Number(args.mb) * 1e6) / (N * K));
const cli = fileURLToPath(new URL("../build/node/cli.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "minifloat-bench-checkpoint-"));
const input = join(dir, "model.safetensors");

try {
  // The header, then each weight's codes (random, the two NaN codes replaced) and its scales.
  const header = {};
  let at = 0;
  const grid = [Math.ceil(N / 128), Math.ceil(K / 128)];
  for (let l = 0; l < layers; l++) {
    const name = `model.layers.${l}.mlp.down_proj`;
    header[`${name}.weight`] = { dtype: "F8_E4M3", shape: [N, K], data_offsets: [at, (at += N * K)] };
    header[`${name}.weight_scale_inv`] = { dtype: "F32", shape: grid, data_offsets: [at, (at += 4 * grid[0] * grid[1])] };
  }
  const fd = openWithHeader(input, header);
  const codes = Buffer.alloc(N * K);
  const scales = new Float32Array(grid[0] * grid[1]);
  for (let l = 0; l < layers; l++) {
    randomFillSync(codes);
    for (let i = 0; i < codes.length; i++) if ((codes[i] & 0x7f) === 0x7f) codes[i] ^= 1;
    for (let i = 0; i < scales.length; i++) scales[i] = Math.fround(1e-4 * (1 + Math.random()));
    writeSync(fd, codes);
    writeSync(fd, new Uint8Array(scales.buffer));
  }
  closeSync(fd);
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ quantization_config: { quant_method: "fp8", fmt: "e4m3", activation_scheme: "dynamic", weight_block_size: [128, 128] } }),
  );
  const size = statSync(input).size;
  readFileSync(input); // warm the page cache

  const seconds = (fn) => {
    const t0 = performance.now();
    fn();
    return (performance.now() - t0) / 1000;
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
  const copy = join(dir, "copy.safetensors");
  const out = join(dir, "out.safetensors");
  const fresh = join(dir, "fresh.safetensors");
  const run =
    (path, ...extra) =>
    (output = fresh) =>
      cpuOf(process.execPath, [path, "dequantize", input, "--to", "bf16", "-o", output, ...extra]);
  const dequantize = run(cli);
  dequantize(out); // the first output: the file `cp + sync` copies (the output's size)
  const outSize = statSync(out).size;
  const outCopy = join(dir, "out-copy.safetensors");
  console.log(`load average at the start ${load()}; ${Number(args.rounds)} interleaved rounds, medians`);
  const times = { cp: [], cpOut: [], cpSync: [], deq: [], deqSync: [], base: [], cpu: [], cpuSync: [], cpuBase: [] };
  // Each step starts with no dirty pages of another one: a copy is removed at once (its pages are dropped, not
  // written back) and `sync` runs between steps, untimed.
  const settled = (fn) => {
    execFileSync("sync");
    const t = seconds(fn);
    for (const f of [copy, outCopy, fresh]) rmSync(f, { force: true });
    return t;
  };
  for (let r = 0; r < Number(args.rounds); r++) {
    times.cp.push(settled(() => execFileSync("cp", [input, copy])));
    times.cpOut.push(settled(() => execFileSync("cp", [out, outCopy])));
    times.cpSync.push(settled(() => execFileSync("sh", ["-c", 'cp "$1" "$2" && sync "$2"', "sh", out, outCopy])));
    times.deq.push(settled(() => times.cpu.push(dequantize())));
    times.deqSync.push(settled(() => times.cpuSync.push(run(cli, "--fsync")())));
    if (args.baseline) times.base.push(settled(() => times.cpuBase.push(run(args.baseline)())));
  }
  const [cp, cpOut, cpSync, deq, deqSync] = [times.cp, times.cpOut, times.cpSync, times.deq, times.deqSync].map(median);
  const mb = size / 1e6;
  const outMb = outSize / 1e6;
  const pct = (x) => `${((100 * x) / deq).toFixed(1)} %`;
  console.log(`input: ${layers} × F8_E4M3 [${N}, ${K}] + F32 scales, ${mb.toFixed(0)} MB (page cache warm); output ${outMb.toFixed(0)} MB BF16`);
  console.log(`cp of the input:              ${cp.toFixed(3)} s  ${(mb / cp).toFixed(0)} MB/s`);
  console.log(`cp of the output's size:      ${cpOut.toFixed(3)} s  ${(outMb / cpOut).toFixed(0)} MB/s`);
  console.log(`cp + sync of the output size: ${cpSync.toFixed(3)} s  ${(outMb / cpSync).toFixed(0)} MB/s`);
  console.log(
    `dequantize --to bf16:         ${deq.toFixed(3)} s  ${(mb / deq).toFixed(0)} MB/s of input (${(outMb / deq).toFixed(0)} MB/s written); CPU ${median(times.cpu).toFixed(2)} s`,
  );
  console.log(`dequantize --to bf16 --fsync: ${deqSync.toFixed(3)} s; CPU ${median(times.cpuSync).toFixed(2)} s`);
  console.log(`ratio cp / dequantize: ${pct(cp)}; cp of the output's size / dequantize: ${pct(cpOut)}`);
  console.log(`ratio cp + sync of the output's size / dequantize --fsync: ${((100 * cpSync) / deqSync).toFixed(1)} %`);
  if (args.baseline) {
    const base = median(times.base);
    console.log(
      `baseline (${args.baseline}): ${base.toFixed(3)} s; CPU ${median(times.cpuBase).toFixed(2)} s; ratios cp / it ${((100 * cp) / base).toFixed(1)} %, cp of the output's size / it ${((100 * cpOut) / base).toFixed(1)} %`,
    );
  }
  console.log(`load average at the end ${load()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
