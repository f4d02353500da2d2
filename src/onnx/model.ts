// Quantizing the weights of a decoded model: qdq (codes + scales + DequantizeLinear) or fake (values written back).
import { packCodes } from "../api/packed.js";
import { DataType, dataTypeName } from "./dtypes.js";
import { OnnxError } from "./errors.js";
import { defaultOpset, irVersionFor, requireOpset } from "./opset.js";
import { type Skipped, type Weight, findWeights } from "./plan.js";
import { type Granularity, type ScaledWeight, quantizeBlockScheme, quantizeScaled, roundInto } from "./quantize.js";
import { type ModelProto, type NodeProto, type TensorProto, int, newAttribute, newNode } from "./schema.js";
import { QDQ_TYPES, type Target } from "./target.js";
import { rawTensor, readFloats, tensorDims, withRawData } from "./tensor.js";

export interface WeightReport {
  readonly name: string;
  readonly ops: readonly string[];
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Scales the weight has in its format (per channel, per tensor or per block; 0 without scales). */
  readonly scales: number;
  /** ‖ŵ − w‖ / ‖w‖ of the values the model now computes with (0 for an all-zero weight). */
  readonly relativeError: number;
  readonly maxAbsError: number;
}

export interface QuantizeReport {
  readonly weights: WeightReport[];
  readonly skipped: Skipped[];
  readonly opset: { readonly from: number; readonly to: number };
}

export interface ModelQuantizeSettings {
  readonly target: Target;
  readonly mode: "qdq" | "fake";
  readonly granularity: Granularity;
  /** Block size of a block scheme (default: the scheme's). */
  readonly blockSize?: number;
  readonly select: (name: string) => boolean;
}

/** The opset DequantizeLinear needs for a data type and granularity. */
function opsetFor(onnxType: number, g: Granularity): number {
  if (onnxType === DataType.FLOAT4E2M1) return 23;
  return onnxType === DataType.INT4 || g.kind === "block" ? 21 : 19;
}

/** A name not yet used in the graph: base, or base_2, base_3, … */
function freshName(base: string, used: Set<string>): string {
  let name = base;
  for (let k = 2; used.has(name); k++) name = `${base}_${k}`;
  used.add(name);
  return name;
}

/** Stored element bytes: 8-bit codes as they are, 4-bit codes packed (INT4 in two's complement). */
function storedCodes(w: ScaledWeight, onnxType: number): Uint8Array {
  if (onnxType === DataType.INT4)
    return packCodes(
      w.codes.map((c) => (c & 8 ? (16 - (c & 7)) & 15 : c)),
      4,
    );
  return onnxType === DataType.FLOAT4E2M1 ? packCodes(w.codes, 4) : w.codes;
}

function errors(w: Float32Array, stored: Float32Array): { relativeError: number; maxAbsError: number } {
  let se = 0;
  let sw = 0;
  let maxAbsError = 0;
  for (let i = 0; i < w.length; i++) {
    const e = stored[i]! - w[i]!;
    se += e * e;
    sw += w[i]! * w[i]!;
    maxAbsError = Math.max(maxAbsError, Math.abs(e));
  }
  return { relativeError: sw > 0 ? Math.sqrt(se / sw) : 0, maxAbsError };
}

