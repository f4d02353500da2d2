// minifloat/onnx against independent code: the quantized models run in onnxruntime-web (WebAssembly backend) and
// agree with the float32 model (ONNX's reference evaluator) within a stated tolerance; the codes, scales and fake
// values equal those scripts/fixtures/onnx.py computes with NumPy and ml_dtypes, bit for bit.
//
// Tolerance: max |y − y_f32| ≤ tol · max |y_f32| over the fixture's outputs, tol = 1% for 16-bit formats, 5% for
// 8-bit formats of precision ≥ 4 (e4m3, P3109 p4), 10% for 8-bit formats of precision 3 (e5m2, P3109 p3), 20% for
// 4-bit formats and block schemes (INT4, FP4, MXFP4, NVFP4).
import { describe, expect, it } from "vitest";
import { FormatError } from "../src/index.js";
import { DataType, OnnxError, type OnnxQuantizeOptions, inspectOnnx, quantizeOnnx } from "../src/onnx/index.js";
import { decodeModel, encodeModel, int } from "../src/onnx/schema.js";
import { bytes, expected, fixture, relativeMaxDifference, run, values } from "./onnx-fixtures.js";

type Name = keyof typeof expected;

function quantized(name: Name, options: OnnxQuantizeOptions) {
  const result = quantizeOnnx(fixture(name), options);
  const model = decodeModel(result.bytes);
  const tensor = (n: string) => {
    const graph = model.graph!;
    const init = graph.initializer.find((t) => t.name === n);
    if (init) return init;
    return graph.node.find((x) => x.output[0] === n && x.op_type === "Constant")?.attribute.find((a) => a.name === "value")?.t;
  };
  return { result, model, tensor };
}

const f32 = (name: Name) => values(bytes(expected[name].y), name === "mlp16" || name === "top16");

describe("qdq models run in onnxruntime-web and agree with the float32 model", () => {
  const cases: [Name, OnnxQuantizeOptions, number][] = [
    ["mlp", { to: "float8_e4m3fn", mode: "qdq" }, 0.05],
    ["mlp", { to: "FLOAT8E5M2", mode: "qdq", scale: "tensor" }, 0.1],
    ["mlp", { to: "float8_e4m3fn", mode: "qdq", block: 16 }, 0.05],
    ["mlp", { to: "int4", mode: "qdq", block: 16 }, 0.2],
    ["mlp", { to: "int4", mode: "qdq" }, 0.2],
    ["conv", { to: "float8_e4m3fn", mode: "qdq", block: 2 }, 0.05],
    ["conv", { to: "int4", mode: "qdq", scale: "tensor" }, 0.2],
    ["mlp16", { to: "float8_e4m3fn", mode: "qdq" }, 0.05],
    ["mlp16", { to: "int4", mode: "qdq", block: 32 }, 0.2],
    ["mlp", { to: "mxfp8_e4m3", mode: "qdq" }, 0.05],
    ["mlp", { to: "mxfp8_e5m2", mode: "qdq", block: 16 }, 0.1],
    ["conv", { to: "mxfp8_e4m3", mode: "qdq" }, 0.05],
    ["mlp16", { to: "mxfp8_e4m3", mode: "qdq" }, 0.05],
    ["top16", { to: "float8_e4m3fn", mode: "qdq" }, 0.05],
    ["top16", { to: "int4", mode: "qdq", scale: "tensor" }, 0.2],
  ];
  it.each(cases)("%s %j (tol %f)", async (name, options, tol) => {
    const { result } = quantized(name, options);
    expect(result.weights.length).toBeGreaterThan(0);
    const y = await run(result.bytes, name);
    const reference = f32(name);
    expect(relativeMaxDifference(y, reference)).toBeLessThanOrEqual(tol);
    // The fake model holds the values DequantizeLinear computes: both run the same arithmetic.
    const fake = await run(quantizeOnnx(fixture(name), { ...options, mode: "fake" }).bytes, name);
    expect(relativeMaxDifference(y, fake)).toBeLessThanOrEqual(name === "mlp16" || name === "top16" ? 2 ** -10 : 1e-6);
    expect(y.every(Number.isFinite)).toBe(true);
  });
});

