import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { SafetensorsReader, SafetensorsWriter, type TensorSpec } from "../src/io/index.js";
import { dequantizeBlocks, quantizeBlocks } from "../src/block/index.js";
import { dequantize, quantize, unpackCodes, useKernels } from "../src/index.js";
import { bundleCli, cli } from "./cli-bundle.js";
import { randomWeights } from "./random-weights.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

/** A deterministic weight-like sample: mostly small Gaussian-ish values with rare large outliers. */
function sample(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = (u() + u() + u() - 1.5) * (i % 97 === 0 ? 40 : 0.1);
  return x;
}

async function writeModel(path: string, tensors: { name: string; dtype: string; shape: number[]; values?: Float32Array; raw?: Uint8Array }[]): Promise<void> {
  const w = await SafetensorsWriter.create(
    path,
    tensors.map(({ name, dtype, shape }): TensorSpec => ({ name, dtype, shape })),
    { metadata: { format: "pt" } },
  );
  for (const t of tensors) {
    if (t.values) await w.writeValues(t.values);
    else await w.writeBytes(t.raw!);
  }
  await w.commit();
}

async function read(path: string, name: string, as: "codes" | "values") {
  const r = await SafetensorsReader.open(path);
  try {
    const t = r.tensor(name);
    return { t, data: as === "codes" ? await r.readCodes(t) : await r.readValues(t), metadata: r.metadata };
  } finally {
    await r.close();
  }
}

const weight = sample(64 * 33, 1);
const bias = sample(33, 2);
const model = at("model.safetensors");
beforeAll(async () => {
  await writeModel(model, [
    { name: "layers.0.mlp.weight", dtype: "F32", shape: [64, 33], values: weight },
    { name: "layers.0.mlp.bias", dtype: "BF16", shape: [33], values: bias },
    { name: "position_ids", dtype: "I32", shape: [4], raw: new Uint8Array(Int32Array.of(0, 1, 2, 3).buffer) },
  ]);
});

