// Dequantizing a DeepSeek-style FP8 checkpoint against copying it: builds a ≥ 400 MB safetensors file (F8_E4M3
// weights [4096, 4096] with F32 128×128 block scales in weight_scale_inv, config.json beside it) in a temporary
// directory, warms the page cache, then times `cp` of the file and `minifloat dequantize --to bf16` (which writes
// twice the bytes), best of the rounds, and prints the ratio cp / dequantize (the target: ≥ 50 %).
// Usage: npm run build && node bench/checkpoint.mjs [--mb 420] [--rounds 3]   (not part of npm test)
import { execFileSync } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({ options: { mb: { type: "string", default: "420" }, rounds: { type: "string", default: "3" } } });
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
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const fd = openSync(input, "w");
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  writeSync(fd, length);
  writeSync(fd, json);
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

  const time = (fn) => {
    let best = Infinity;
    for (let r = 0; r < Number(args.rounds); r++) {
      const t0 = performance.now();
      fn();
      best = Math.min(best, (performance.now() - t0) / 1000);
    }
    return best;
  };
  const copy = join(dir, "copy.safetensors");
  const out = join(dir, "out.safetensors");
  const cp = time(() => {
    rmSync(copy, { force: true });
    execFileSync("cp", [input, copy]);
  });
  const deq = time(() => {
    rmSync(out, { force: true });
    execFileSync(process.execPath, [cli, "dequantize", input, "--to", "bf16", "-o", out], { stdio: ["ignore", "ignore", "ignore"] });
  });
  const mb = size / 1e6;
  console.log(`input: ${layers} × F8_E4M3 [${N}, ${K}] + F32 scales, ${mb.toFixed(0)} MB (page cache warm)`);
  console.log(`cp:                    ${cp.toFixed(3)} s  ${(mb / cp).toFixed(0)} MB/s of input`);
  console.log(`dequantize --to bf16:  ${deq.toFixed(3)} s  ${(mb / deq).toFixed(0)} MB/s of input (${((2 * mb) / deq).toFixed(0)} MB/s written)`);
  console.log(`ratio cp / dequantize: ${((100 * cp) / deq).toFixed(1)} %`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