describe("codes, scales and values equal the independent computation", () => {
  const cases: [Name, string, OnnxQuantizeOptions][] = [
    ["mlp", "float8_e4m3fn/axis", { to: "float8_e4m3fn", mode: "qdq" }],
    ["mlp", "float8_e5m2/tensor", { to: "float8_e5m2", mode: "qdq", scale: "tensor" }],
    ["mlp", "int4/block16", { to: "int4", mode: "qdq", block: 16 }],
    ["mlp", "float4_e2m1fn/axis", { to: "float4_e2m1fn", mode: "qdq" }],
    ["conv", "float8_e4m3fn/block2", { to: "float8_e4m3fn", mode: "qdq", block: 2 }],
    ["conv", "int4/axis", { to: "int4", mode: "qdq" }],
    ["mlp16", "float8_e4m3fn/axis", { to: "float8_e4m3fn", mode: "qdq" }],
    // float16 weights reaching 65504: the scale one step below amax / 448 rounded, so 448 · s stays finite.
    ["top16", "float8_e4m3fn/axis", { to: "float8_e4m3fn", mode: "qdq" }],
  ];
  it.each(cases)("%s %s", (name, key, options) => {
    const want = expected[name].qdq![key]!;
    const { result, tensor } = quantized(name, options);
    const fake = quantized(name, { ...options, mode: "fake" });
    for (const [weight, e] of Object.entries(want)) {
      const codes = tensor(`${weight}_quantized`)!;
      const scale = tensor(`${weight}_scale`)!;
      expect(Array.from(codes.raw_data!), `${weight} codes`).toEqual(Array.from(bytes(e.codes)));
      expect(Array.from(scale.raw_data!), `${weight} scales`).toEqual(Array.from(bytes(e.scale)));
      expect(scale.dims.map(int), `${weight} scale shape`).toEqual(e.scaleShape);
      expect(Array.from(fake.tensor(weight)!.raw_data!), `${weight} fake values`).toEqual(Array.from(bytes(e.values)));
    }
    expect(result.weights.map((w) => w.name).sort()).toEqual(Object.keys(want).sort());
  });

  it.each([
    ["mlp", "mxfp4"],
    ["mlp", "mxfp8_e4m3"],
    ["conv", "mxfp4"],
  ] as [Name, string][])("fake %s %s: OCP MX blocks of 32 along the reduction axis", (name, scheme) => {
    const { tensor } = quantized(name, { to: scheme, mode: "fake" });
    for (const [weight, e] of Object.entries(expected[name].fake![scheme]!)) {
      expect(Array.from(tensor(weight)!.raw_data!), weight).toEqual(Array.from(bytes(e)));
    }
  });
});

describe("fake mode: every kind of format, the weights' own dtype", () => {
  const cases: [Name, OnnxQuantizeOptions, number][] = [
    ["mlp", { to: "float16", mode: "fake", scale: "none" }, 0.01],
    ["mlp", { to: "bfloat16", mode: "fake", scale: "none" }, 0.01],
    ["mlp", { to: "float8_e5m2", mode: "fake" }, 0.1],
    ["mlp", { to: "mxfp8_e4m3", mode: "fake" }, 0.05],
    ["mlp", { to: "mxfp4", mode: "fake" }, 0.2],
    ["mlp", { to: "nvfp4", mode: "fake" }, 0.2],
    ["mlp", { to: "Binary8p4se", mode: "fake" }, 0.05],
    ["mlp", { to: "Binary8p3se", mode: "fake" }, 0.1],
    ["conv", { to: "nvfp4", mode: "fake", block: 4 }, 0.2],
    ["conv", { to: "Binary8p4se", mode: "fake", scale: "tensor" }, 0.05],
    ["mlp16", { to: "mxfp4", mode: "fake" }, 0.2],
    ["mlp16", { to: "Binary8p3se", mode: "fake" }, 0.1],
  ];
  it.each(cases)("%s %j (tol %f)", async (name, options, tol) => {
    const { result, model, tensor } = quantized(name, options);
    const before = decodeModel(fixture(name));
    expect(model.graph!.node.map((n) => n.op_type)).toEqual(before.graph!.node.map((n) => n.op_type));
    for (const w of result.weights) expect(tensor(w.name)!.data_type).toBe(name === "mlp16" ? DataType.FLOAT16 : DataType.FLOAT);
    expect(relativeMaxDifference(await run(result.bytes, name), f32(name))).toBeLessThanOrEqual(tol);
  });
});