describe("minifloat CLI (in-process)", () => {
  it("prints help for the program and for every command", async () => {
    const top = await cli("--help");
    expect(top.code).toBe(0);
    for (const name of ["quantize", "dequantize", "inspect", "table", "conformance", "gguf", "onnx"]) {
      expect(top.out).toContain(`  ${name} `);
      const h = await cli(name, "--help");
      expect(h.code).toBe(0);
      expect(h.out.startsWith(`Usage: minifloat ${name}`)).toBe(true);
    }
    expect((await cli()).code).toBe(2);
  });

  it("quantize → dequantize → inspect: values match the library, integers pass through, the report lists each tensor", async () => {
    const q = at("fp4.safetensors");
    const r = await cli("quantize", model, "--to", "float4_e2m1fn", "-o", q);
    // Only converted tensors are numbered; tensors this small show no throughput.
    expect(r.err).toMatch(/^\[1\/2\] layers\.0\.mlp\.weight: RMSE \S+\n\[2\/2\] layers\.0\.mlp\.bias: RMSE \S+\n$/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^tensor\s+elements\s+RMSE\s+max \|err\|\s+rel err\s+saturated\s+flushed\s+throughput$/m);
    expect(r.out).toMatch(/^layers\.0\.mlp\.weight\s+2112\s/m);
    expect(r.out).toContain("2 tensor(s) quantized to float4_e2m1fn (NearestTiesToEven, SatFinite), 1 copied");
    const expected = quantize(weight, "float4_e2m1fn", { saturation: "SatFinite" });
    const got = await read(q, "layers.0.mlp.weight", "codes");
    expect(got.t.dtype).toBe("F4");
    expect([...got.data]).toEqual([...expected]);
    expect(got.metadata).toEqual({ format: "pt", "minifloat.quantized": "float4_e2m1fn NearestTiesToEven SatFinite" });
    // The saturated column counts results beyond MaxFinite = 6: the outliers of the sample.
    const beyond = weight.filter((v) => Math.abs(v) > 6.5).length;
    expect(r.out).toContain(`${((100 * beyond) / weight.length).toFixed(3)}%`);

    const d = at("fp4-f32.safetensors");
    const dr = await cli("dequantize", q, "--to", "f32", "-o", d);
    expect(dr.code).toBe(0);
    expect(dr.out).toContain("2 tensor(s) converted to F32, 1 copied");
    const back = await read(d, "layers.0.mlp.weight", "values");
    expect(back.t.dtype).toBe("F32");
    expect([...back.data]).toEqual([...dequantize(expected, "float4_e2m1fn")]);
    expect(back.metadata).toEqual({ format: "pt" });
    const ids = await read(d, "position_ids", "codes").catch((e: Error) => e.message);
    expect(ids).toMatch(/32-bit I32 elements/);
    const reader = await SafetensorsReader.open(d);
    const raw = await reader.readTensorBytes(reader.tensor("position_ids"), 0, 16);
    await reader.close();
    expect([...new Int32Array(raw.buffer, raw.byteOffset, 4)]).toEqual([0, 1, 2, 3]);

    const i = await cli("inspect", q);
    expect(i.code).toBe(0);
    expect(i.out).toMatch(/^layers\.0\.mlp\.weight\s+F4\s+\[64, 33\]\s+2112\s+-6\s+6\s/m);
    expect(i.out).toMatch(/^position_ids\s+I32\s+\[4\]\s+4$/m);
    expect(i.out).toContain("|x| by binade over 2145 floating-point elements:");
    expect(i.out).toMatch(/^\[2\^2, 2\^3\) \| [# ]{40} 22 \(1\.03%\)$/m);
    expect(i.out).toContain("minifloat.quantized: float4_e2m1fn NearestTiesToEven SatFinite");
  });

  it("stores formats without a safetensors dtype as U8 codes recorded in metadata, and dequantizes them", async () => {
    const q = at("p3.safetensors");
    expect((await cli("quantize", model, "--to", "Binary8p3se", "--only", "*.weight", "-o", q)).code).toBe(0);
    const got = await read(q, "layers.0.mlp.weight", "codes");
    expect(got.t.dtype).toBe("U8");
    expect(got.t.format!.name).toBe("Binary8p3se");
    expect([...got.data]).toEqual([...quantize(weight, "Binary8p3se", { saturation: "SatFinite" })]);
    expect((await read(q, "layers.0.mlp.bias", "codes")).t.dtype).toBe("BF16");
    expect((await cli("inspect", q)).out).toMatch(/^layers\.0\.mlp\.weight\s+U8 \(Binary8p3se\)\s+\[64, 33\]/m);
    const d = at("p3-bf16.safetensors");
    expect((await cli("dequantize", q, "--to", "bf16", "-o", d)).out).toContain("1 tensor(s) converted to BF16, 2 copied");
    const back = await read(d, "layers.0.mlp.weight", "values");
    expect([...back.data]).toEqual([...dequantize(quantize(dequantize(got.data, "Binary8p3se"), "bfloat16"), "bfloat16")]);
  });

  it("--block mxfp4: element codes and scales per row (blocks never cross a row), dequantized as the library does", async () => {
    const q = at("mxfp4.safetensors");
    const r = await cli("quantize", model, "--block", "mxfp4", "-o", q);
    expect(r.code).toBe(0);
    expect(r.out).toContain("2 tensor(s) quantized to mxfp4 (NearestTiesToEven), 1 copied");
    const reader = await SafetensorsReader.open(q);
    expect(reader.tensors.map((t) => `${t.name} ${t.dtype} [${t.shape.join(",")}]`)).toEqual([
      "layers.0.mlp.weight F4 [64,33]",
      "layers.0.mlp.weight.scales F8_E8M0 [64,2]",
      "layers.0.mlp.bias F4 [33]",
      "layers.0.mlp.bias.scales F8_E8M0 [2]",
      "position_ids I32 [4]",
    ]);
    expect(reader.metadata["minifloat.block.layers.0.mlp.weight"]).toBe("mxfp4");
    const codes = await reader.readCodes(reader.tensor("layers.0.mlp.weight"));
    const scales = await reader.readCodes(reader.tensor("layers.0.mlp.weight.scales"));
    await reader.close();
    const expected = new Float32Array(weight.length);
    for (let row = 0; row < 64; row++) {
      const lib = quantizeBlocks(weight.subarray(row * 33, (row + 1) * 33), "mxfp4");
      expect([...scales.subarray(row * 2, row * 2 + 2)]).toEqual([...lib.scales]);
      expect([...codes.subarray(row * 33, (row + 1) * 33)]).toEqual([...unpackCodes(lib.elements, 4, 33)]);
      expected.set(dequantizeBlocks(lib), row * 33);
    }
    const d = at("mxfp4-f32.safetensors");
    expect((await cli("dequantize", q, "--to", "f32", "-o", d)).out).toContain("2 tensor(s) converted to F32 (2 scale tensor(s) folded in), 1 copied");
    const back = await read(d, "layers.0.mlp.weight", "values");
    expect([...back.data]).toEqual([...expected]);
    expect(back.metadata).toEqual({ format: "pt" });
    const i = await cli("inspect", q);
    expect(i.out).toMatch(/^layers\.0\.mlp\.weight\s+F4 \(mxfp4\)\s+\[64, 33\]\s+2112\s/m);
    expect(i.out).toMatch(/^layers\.0\.mlp\.weight\.scales\s+F8_E8M0 \(mxfp4 scales\)\s+\[64, 2\]/m);
  });

  it("--block nvfp4 records its second-level tensor scale; mxint8 stores two's complement I8 elements", async () => {
    const src = at("rows.safetensors");
    const x = sample(16 * 64, 9);
    await writeModel(src, [{ name: "w", dtype: "F32", shape: [16, 64], values: x }]);
    const nv = at("nvfp4.safetensors");
    expect((await cli("quantize", src, "--block", "nvfp4", "-o", nv)).code).toBe(0);
    const amax = x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const T = Math.fround(amax / (448 * 6));
    const lib = quantizeBlocks(x, "nvfp4", { tensorScale: T });
    const got = await read(nv, "w", "codes");
    expect(got.metadata["minifloat.block.w"]).toBe(`nvfp4 tensor_scale=${T}`);
    expect([...got.data]).toEqual([...unpackCodes(lib.elements, 4, x.length)]);
    expect([...(await read(nv, "w.scales", "codes")).data]).toEqual([...lib.scales]);
    const nvBack = at("nvfp4-bf16.safetensors");
    expect((await cli("dequantize", nv, "--to", "bf16", "-o", nvBack)).code).toBe(0);
    expect([...(await read(nvBack, "w", "values")).data]).toEqual([...dequantize(quantize(dequantizeBlocks(lib), "bfloat16"), "bfloat16")]);

    const i8 = at("mxint8.safetensors");
    expect((await cli("quantize", src, "--block", "mxint8", "-o", i8)).code).toBe(0);
    const reader = await SafetensorsReader.open(i8);
    const t = reader.tensor("w");
    expect(t.dtype).toBe("I8");
    const stored = (await reader.readElementBytes(t, 0, t.length)).bytes;
    await reader.close();
    const libInt = quantizeBlocks(x, "mxint8");
    expect([...stored]).toEqual([...libInt.elements]);
    const back = at("mxint8-f32.safetensors");
    expect((await cli("dequantize", i8, "--to", "f32", "-o", back)).code).toBe(0);
    expect([...(await read(back, "w", "values")).data]).toEqual([...dequantizeBlocks(libInt)]);
  });

  it("counts as saturated only inputs that round past MaxFinite (NVFP4 of exactly representable values: 0%)", async () => {
    // Every value is ±2.875: NVFP4's tensor scale T = fround(2.875 / 2688) lies below the exact quotient, so 2.875
    // is a hair above 6·448·T (the block's largest value) yet rounds to 6: representable, not saturated.
    const src = at("ones.safetensors");
    const x = new Float32Array(64 * 16).map((_, i) => (i % 3 === 0 ? -2.875 : 2.875));
    await writeModel(src, [{ name: "w", dtype: "F32", shape: [16, 64], values: x }]);
    const r = await cli("quantize", src, "--block", "nvfp4", "-o", at("ones-nvfp4.safetensors"));
    expect(r.code).toBe(0);
    const row = r.out
      .split("\n")
      .find((line) => line.startsWith("w "))!
      .trim()
      .split(/\s+/);
    // tensor, elements, RMSE, max |err|, rel err, saturated, flushed, throughput ("-": too small to time)
    expect([row[0], row[1], row[5], row[6], row[7]]).toEqual(["w", "1024", "0%", "0%", "-"]);
  });

  it("inspect --only lists the selected tensors without the file-wide metadata", async () => {
    const r = await cli("inspect", model, "--only", "*.bias");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/layers\.0\.mlp\.bias/);
    expect(r.out).not.toMatch(/layers\.0\.mlp\.weight/);
    expect(r.out).toMatch(/__metadata__: 1 entries \(listed without --only\)\n$/);
    expect(r.out).not.toMatch(/format: pt/);
  });

  it("inspect states no moments for a tensor without finite values (empty, or NaN and ±∞ only)", async () => {
    const file = at("no-finite.safetensors");
    const header = JSON.stringify({ e: { dtype: "F32", shape: [0], data_offsets: [0, 0] }, n: { dtype: "F32", shape: [2], data_offsets: [0, 8] } });
    const bytes = new Uint8Array(8 + header.length + 8);
    const view = new DataView(bytes.buffer);
    view.setBigUint64(0, BigInt(header.length), true);
    bytes.set(new TextEncoder().encode(header), 8);
    view.setFloat32(8 + header.length, Number.NaN, true);
    view.setFloat32(12 + header.length, Number.POSITIVE_INFINITY, true);
    writeFileSync(file, bytes);
    const r = await cli("inspect", file);
    expect(r.code).toBe(0);
    const cells = (name: string) =>
      r.out
        .split("\n")
        .find((line) => line.startsWith(`${name} `))!
        .trim()
        .split(/\s+/);
    // tensor, dtype, shape, elements, min, max, mean, std, zeros, NaN/Inf
    expect(cells("e")).toEqual(["e", "F32", "[0]", "0", "-", "-", "-", "-", "-", "0"]);
    expect(cells("n")).toEqual(["n", "F32", "[2]", "2", "-", "-", "-", "-", "0%", "2"]);
  });

  it("stochastic rounding with a seed does not depend on chunking (a tensor larger than one chunk)", async () => {
    const big = at("big.safetensors");
    const x = sample((1 << 20) + 4099, 3);
    await writeModel(big, [{ name: "w", dtype: "F32", shape: [x.length], values: x }]);
    const q = at("big-sr.safetensors");
    const r = await cli("quantize", big, "--to", "float8_e5m2", "--rounding", "StochasticA", "--stochastic-bits", "6", "--seed", "42", "-o", q);
    expect(r.code).toBe(0);
    const whole = quantize(x, "float8_e5m2", { rounding: "StochasticA", stochasticBits: 6, seed: 42, saturation: "SatFinite" });
    expect(Buffer.compare(Buffer.from((await read(q, "w", "codes")).data as Uint8Array), Buffer.from(whole as Uint8Array))).toBe(0);
    expect((await read(q, "w", "codes")).metadata["minifloat.quantized"]).toBe("float8_e5m2 StochasticA SatFinite seed=42 N=6");
  });

  it("draws a progress bar on a terminal and ends with the report", async () => {
    let err = "";
    let out = "";
    const code = await main(["quantize", model, "--to", "float8_e5m2", "-o", at("tty.safetensors")], {
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
      isTTY: true,
    });
    expect(code).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the progress bar is drawn with terminal escapes
    expect(err).toMatch(/^\r\x1b\[K\[=+ *\] +\d+\.\d% {2}1\/2 layers\.0\.mlp\.weight/);
    expect(err.endsWith("\r\x1b[K")).toBe(true);
    expect(out).toMatch(/^layers\.0\.mlp\.bias\s+33\s/m);
  });

  it("table prints 2^K rows with exact values (Binary8p3se 0x5d = 160; hex floats beyond float64)", async () => {
    const t = await cli("table", "Binary8p3se");
    expect(t.code).toBe(0);
    const rows = t.out.trimEnd().split("\n").slice(1);
    expect(rows.length).toBe(256);
    expect(rows[0x5d]).toMatch(/^0x5d {2}01011101 {2}0\.10111\.01\s+\+1\.01\*2\^7\s+160$/);
    expect(rows[0x01]).toMatch(/\+0\.01\*2\^-15\s+0\.00000762939453125 {2}\*$/);
    expect(rows[0x7f]).toMatch(/\+Inf$/);
    expect(rows[0x80]).toMatch(/NaN$/);
    const e2m1 = (await cli("table", "float4_e2m1fn")).out.trimEnd().split("\n").slice(1);
    expect(
      e2m1.map((l) =>
        l
          .replace(/ {2}\*$/, "")
          .split(/\s+/)
          .at(-1),
      ),
    ).toEqual(["0", "0.5", "1", "1.5", "2", "3", "4", "6", "-0", "-0.5", "-1", "-1.5", "-2", "-3", "-4", "-6"]);
    expect(e2m1[1]).toMatch(/ {2}\*$/);
    const wide = (await cli("table", "Binary16p1se")).out.trimEnd().split("\n");
    expect(wide.length).toBe(1 + 65536);
    expect(wide[1 + 0x7ffe]).toMatch(/ 0x1p\+16382$/);
    const tesla = await cli("table", "cfloat8_1_4_3", "--bias", "15");
    expect(tesla.out.split("\n")[0]).toBe("cfloat8_1_4_3(bias=15): K=8 P=4 bias=15 Signed Finite, 256 codes");
    const noBias = await cli("table", "cfloat8_1_4_3");
    expect(noBias.code).toBe(2);
    expect(noBias.err).toBe("minifloat table: --bias: cfloat8_1_4_3 requires a bias: an integer in [0, 63]\n");
  });

  it("conformance checks the mandatory specializations and writes the four declaration files", async () => {
    const r = await cli("conformance");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^P3109 §4\.5 mandatory specializations: (\d+) of \1 supported\n$/);
    const sig = "Add<Binary8p3se, Binary8p3se, binary32, (NearestTiesToEven, SatNone)>";
    expect(await cli("conformance", "--supports", sig)).toEqual({ code: 0, out: `supported: ${sig}\n`, err: "" });
    expect((await cli("conformance", "--supports", "Frobnicate<Binary8p3se>")).code).toBe(1);
    const decl = at("declarations");
    const w = await cli("conformance", "--declarations", decl, "--timestamp", "2026-01-01T00:00:00Z", "--provider", "test");
    expect(w.code).toBe(0);
    expect(readdirSync(decl).sort()).toEqual(["Configurations.yaml", "Constraints.yaml", "Kappas.yaml", "Profiles.yaml"]);
    expect(readFileSync(join(decl, "Profiles.yaml"), "utf8")).toContain('timestamp: "2026-01-01T00:00:00Z"');
    const again = await cli("conformance", "--declarations", decl);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/^minifloat conformance: .*Configurations\.yaml: exists; allowed: a new path, or --force to replace it\n$/);
  });

  it("refuses an existing output without --force and never writes over the input", async () => {
    const q = at("exists.safetensors");
    writeFileSync(q, "old");
    const r = await cli("quantize", model, "--to", "float8_e4m3fn", "-o", q);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`minifloat quantize: ${q}: exists; allowed: a new path, or --force to replace it\n`);
    expect(readFileSync(q, "utf8")).toBe("old");
    expect((await cli("quantize", model, "--to", "float8_e4m3fn", "-o", q, "--force")).code).toBe(0);
    expect((await read(q, "layers.0.mlp.weight", "codes")).t.dtype).toBe("F8_E4M3");
    const before = readFileSync(model);
    const self = await cli("quantize", model, "--to", "float8_e4m3fn", "-o", model, "--force");
    expect(self.err).toMatch(/is also an input; allowed: a different output path/);
    expect(Buffer.compare(readFileSync(model), before)).toBe(0);
    // A directory is refused before any work, --force or not, under the name given.
    const folder = at("a-folder");
    mkdirSync(folder);
    const dir = await cli("quantize", model, "--to", "float8_e4m3fn", "-o", folder, "--force");
    expect(dir).toEqual({
      code: 1,
      out: "",
      err: `minifloat quantize: ${folder}: is a directory; allowed: a file path (--force replaces a file, never a directory)\n`,
    });
    expect(readdirSync(folder)).toEqual([]);
  });

  it("quantize: the same file and report with the kernels (in place in Wasm memory) as with the TypeScript reference", async () => {
    const input = at("kernels-vs-reference.safetensors");
    const x = sample(3 * 70000 + 3, 4);
    x.set([NaN, Infinity, -Infinity, 1e-45, -500, 465, 464, -464, 1e30], 0);
    await writeModel(input, [
      { name: "a", dtype: "F32", shape: [x.length], values: x },
      { name: "b", dtype: "BF16", shape: [x.length], values: x },
      { name: "c", dtype: "F16", shape: [x.length], values: x },
    ]);
    const runs = [];
    for (const on of [true, false]) {
      useKernels(on);
      try {
        const out = at(`kernels-${on}.safetensors`);
        const r = await cli("quantize", input, "--to", "float8_e4m3fn", "--saturation", "SatPropagate", "-o", out);
        expect(r.code, r.err).toBe(0);
        runs.push({
          file: readFileSync(out),
          report: r.out
            .replace(/[\d.]+ [kM]?\/s/g, "")
            .replace(/ +\n/g, "\n")
            .replace(out, "out"),
        });
      } finally {
        useKernels(true);
      }
    }
    expect(Buffer.compare(runs[0]!.file, runs[1]!.file)).toBe(0);
    expect(runs[0]!.report).toBe(runs[1]!.report);
    expect(runs[0]!.report).toMatch(/^c +210003 +0\.1398 +52 +4\.811% +0\.001% +1\.444%$/m);
  });

  it("quantize --to float8_e4m3fn of tensors of several chunks with odd tails (read ahead into and written from Wasm slots): ml_dtypes' bytes, the reference's report", async () => {
    const input = at("chunks.safetensors");
    // Sizes and SHA-256 of the codes from ml_dtypes 0.6 (float32 and bfloat16 .astype(float8_e4m3fn)), computed
    // from the same sample() outside this repository.
    const [na, nb] = [2 * (1 << 20) + 12345, (1 << 20) + 777];
    await writeModel(input, [
      { name: "a", dtype: "F32", shape: [na], values: sample(na, 5) },
      { name: "ids", dtype: "I32", shape: [3], raw: new Uint8Array(Int32Array.of(7, 8, 9).buffer) },
      { name: "b", dtype: "BF16", shape: [nb], values: sample(nb, 6) },
    ]);
    const reports = [];
    for (const on of [true, false]) {
      useKernels(on);
      try {
        const out = at(`chunks-${on}.safetensors`);
        const r = await cli("quantize", input, "--to", "float8_e4m3fn", "-o", out);
        expect(r.code, r.err).toBe(0);
        reports.push(
          r.out
            .replace(/[\d.]+ [kM]?\/s/g, "")
            .replace(/ +\n/g, "\n")
            .replace(out, "out"),
        );
        const sha = async (name: string) =>
          createHash("sha256")
            .update((await read(out, name, "codes")).data as Uint8Array)
            .digest("hex");
        expect(await sha("a")).toBe("9bc3c263456539360365d66881de7ec70c479a09efe0f3c0c3d1f4562eaf7e4d");
        expect(await sha("b")).toBe("05d6335696795a6591c58b450d36d847121314ed625285443317f1ab79003688");
        const r2 = await SafetensorsReader.open(out);
        expect([...new Int32Array((await r2.readTensorBytes(r2.tensor("ids"), 0, 12)).slice().buffer)]).toEqual([7, 8, 9]);
        await r2.close();
      } finally {
        useKernels(true);
      }
    }
    expect(reports[0]).toBe(reports[1]);
  });

  it("dequantize --to bf16 of tensors of several chunks with odd tails (written from Wasm buffers): ml_dtypes' bytes", async () => {
    const input = at("chunks-f8.safetensors");
    const [na, nb] = [2 * (1 << 20) + 12345, (1 << 20) + 777];
    // Codes (37·i) mod 256 with the two NaNs (0x7f, 0xff) moved down by one; SHA-256 of ml_dtypes 0.6's
    // .astype(bfloat16) of these and of sample(nb, 6) in float32.
    const codes = Uint8Array.from({ length: na }, (_, i) => ((37 * i) % 256) - (((37 * i) & 0x7f) === 0x7f ? 1 : 0));
    await writeModel(input, [
      { name: "a", dtype: "F8_E4M3", shape: [na], raw: codes },
      { name: "b", dtype: "F32", shape: [nb], values: sample(nb, 6) },
    ]);
    for (const on of [true, false]) {
      useKernels(on);
      try {
        const out = at(`chunks-bf16-${on}.safetensors`);
        const r = await cli("dequantize", input, "--to", "bf16", "-o", out);
        expect(r.code, r.err).toBe(0);
        const sha = async (name: string) => {
          const data = (await read(out, name, "codes")).data;
          return createHash("sha256")
            .update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
            .digest("hex");
        };
        expect(await sha("a")).toBe("7e999c6002ede5089047d741a36e98f02ed5f84516df2c66cdc4ddf5f9ad0e71");
        expect(await sha("b")).toBe("56da440255ce45c47923d36ff8c00137badc5b084547b2c6145d9a3c30a97ba4");
      } finally {
        useKernels(true);
      }
    }
  });

  it("--fsync: the same output as without it, for quantize, dequantize and gguf", async () => {
    const floats = at("fsync-floats.safetensors");
    await writeModel(floats, [{ name: "layers.0.mlp.weight", dtype: "F32", shape: [64, 64], values: sample(64 * 64, 3) }]);
    const runs: [string[], string][] = [
      [["quantize", model, "--to", "float8_e4m3fn"], "safetensors"],
      [["dequantize", model, "--to", "f16"], "safetensors"],
      [["gguf", floats, "--type", "q8_0"], "gguf"],
    ];
    for (const [k, [args, ext]] of runs.entries()) {
      const [plain, synced] = [at(`fsync-${k}-0.${ext}`), at(`fsync-${k}-1.${ext}`)];
      const first = await cli(...args, "-o", plain);
      expect(first.code, first.err).toBe(0);
      const r = await cli(...args, "-o", synced, "--fsync");
      expect(r.code, r.err).toBe(0);
      expect(Buffer.compare(readFileSync(plain), readFileSync(synced))).toBe(0);
    }
    const bad = await cli("quantize", model, "--to", "float8_e4m3fn", "-o", at("fsync-bad.safetensors"), "--fsync=yes");
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^minifloat quantize: --fsync: /);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("reports every error on one line with a non-zero exit code (stack only with --verbose)", async () => {
    const cases: [string[], number, RegExp][] = [
      [["quantize", at("missing.safetensors"), "--to", "F4", "-o", at("x.safetensors")], 1, /^minifloat quantize: .*missing\.safetensors: not found\n$/],
      [["quantize", model, "--to", "Binary9p3se", "-o", at("x.safetensors")], 0, /^$/],
      [["quantize", model, "--to", "float99", "-o", at("y.safetensors")], 2, /^minifloat quantize: --to: unknown format "float99"; allowed: Binary\{K\}p\{P\}/],
      [["quantize", model, "--to", "binary32", "-o", at("y.safetensors")], 2, /--to: binary32 has 32-bit codes; allowed: formats of up to 16 bits/],
      [
        ["quantize", model, "--to", "F4", "--rounding", "StochasticA", "-o", at("y.safetensors")],
        2,
        /^minifloat quantize: --seed: is required with StochasticA/,
      ],
      [["quantize", model, "--to", "F4", "--seed", "3", "-o", at("y.safetensors")], 2, /--seed: only allowed with StochasticA, StochasticB or StochasticC/],
      [
        ["quantize", model, "--to", "F4", "--rounding", "StochasticA", "--seed", "1", "-o", at("y.safetensors")],
        2,
        /--stochastic-bits: got undefined; allowed: an integer N in \[1, 32\]/,
      ],
      [
        ["quantize", model, "--to", "F4", "--saturation", "Clamp", "-o", at("y.safetensors")],
        2,
        /--saturation: got "Clamp"; allowed: SatFinite, SatPropagate, SatNone/,
      ],
      [
        ["quantize", model, "--to", "F4", "--only", "nothing*", "-o", at("y.safetensors")],
        2,
        /has no F16\/BF16\/F32\/F64 tensor matching --only to quantize; no output written\n$/,
      ],
      [["quantize", model, "--to", "F4"], 2, /^minifloat quantize: --output: is required/],
      [
        ["quantize", model, "--to", "F4", "--frobnicate", "-o", at("y.safetensors")],
        2,
        /^minifloat quantize: --frobnicate: unknown option; see minifloat quantize --help\n$/,
      ],
      [["quantize", "--to", "F4", "-o", at("y.safetensors")], 2, /quantize: takes <in.safetensors> but got none/],
      [
        ["quantize", model, "--block", "mxfp9", "-o", at("y.safetensors")],
        2,
        /^minifloat quantize: --block: got "mxfp9"; allowed: mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4, mxint8, nvfp4\n$/,
      ],
      [
        ["quantize", model, "--block", "mxfp4", "--saturation", "SatNone", "-o", at("y.safetensors")],
        2,
        /^minifloat quantize: --saturation: not allowed with --block/,
      ],
      [
        ["quantize", model, "--block", "mxfp4", "--rounding", "StochasticA", "-o", at("y.safetensors")],
        2,
        /^minifloat quantize: --rounding: got "StochasticA"; allowed: NearestTiesToEven/,
      ],
      [["quantize", model, "--block", "mxfp4", "--to", "F4", "-o", at("y.safetensors")], 2, /^minifloat quantize: --to: not allowed with --block/],
      [
        ["dequantize", model, "--to", "bf16", "--only", "*.bias", "-o", at("y.safetensors")],
        2,
        /has no floating-point tensor matching --only that is not already BF16; no output written\n$/,
      ],
      [["dequantize", model, "--to", "f8", "-o", at("y.safetensors")], 2, /--to: got "f8"; allowed: f32, f16 or bf16/],
      [
        ["inspect", at("garbage.safetensors")],
        1,
        /garbage\.safetensors: is not a safetensors file: it does not start with an 8-byte header length followed by a JSON object\n$/,
      ],
      [["frobnicate"], 2, /^minifloat: unknown command "frobnicate"; allowed: quantize, dequantize, inspect, table, conformance/],
      [["conformance", "extra"], 2, /^minifloat conformance: conformance: takes no arguments but got "extra"/],
    ];
    writeFileSync(at("garbage.safetensors"), "this is not a safetensors file at all");
    for (const [argv, code, message] of cases) {
      const r = await cli(...argv);
      expect(r.code, argv.join(" ")).toBe(code);
      if (code !== 0) {
        expect(r.err, argv.join(" ")).toMatch(message);
        expect(r.err.split("\n").length, argv.join(" ")).toBe(2);
      }
    }
    expect(existsSync(at("y.safetensors"))).toBe(false);
    const verbose = await cli("inspect", at("garbage.safetensors"), "--verbose");
    expect(verbose.err.split("\n").length).toBeGreaterThan(3);
    expect(verbose.err).toMatch(/\n\s+at /);
  });
});

