// The CLI against `cp` of the same file on a warm page cache: F32 → F8_E4M3, BF16 → F8_E4M3 and F8_E4M3 → BF16 of
// ≥ 400 MB inputs (issue target: each conversion at ≥ 50 % of cp's speed, i.e. a ratio cp time / CLI time ≥ 0.5).
// Usage: node bench/cli.mjs [--mb 400] [--rounds 3]   (needs `npm run build`; writes its inputs to a temp dir)
import { execFileSync } from "node:child_process";
import { mkdtempSync, openSync, rmSync, writeSync, closeSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({ options: { mb: { type: "string", default: "400" }, rounds: { type: "string", default: "3" } } });
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
  let json = JSON.stringify(header);
  json += " ".repeat((8 - ((8 + json.length) % 8)) % 8);
  const fd = openSync(path, "w");
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(json.length));
  writeSync(fd, head);
  writeSync(fd, Buffer.from(json));
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
const rows = [];
for (const c of cases) {
  readFileSync(c.input); // warm the page cache
  const cp = [];
  const run = [];
  for (let r = 0; r < rounds; r++) {
    const out = join(dir, "out.safetensors");
    cp.push(seconds(() => execFileSync("cp", [c.input, join(dir, "copy.safetensors")])));
    rmSync(join(dir, "copy.safetensors"));
    run.push(seconds(() => execFileSync(process.execPath, [cli, ...c.args, c.input, "-o", out, "--force"], { stdio: "ignore" })));
    rmSync(out);
  }
  rows.push([c.name, median(cp), median(run)]);
  console.log(`  ${c.name.padEnd(48)} cp ${median(cp).toFixed(2)} s, minifloat ${median(run).toFixed(2)} s, ratio ${(median(cp) / median(run)).toFixed(2)}`);
}
console.log(
  `\nload average at the end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
rmSync(dir, { recursive: true, force: true });