describe("graph rewriting", () => {
  it("raises the opset and IR version only as far as DequantizeLinear needs", () => {
    for (const [options, opset, ir] of [
      [{ to: "float8_e4m3fn", mode: "qdq" }, 19, 9],
      [{ to: "float8_e4m3fn", mode: "qdq", block: 16 }, 21, 10],
      [{ to: "int4", mode: "qdq" }, 21, 10],
      [{ to: "float4_e2m1fn", mode: "qdq" }, 23, 11],
    ] as [OnnxQuantizeOptions, number, number][]) {
      const { result, model } = quantized("mlp", options);
      expect(result.opset).toEqual({ from: 13, to: opset });
      expect(int(model.opset_import[0]!.version)).toBe(opset);
      expect(int(model.ir_version)).toBe(ir);
    }
    const { result, model } = quantized("mlp16", { to: "float8_e4m3fn", mode: "qdq" });
    expect(result.opset).toEqual({ from: 21, to: 21 });
    expect(int(model.ir_version)).toBe(10);
  });

  it("writes DequantizeLinear nodes with axis and block_size, outputs named as the weights, first in the graph", () => {
    const { model } = quantized("mlp", { to: "int4", mode: "qdq", block: 16 });
    const nodes = model.graph!.node;
    expect(nodes.map((n) => n.op_type)).toEqual(["DequantizeLinear", "DequantizeLinear", "MatMul", "Relu", "Gemm"]);
    const attrs = (i: number) => Object.fromEntries(nodes[i]!.attribute.map((a) => [a.name, int(a.i)]));
    expect([nodes[0]!.input, nodes[0]!.output, attrs(0)]).toEqual([["W1_quantized", "W1_scale"], ["W1"], { axis: 0, block_size: 16 }]);
    expect([nodes[1]!.input, nodes[1]!.output, attrs(1)]).toEqual([["W2_quantized", "W2_scale"], ["W2"], { axis: 1, block_size: 16 }]);
    expect(model.graph!.initializer.map((t) => [t.name, t.data_type])).toEqual([
      ["C", DataType.FLOAT],
      ["W1_quantized", DataType.INT4],
      ["W1_scale", DataType.FLOAT],
      ["W2_quantized", DataType.INT4],
      ["W2_scale", DataType.FLOAT],
    ]);
  });

  it("MX schemes: blocked DequantizeLinear with power-of-two float32 scales; a Conv weight's blocks through a Reshape", () => {
    const { result, model, tensor } = quantized("conv", { to: "mxfp4", mode: "qdq" });
    expect(result.opset).toEqual({ from: 13, to: 23 });
    const nodes = model.graph!.node;
    expect(nodes.map((n) => [n.op_type, n.input, n.output])).toEqual([
      ["DequantizeLinear", ["W_quantized", "W_scale"], ["W_blocks"]],
      ["Reshape", ["W_blocks", "W_shape"], ["W"]],
      ["Conv", ["x", "W"], ["y"]],
    ]);
    expect(nodes[0]!.attribute.map((a) => [a.name, int(a.i)])).toEqual([
      ["axis", 1],
      ["block_size", 32],
    ]);
    expect([tensor("W_quantized")!.data_type, tensor("W_quantized")!.dims.map(int)]).toEqual([DataType.FLOAT4E2M1, [8, 36]]);
    expect(tensor("W_scale")!.dims.map(int)).toEqual([8, 2]);
    expect(tensor("W_shape")!.data_type).toBe(DataType.INT64);
    const scales = new Float32Array(new Uint8Array(tensor("W_scale")!.raw_data!).buffer);
    for (const v of scales) expect(Number.isInteger(Math.log2(v)), String(v)).toBe(true);
    // The elements decoded with their scales are the fake values, which equal the independent MX computation.
    const fake = values(bytes(expected.conv.fake!.mxfp4!.W!), false);
    const codes = new Uint8Array(tensor("W_quantized")!.raw_data!);
    const e2m1 = [0, 0.5, 1, 1.5, 2, 3, 4, 6];
    for (let i = 0; i < 288; i++) {
      const c = (codes[i >> 1]! >> ((i & 1) * 4)) & 15;
      expect((c & 8 ? -1 : 1) * e2m1[c & 7]! * scales[Math.floor(i / 36) * 2 + Math.floor((i % 36) / 32)]!, `element ${i}`).toBe(fake[i]);
    }
    expect(() => quantizeOnnx(fixture("mlp"), { to: "nvfp4", mode: "qdq" })).toThrow(/^options.to: nvfp4 has no DequantizeLinear data type/);
  });

  it("MX on a float16 weight with an all-zero block: that block's scale is 1 (2^−127 is no float16), its values 0", async () => {
    const model = decodeModel(fixture("mlp16"));
    const w = model.graph!.initializer.find((t) => t.name === "W")!;
    for (let r = 0; r < 32; r++) w.int32_data[r * 16] = 0; // W[0:32, 0]: the first block of column 0
    const { result, tensor } = ((bytes: Uint8Array) => {
      const out = quantizeOnnx(bytes, { to: "mxfp8_e4m3", mode: "qdq" });
      const m = decodeModel(out.bytes);
      return { result: out, tensor: (n: string) => m.graph!.initializer.find((t) => t.name === n)! };
    })(encodeModel(model));
    const scale = new Uint16Array(new Uint8Array(tensor("W_scale").raw_data!).buffer);
    expect(Array.from(tensor("W_scale").dims.map(int))).toEqual([2, 16]);
    expect(scale[0]).toBe(0x3c00);
    expect(scale.slice(1).every((s) => s !== 0x3c00 && s !== 0)).toBe(true);
    expect(Array.from(tensor("W_quantized").raw_data!.subarray(0, 32 * 16)).filter((_, i) => i % 16 === 0)).toEqual(Array(32).fill(0));
    expect(result.weights[0]!.maxAbsError).toBeLessThan(0.1);
  });

  it("IR < 4: initializers listed as graph inputs are weights; qdq drops the listing of the weights it computes", async () => {
    const { result, model } = quantized("ir3", { to: "float8_e4m3fn", mode: "qdq" });
    expect([result.weights.map((w) => w.name), result.opset, int(model.ir_version)]).toEqual([["W1"], { from: 8, to: 19 }, 9]);
    expect(model.graph!.input.map((v) => v.name)).toEqual(["x", "C"]);
    expect(relativeMaxDifference(await run(result.bytes, "ir3"), f32("ir3"))).toBeLessThanOrEqual(0.05);
    const fake = quantized("ir3", { to: "float8_e4m3fn", mode: "fake" });
    expect(fake.model.graph!.input.map((v) => v.name)).toEqual(["x", "W1", "C"]);
    // From IR 4 on, a listed initializer is an input a caller may replace: left as it is.
    const mlp = decodeModel(fixture("mlp"));
    mlp.graph!.input = [...mlp.graph!.input, { name: "W2" }];
    const listed = quantizeOnnx(encodeModel(mlp), { to: "float8_e4m3fn", mode: "qdq" });
    expect([listed.weights.map((w) => w.name), listed.skipped]).toEqual([["W1"], [{ name: "W2", reason: "also a graph input (a caller may replace it)" }]]);
  });

  it("replaces a Constant weight by its DequantizeLinear in place", () => {
    const { model } = quantized("conv", { to: "float8_e4m3fn", mode: "qdq" });
    const nodes = model.graph!.node;
    expect(nodes.map((n) => [n.op_type, n.output[0]])).toEqual([
      ["DequantizeLinear", "W"],
      ["Conv", "y"],
    ]);
    expect(nodes[0]!.attribute.map((a) => [a.name, int(a.i)])).toEqual([["axis", 0]]);
  });

  it("leaves every other tensor and field as it was: quantizing nothing gives the input bytes back", () => {
    for (const name of ["mlp", "conv", "mlp16", "clip9", "ir3"]) {
      expect(Buffer.compare(quantizeOnnx(fixture(name), { to: "int4", mode: "fake", select: () => false }).bytes, fixture(name)), name).toBe(0);
    }
    const { tensor } = quantized("mlp", { to: "float8_e4m3fn", mode: "qdq" });
    const before = decodeModel(fixture("mlp")).graph!.initializer.find((t) => t.name === "C")!;
    expect(Array.from(tensor("C")!.raw_data!)).toEqual(Array.from(before.raw_data!));
  });

  it("FLOAT4E2M1 (opset 23) has no DequantizeLinear kernel in onnxruntime-web 1.30", async () => {
    const { result } = quantized("mlp", { to: "float4_e2m1fn", mode: "qdq" });
    await expect(run(result.bytes, "mlp")).rejects.toThrow(/Could not find an implementation for DequantizeLinear\(23\)/);
  });
});

