// minifloat/onnx: weight-only quantization of ONNX models (DequantizeLinear graphs or fake-quantized weights) and
// a listing of their tensors. Node only (reads and writes files).
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { writeFileAtomic } from "../io/atomic.js";
import { IoError } from "../io/errors.js";
import { fsError } from "../io/fs-errors.js";
import { dataTypeName } from "./dtypes.js";
import { OnnxError } from "./errors.js";
import { type QuantizeReport, quantizeModel } from "./model.js";
import type { Granularity } from "./quantize.js";
import { type AttributeProto, type ModelProto, type SparseTensorProto, type TensorProto, decodeModel, encodeModel, int, newTensor } from "./schema.js";
import { type Target, resolveTarget } from "./target.js";
import { isExternal, tensorBytes, tensorDims } from "./tensor.js";

export { OnnxError } from "./errors.js";
export { DataType, dataTypeName } from "./dtypes.js";
export type { QuantizeReport, WeightReport } from "./model.js";
export type { Skipped } from "./plan.js";

export interface OnnxQuantizeOptions {
  /** A format name (float8_e4m3fn, FLOAT8E5M2, Binary8p3se, …), "int4", or a block scheme (mxfp8_e4m3, mxfp4, nvfp4, …; fake mode). */
  to: string;
  /** "qdq": codes, scales and DequantizeLinear nodes; "fake": the dequantized values in the weight's own type. */
  mode: "qdq" | "fake";
  /** Scales per "axis" (output channel; the default), per "tensor", or "none" (fake mode: the values rounded as they are). */
  scale?: "axis" | "tensor" | "none";
  /** Blocked scales along the reduction axis with this many elements per block (a block scheme's own size otherwise). */
  block?: number;
  /** Quantize only the weights this returns true for (default: all). */
  select?: (name: string) => boolean;
}

export interface OnnxQuantizeResult extends QuantizeReport {
  readonly bytes: Uint8Array;
}

/** Decodes ONNX model bytes; an OnnxError names `argument` when they are not a model. */
export function readModel(bytes: Uint8Array, argument = "model"): ModelProto {
  let model: ModelProto;
  try {
    model = decodeModel(bytes);
  } catch (e) {
    throw new OnnxError(argument, `is not an ONNX model (${(e as Error).message}); allowed: a ModelProto file (.onnx)`);
  }
  if (!model.graph) throw new OnnxError(argument, "has no graph; allowed: an ONNX model (ModelProto with a graph)");
  return model;
}

/** The scale granularity of the options: a block scheme's blocks, blocks of options.block, or options.scale. */
function granularity(o: OnnxQuantizeOptions, target: Target): Granularity {
  if (o.block !== undefined && (!Number.isSafeInteger(o.block) || o.block < 1))
    throw new OnnxError("options.block", `got ${o.block}; allowed: a positive integer`);
  if (target.kind === "block") {
    if (o.scale !== undefined)
      throw new OnnxError("options.scale", `is not used by block schemes (${target.name} has one scale per block along the reduction axis)`);
    return { kind: "block", size: o.block ?? target.scheme.blockSize };
  }
  const scale = o.scale ?? "axis";
  if (!["axis", "tensor", "none"].includes(scale)) throw new OnnxError("options.scale", `got ${JSON.stringify(scale)}; allowed: "axis", "tensor" or "none"`);
  if (o.block === undefined) return { kind: scale } as Granularity;
  if (o.scale !== undefined) throw new OnnxError("options.scale", "cannot be combined with options.block (blocked scales run along the reduction axis)");
  return { kind: "block", size: o.block };
}

/** Quantizes the MatMul/Gemm/Conv weights of an ONNX model (bytes in, bytes out; the input is not modified). */
export function quantizeOnnx(bytes: Uint8Array, options: OnnxQuantizeOptions): OnnxQuantizeResult {
  if (options === null || typeof options !== "object") throw new OnnxError("options", "allowed: { to, mode, scale?, block?, select? }");
  if (options.mode !== "qdq" && options.mode !== "fake") throw new OnnxError("options.mode", `got ${JSON.stringify(options.mode)}; allowed: "qdq" or "fake"`);
  const target = resolveTarget(options.to, "options.to");
  const g = granularity(options, target);
  const model = readModel(bytes);
  const report = quantizeModel(model, { target, mode: options.mode, granularity: g, select: options.select ?? (() => true) });
  return { ...report, bytes: encodeModel(model) };
}

