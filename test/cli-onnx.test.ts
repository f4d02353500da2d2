// `minifloat onnx quantize|inspect` in-process: the written model runs in onnxruntime-web, the input is untouched,
// nothing is left behind on errors, and errors name the argument.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "./cli-bundle.js";
import { bytes, expected, fixture, relativeMaxDifference, run, values } from "./onnx-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-onnx-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

describe("minifloat onnx", () => {
  it("quantize writes a qdq model that runs, reports each weight, and leaves the input as it was", async () => {
    copyFileSync(join(import.meta.dirname, "fixtures", "onnx", "mlp.onnx"), at("mlp.onnx"));
    const r = await cli("onnx", "quantize", at("mlp.onnx"), "--to", "float8_e4m3fn", "--mode", "qdq", "-o", at("mlp.e4m3.onnx"));
    expect(r).toMatchObject({ code: 0, err: "" });
    expect(r.out).toMatch(/2 weight\(s\) quantized to float8_e4m3fn \(qdq\), opset 13 → 19/);
    expect(r.out).toMatch(/^W1 +MatMul +FLOAT +\[64, 48\] +\d\.\d{3}e-2 /m);
    expect(r.out).toMatch(/^W2 +Gemm +FLOAT +\[32, 48\] /m);
    expect(Buffer.compare(readFileSync(at("mlp.onnx")), fixture("mlp"))).toBe(0);
    const y = await run(readFileSync(at("mlp.e4m3.onnx")), "mlp");
    expect(relativeMaxDifference(y, values(bytes(expected.mlp.y), false))).toBeLessThanOrEqual(0.05);
  });

  it("quantize --only selects weights; fake mode with a block scheme", async () => {
    const r = await cli("onnx", "quantize", at("mlp.onnx"), "--to", "nvfp4", "--mode", "fake", "--only", "W2", "-o", at("mlp.nvfp4.onnx"));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/1 weight\(s\) quantized to nvfp4 \(fake\)\n/);
    expect(r.out).not.toMatch(/^W1 /m);
  });

  it("inspect lists initializers and Constant tensors with dtype, shape and size", async () => {
    const r = await cli("onnx", "inspect", join(import.meta.dirname, "fixtures", "onnx", "conv.onnx"));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ir_version 7, opset ai\.onnx 13, 2 node\(s\), 1 tensor\(s\) of 1\.1 KiB/);
    expect(r.out).toMatch(/^W +constant +FLOAT +\[8, 4, 3, 3\] +1\.1 KiB$/m);
    const e = await cli("onnx", "inspect", join(import.meta.dirname, "fixtures", "onnx", "external.onnx"));
    expect(e.out).toMatch(/^W1 +initializer +FLOAT +\[64, 48\] +12\.0 KiB \(external\)$/m);
  });

  it("refuses with the argument named and writes nothing", async () => {
    const before = readdirSync(dir).sort();
    const cases: [string[], number, RegExp][] = [
      [["onnx", "quantize", at("mlp.onnx"), "--to", "int4", "-o", at("x.onnx")], 2, /--mode: got null; allowed: qdq or fake/],
      [["onnx", "quantize", at("mlp.onnx"), "--mode", "qdq", "-o", at("x.onnx")], 2, /--to: is required/],
      [["onnx", "quantize", at("mlp.onnx"), "--to", "int4", "--mode", "qdq"], 2, /--output: is required/],
      [["onnx", "quantize", at("mlp.onnx"), "--to", "int4", "--mode", "qdq", "--block", "x", "-o", at("x.onnx")], 2, /--block: got "x"/],
      [
        ["onnx", "quantize", at("mlp.onnx"), "--to", "int4", "--mode", "qdq", "--scale", "tensor", "--block", "4", "-o", at("x.onnx")],
        1,
        /^minifloat onnx: --scale: cannot be combined with --block \(blocked scales run along the reduction axis\)$/m,
      ],
      [["onnx", "quantize", at("mlp.onnx"), "--to", "nvfp4", "--mode", "qdq", "-o", at("x.onnx")], 1, /--to: nvfp4 has no DequantizeLinear data type/],
      [
        ["onnx", "quantize", at("mlp.onnx"), "--to", "float9", "--mode", "fake", "-o", at("x.onnx")],
        1,
        /^minifloat onnx: --to: unknown format "float9"; allowed: .*; also allowed: int4 or a block scheme/,
      ],
      [
        ["onnx", "quantize", at("mlp.onnx"), "--to", "float8_e5m2", "--mode", "qdq", "--scale", "none", "-o", at("x.onnx")],
        1,
        /^minifloat onnx: --scale: none/,
      ],
      [["onnx", "quantize", at("mlp.onnx"), "--to", "int4", "--mode", "qdq", "-o", at("mlp.e4m3.onnx")], 1, /mlp\.e4m3\.onnx: exists/],
      [["onnx", "quantize", at("mlp.onnx"), "--to", "int4", "--mode", "qdq", "--force", "-o", at("mlp.onnx")], 1, /is the input file/],
      [["onnx", "quantize", at("missing.onnx"), "--to", "int4", "--mode", "qdq", "-o", at("x.onnx")], 1, /missing\.onnx: not found/],
      [["onnx", "convert", at("mlp.onnx")], 2, /onnx: got "convert"; allowed: quantize or inspect/],
    ];
    for (const [argv, code, message] of cases) {
      const r = await cli(...argv);
      expect([r.code, r.err], argv.join(" ")).toEqual([code, expect.stringMatching(message)]);
    }
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(existsSync(at("x.onnx"))).toBe(false);
  });
});