describe("inspectOnnx", () => {
  it("lists every initializer (the newer sub-byte types, strings, sparse ones) and every form of Constant", () => {
    const model = decodeModel(fixture("mlp"));
    const graph = model.graph! as typeof model.graph & { sparse_initializer: object[] };
    const raw = (name: string, data_type: number, dims: number[], bytes: number[]) => ({ name, data_type, dims, raw_data: Uint8Array.from(bytes) });
    graph.initializer.push(raw("i2", DataType.INT2, [5], [0x1b, 0x02]) as never, raw("f6", DataType.FLOAT6E2M3, [4], [1, 2, 3]) as never);
    graph.initializer.push({ name: "s", data_type: DataType.STRING, dims: [2], string_data: [Uint8Array.of(97, 98), Uint8Array.of(99, 100, 101)] } as never);
    graph.sparse_initializer = [
      { values: raw("sp", DataType.FLOAT, [2], [0, 0, 128, 63, 0, 0, 0, 64]), indices: raw("", DataType.INT64, [2], Array(16).fill(0)), dims: [10] },
    ];
    const constant = (output: string, attribute: object) => ({ op_type: "Constant", input: [], output: [output], attribute: [attribute] });
    graph.node.push(
      constant("cf", { name: "value_floats", type: 6, floats: [1, 2, 3] }) as never,
      constant("ci", { name: "value_int", type: 2, i: 4 }) as never,
    );
    const listed = inspectOnnx(encodeModel(model)).tensors.filter((t) => !["W1", "W2", "C"].includes(t.name));
    expect(listed.map((t) => [t.name, t.source, t.dtype, t.shape, t.bytes])).toEqual([
      ["i2", "initializer", "INT2", [5], 2],
      ["f6", "initializer", "FLOAT6E2M3", [4], 3],
      ["s", "initializer", "STRING", [2], 5],
      ["sp", "sparse initializer", "FLOAT", [10], 24],
      ["cf", "constant", "FLOAT", [3], 12],
      ["ci", "constant", "INT64", [], 8],
    ]);
  });
});