/** Quantizes the selected weights of `model` in place (its graph, opset and IR version); returns what was done. */
export function quantizeModel(model: ModelProto, s: ModelQuantizeSettings): QuantizeReport {
  const graph = model.graph;
  if (!graph) throw new OnnxError("model", "has no graph; allowed: an ONNX model (ModelProto with a graph)");
  const { weights: found, skipped } = findWeights(graph, new Set(graph.output.map((o) => o.name ?? "")));
  const weights = found.filter((w) => s.select(w.name));
  const { target, mode, granularity } = s;
  const current = int(defaultOpset(model)?.version);
  let opset = { from: current, to: current };
  if (mode === "qdq") {
    if (target.kind !== "element" || target.onnxType === undefined) {
      throw new OnnxError(
        "options.to",
        `${target.name} has no DequantizeLinear data type; allowed in qdq mode: ${QDQ_TYPES}; any format or block scheme in fake mode`,
      );
    }
    if (granularity.kind === "none") throw new OnnxError("options.scale", "none is only allowed in fake mode (DequantizeLinear needs a scale)");
    const needed = opsetFor(target.onnxType, granularity);
    opset = weights.length
      ? requireOpset(model, needed, `DequantizeLinear of ${dataTypeName(target.onnxType)}${granularity.kind === "block" ? " with blocks" : ""}`)
      : opset;
    if (weights.length && int(model.ir_version) < irVersionFor(opset.to)) model.ir_version = irVersionFor(opset.to);
  }
  const used = new Set<string>([...graph.initializer.map((t) => t.name ?? ""), ...graph.node.flatMap((n) => [...n.output, ...n.input])]);
  const initializers: (TensorProto | undefined)[] = [...graph.initializer];
  const nodes: (NodeProto | undefined)[] = [...graph.node];
  const dq: NodeProto[] = [];
  const reports: WeightReport[] = [];
  for (const w of weights) {
    const type = w.tensor.data_type!;
    const dims = tensorDims(w.tensor);
    const values = readFloats(w.name, w.tensor);
    let exact: Float64Array;
    let scales = 0;
    if (target.kind === "block") {
      ({ values: exact, scales } = quantizeBlockScheme(w.name, values, w.blockDims, w.axes, target.scheme, s.blockSize));
    } else {
      const q = quantizeScaled(w.name, values, dims, w.axes, target.format, granularity, type);
      // INT4 stores no −0 (its sign–magnitude −0 code becomes 0): DequantizeLinear gives +0.
      exact = target.onnxType === DataType.INT4 ? q.values.map((v) => v + 0) : q.values;
      scales = granularity.kind === "none" ? 0 : q.scales.length;
      if (mode === "qdq") {
        const codes = rawTensor(freshName(`${w.name}_quantized`, used), target.onnxType!, dims, storedCodes(q, target.onnxType!));
        const scale = rawTensor(freshName(`${w.name}_scale`, used), type, q.scaleDims, roundInto(q.scales, type));
        const node = dequantizeNode(w, codes, scale, q, freshName(`${w.name}_DequantizeLinear`, used));
        initializers.push(codes, scale);
        replaceSource(w, initializers, nodes, node, dq);
      }
    }
    const bytes = roundInto(exact, type);
    if (mode === "fake") replaceTensor(w, withRawData(w.tensor, bytes), initializers, nodes);
    const stored = type === DataType.FLOAT ? new Float32Array(bytes.buffer, bytes.byteOffset, values.length) : readFloats(w.name, withRawData(w.tensor, bytes));
    reports.push({ name: w.name, ops: w.ops, dtype: dataTypeName(type), shape: dims, scales, ...errors(values, stored) });
  }
  graph.initializer = initializers.filter((t): t is TensorProto => t !== undefined);
  graph.node = [...dq, ...nodes.filter((n): n is NodeProto => n !== undefined)];
  return { weights: reports, skipped, opset };
}

function dequantizeNode(w: Weight, codes: TensorProto, scale: TensorProto, q: ScaledWeight, name: string): NodeProto {
  const attribute = [];
  // AttributeProto.AttributeType INT = 2
  if (q.axis !== undefined) attribute.push(newAttribute({ name: "axis", type: 2, i: q.axis }));
  if (q.blockSize !== undefined) attribute.push(newAttribute({ name: "block_size", type: 2, i: q.blockSize }));
  return newNode({ name, op_type: "DequantizeLinear", input: [codes.name!, scale.name!], output: [w.name], attribute });
}

/** qdq: the weight's tensor goes away; its DequantizeLinear takes the place of its Constant node, or comes first. */
function replaceSource(w: Weight, initializers: (TensorProto | undefined)[], nodes: (NodeProto | undefined)[], node: NodeProto, dq: NodeProto[]): void {
  if (w.source.kind === "initializer") {
    initializers[w.source.index] = undefined;
    dq.push(node);
  } else {
    nodes[w.source.node] = node;
  }
}

/** fake: the weight's tensor replaced by one of its own type and shape. */
function replaceTensor(w: Weight, t: TensorProto, initializers: (TensorProto | undefined)[], nodes: (NodeProto | undefined)[]): void {
  if (w.source.kind === "initializer") {
    initializers[w.source.index] = t;
    return;
  }
  const node = nodes[w.source.node]!;
  nodes[w.source.node] = newNode({ ...node, attribute: node.attribute.map((a) => (a.name === "value" ? newAttribute({ ...a, t }) : a)) });
}