/** Reads `input`, quantizes it and writes `output` atomically (an existing output only with `force`). */
export async function quantizeOnnxFile(input: string, output: string, options: OnnxQuantizeOptions & { force?: boolean }): Promise<QuantizeReport> {
  if (resolve(input) === resolve(output)) throw new IoError(output, "is the input file; allowed: a new path (the input is never modified)");
  let bytes: Uint8Array;
  try {
    bytes = await readFile(input);
  } catch (e) {
    throw fsError(e, input);
  }
  const { bytes: out, ...report } = quantizeOnnx(bytes, options);
  await writeFileAtomic(output, out, options.force ?? false);
  return report;
}

export interface TensorListing {
  readonly name: string;
  /** "initializer", "sparse initializer" (its values and indices counted in `bytes`), or "constant" for the value of a Constant node. */
  readonly source: "initializer" | "sparse initializer" | "constant";
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly bytes: number;
  readonly external: boolean;
}

export interface ModelListing {
  readonly irVersion: number;
  readonly opsets: readonly { readonly domain: string; readonly version: number }[];
  readonly nodes: number;
  readonly tensors: readonly TensorListing[];
}

/** The initializers (sparse ones too) and Constant tensors of a model's main graph with their data type, shape and size. */
export function inspectOnnx(bytes: Uint8Array): ModelListing {
  const model = readModel(bytes);
  const graph = model.graph!;
  const listing = (name: string, source: TensorListing["source"], t: TensorProto): TensorListing => ({
    name,
    source,
    dtype: dataTypeName(t.data_type ?? 0),
    shape: tensorDims(t),
    bytes: tensorBytes(t),
    external: isExternal(t),
  });
  const sparse = (name: string, source: TensorListing["source"], s: SparseTensorProto): TensorListing => {
    const [values, indices] = [s.values ?? newTensor({}), s.indices ?? newTensor({})];
    const of = listing(name, source, values);
    return { ...of, shape: (s.dims ?? []).map(int), bytes: of.bytes + tensorBytes(indices), external: of.external || isExternal(indices) };
  };
  /** A Constant node's value in any of its attribute forms (value, sparse_value, value_float(s), value_int(s), value_string(s)). */
  const constant = (name: string, a: AttributeProto): TensorListing | undefined => {
    const list = (dtype: string, shape: number[], size: number) => ({ name, source: "constant" as const, dtype, shape, bytes: size, external: false });
    if (a.name === "value" && a.t) return listing(name, "constant", a.t);
    if (a.name === "sparse_value" && a.sparse_tensor) return sparse(name, "constant", a.sparse_tensor);
    if (a.name === "value_float") return list("FLOAT", [], 4);
    if (a.name === "value_floats") return list("FLOAT", [a.floats?.length ?? 0], 4 * (a.floats?.length ?? 0));
    if (a.name === "value_int") return list("INT64", [], 8);
    if (a.name === "value_ints") return list("INT64", [a.ints?.length ?? 0], 8 * (a.ints?.length ?? 0));
    if (a.name === "value_string") return list("STRING", [], a.s?.length ?? 0);
    if (a.name === "value_strings")
      return list(
        "STRING",
        [a.strings?.length ?? 0],
        (a.strings ?? []).reduce((n, s) => n + s.length, 0),
      );
    return undefined;
  };
  const constants = graph.node.flatMap((n) => (n.op_type === "Constant" ? n.attribute.flatMap((a) => constant(n.output[0] ?? "", a) ?? []) : []));
  const sparseInitializers = (graph.sparse_initializer ?? []).map((s) => sparse(s.values?.name ?? "", "sparse initializer", s));
  return {
    irVersion: int(model.ir_version),
    opsets: model.opset_import.map((o) => ({ domain: o.domain ?? "", version: int(o.version) })),
    nodes: graph.node.length,
    tensors: [...graph.initializer.map((t) => listing(t.name ?? "", "initializer", t)), ...sparseInitializers, ...constants],
  };
}