describe("minifloat executable", () => {
  let cliPath = "";
  beforeAll(async () => {
    cliPath = at("cli.mjs");
    await bundleCli(cliPath);
  });

  it("runs as a process: exit codes and one-line errors", async () => {
    const ok = await run(spawn(process.execPath, [cliPath, "table", "float4_e2m1fn"]));
    expect(ok.code).toBe(0);
    expect(ok.out.split("\n")[8]).toMatch(/^0x7 {2}0111 {2}0\.11\.1\s+\+1\.1\*2\^2\s+6$/);
    const bad = await run(spawn(process.execPath, [cliPath, "inspect", at("nope.safetensors")]));
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^minifloat inspect: .*nope\.safetensors: not found\n$/);
  });

  it("SIGINT while writing leaves neither the output nor a temporary file", async () => {
    const big = at("sigint-in.safetensors");
    // The slowest path (F64 input, 12-bit codes, stochastic rounding) keeps the writer busy long after the first tensor.
    const tensors = Array.from({ length: 16 }, (_, i) => ({ name: `layers.${i}.weight`, dtype: "F64", shape: [256, 512], values: sample(256 * 512, 10 + i) }));
    await writeModel(big, tensors);
    const out = join(dir, "sigint-out.safetensors");
    const child = spawn(process.execPath, [
      cliPath,
      "quantize",
      big,
      "--to",
      "Binary12p5se",
      "--rounding",
      "StochasticA",
      "--stochastic-bits",
      "8",
      "--seed",
      "1",
      "-o",
      out,
    ]);
    let err = "";
    let signalled = false;
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      // The first finished tensor proves the temporary file is open and half written.
      if (!signalled && err.includes("[1/16]")) {
        signalled = true;
        expect(readdirSync(dir).some((f) => f.startsWith(".sigint-out.safetensors.") && f.endsWith(".tmp"))).toBe(true);
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(signalled).toBe(true);
    expect(code, "the CLI must still be writing when SIGINT arrives").toBe(130);
    expect(err).toContain("minifloat: interrupted; no output written");
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("sigint-out"))).toEqual([]);
  });
});