describe("refusals name what is wrong", () => {
  it("an opset raise that would change an operator", () => {
    expect(() => quantizeOnnx(fixture("clip9"), { to: "float8_e4m3fn", mode: "qdq" })).toThrow(
      new OnnxError(
        "model",
        "is at opset 9; DequantizeLinear of FLOAT8E4M3FN needs opset 19, and raising it would change Clip (changed at 11); allowed: a model at opset ≥ 19, or fake mode",
      ),
    );
    expect(quantizeOnnx(fixture("clip9"), { to: "float8_e4m3fn", mode: "fake" }).weights.map((w) => w.name)).toEqual(["W1"]);
  });

  it("local functions: their operators count for the raise, and their default opset follows the model's", () => {
    /** mlp.onnx (opset 13) with a local function whose body is one node of `op`, importing opset 13. */
    const withFunction = (op: string): Uint8Array => {
      const model = decodeModel(fixture("mlp"));
      const node = { op_type: op, input: ["a"], output: ["b"], attribute: [] };
      (model.functions as object[]).push({
        name: "f",
        domain: "local",
        input: ["a"],
        output: ["b"],
        node: [node],
        opset_import: [{ domain: "", version: 13 }],
      });
      model.opset_import.push({ domain: "local", version: 1 });
      return encodeModel(model);
    };
    const raised = decodeModel(quantizeOnnx(withFunction("Relu"), { to: "float8_e4m3fn", mode: "qdq" }).bytes);
    expect(
      (raised.functions as { opset_import: { domain: string; version: unknown }[] }[])[0]!.opset_import.map((o) => [o.domain, int(o.version as number)]),
    ).toEqual([["", 19]]);
    expect(() => quantizeOnnx(withFunction("Reshape"), { to: "float8_e4m3fn", mode: "qdq" })).toThrow(/raising it would change Reshape \(changed at 14\);/);
    // A DequantizeLinear already in the graph counts like any other operator (only the added ones are new).
    const dql = decodeModel(fixture("mlp"));
    dql.graph!.node.push({ op_type: "DequantizeLinear", input: ["q", "s"], output: ["d"], attribute: [] });
    expect(() => quantizeOnnx(encodeModel(dql), { to: "float8_e4m3fn", mode: "qdq" })).toThrow(/raising it would change DequantizeLinear \(changed at 19\)/);
  });

  it("external data, formats without a DequantizeLinear type, bad options, bytes that are no model", () => {
    expect(() => quantizeOnnx(fixture("external"), { to: "int4", mode: "fake" })).toThrow(/^W1: keeps its data in an external file/);
    // Any tensor in an external file, not only a weight: the output, written elsewhere, would point at nothing.
    const model = decodeModel(fixture("mlp"));
    const bias = model.graph!.initializer.find((t) => t.name === "C")!;
    Object.assign(bias, { data_location: 1, external_data: [{ key: "location", value: "model.data" }] });
    expect(() => quantizeOnnx(encodeModel(model), { to: "float8_e4m3fn", mode: "qdq" })).toThrow(/^C: keeps its data in an external file/);
    // A fake value float16 cannot hold (65504 is 65536 in bfloat16) is refused, not written as ∞.
    expect(() => quantizeOnnx(fixture("top16"), { to: "bfloat16", mode: "fake", scale: "none" })).toThrow(
      new OnnxError("W", "element 0 (65504) becomes 65536 in bfloat16, beyond FLOAT16's range; allowed: a target whose values FLOAT16 holds"),
    );
    expect(() => quantizeOnnx(fixture("mlp"), { to: "Binary8p3se", mode: "qdq" })).toThrow(/^options.to: Binary8p3se has no DequantizeLinear data type/);
    expect(() => quantizeOnnx(fixture("mlp"), { to: "mxint8", mode: "qdq" })).toThrow(OnnxError);
    expect(() => quantizeOnnx(fixture("mlp"), { to: "float8_e4m3fn", mode: "qdq", scale: "none" })).toThrow(
      /^options.scale: none is only allowed in fake mode/,
    );
    expect(() => quantizeOnnx(fixture("mlp"), { to: "float9", mode: "fake" })).toThrow(FormatError);
    expect(() => quantizeOnnx(fixture("mlp"), { to: "float32", mode: "fake" })).toThrow(
      /^options.to: binary32 has 32 bits; allowed: formats of at most 16 bits/,
    );
    expect(() => quantizeOnnx(fixture("mlp"), { to: "Binary16p2se", mode: "fake" })).toThrow(
      /^options.scale: Binary16p2se's largest value .* is beyond float32/,
    );
    expect(() => quantizeOnnx(fixture("mlp"), { to: "mxfp4", mode: "fake", scale: "tensor" })).toThrow(/^options.scale: is not used by block schemes/);
    expect(() => quantizeOnnx(fixture("mlp"), { to: "int4", mode: "dq" as "qdq" })).toThrow(/^options.mode: got "dq"/);
    expect(() => quantizeOnnx(fixture("mlp"), { to: "int4", mode: "qdq", block: 0 })).toThrow(/^options.block: got 0/);
    expect(() => quantizeOnnx(Uint8Array.of(0xff, 0xff, 0xff), { to: "int4", mode: "qdq" })).toThrow(/^model: is not an ONNX model/);
  });
});
