// The package entry resolves from the repository root, and `npm start`'s job (examples/main.mjs on its bundled
// example) and the saturation study (npm run example:saturation, on a small experiment) run to the end.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decode, encode } from "minifloat";

describe("package entry", () => {
  it("resolves `minifloat` from the repository root and runs a hand-checked FMA value", () => {
    expect(decode(0x5d, "Binary8p3se")).toBe(160);
    expect(encode(233, "Binary8p4se")).toBe(0x7f);
  });
});

describe("npm start", () => {
  it("runs examples/main.mjs to the end: quantize, block schemes, safetensors round trips and the CLI", () => {
    const out = execFileSync(process.execPath, [join(import.meta.dirname, "..", "examples", "main.mjs")], { encoding: "utf8" });
    expect(out).toMatch(/wrote <tmp>\/cli\.safetensors: \d+ tensor\(s\) quantized to Binary8p3se/);
    expect(out.trim().split("\n").at(-1)).toMatch(/^More: minifloat --help/);
  });
});

describe("npm run example:saturation", () => {
  it("prints the worked examples as the notebook did, then the random experiment's table", () => {
    const script = join(import.meta.dirname, "..", "examples", "saturation.mjs");
    const out = execFileSync(process.execPath, [script, "--batches", "1", "--batch-size", "20"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    const worked = out.split("\n").filter((l) => l.startsWith("["));
    expect(worked).toHaveLength(4);
    for (const line of worked) expect(line).toMatch(/ ✓$/);
    expect(out).toMatch(/^in-range results \(exact result finite in float16\) +\d+\.\d %/m);
    expect(out).toMatch(/^20 dot products of length 2048 under three modes/m);
  });
});