function run(child: ChildProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err })));
}

describe("quantize --to on worker threads (--threads)", () => {
  // Tensors of 2^22 elements and more go to the workers: F32 and BF16 inputs over several jobs, a partial last chunk.
  const input = at("threads-in.safetensors");
  beforeAll(async () => {
    const random = randomWeights(7, 24);
    const specs: TensorSpec[] = [
      { name: "big.f32", dtype: "F32", shape: [4200, 1001] },
      { name: "big.bf16", dtype: "BF16", shape: [1 << 22] },
      { name: "small", dtype: "F32", shape: [3, 5] },
    ];
    const w = await SafetensorsWriter.create(input, specs);
    for (const s of specs) await w.writeValues(Float32Array.from({ length: s.shape.reduce((a, b) => a * b) }, random));
    await w.commit();
  });
  const report = (out: string) =>
    out
      .replace(/ +[0-9.]+ [kMG]\/s/g, "")
      .replace(/ in [0-9.]+ s/g, "")
      .replace(/wrote \S+:/, "wrote:");

  it.each([
    ["float8_e4m3fn", []],
    ["binary16", ["--saturation", "SatNone"]],
    ["Binary8p3se", ["--rounding", "TowardZero"]],
    ["float4_e2m1fn", []], // packed codes: on the calling thread
    ["float8_e5m2", ["--rounding", "StochasticA", "--stochastic-bits", "8", "--seed", "5"]], // stochastic: on the calling thread
  ] as [string, string[]][])("%s %j: the same file and report on one and two threads", async (to, extra) => {
    const [one, two] = [at(`threads-1-${to}.safetensors`), at(`threads-2-${to}.safetensors`)];
    const r1 = await cli("quantize", input, "--to", to, ...extra, "-o", one, "--threads", "1");
    const r2 = await cli("quantize", input, "--to", to, ...extra, "-o", two, "--threads", "2");
    expect([r1.code, r2.code]).toEqual([0, 0]);
    expect(readFileSync(two).equals(readFileSync(one))).toBe(true);
    expect(report(r2.out)).toBe(report(r1.out));
  });

  it("--threads takes an integer of at least 1", async () => {
    const r = await cli("quantize", input, "--to", "float8_e4m3fn", "-o", at("threads-bad.safetensors"), "--threads", "0");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--threads/);
    expect(existsSync(at("threads-bad.safetensors"))).toBe(false);
  });
});
