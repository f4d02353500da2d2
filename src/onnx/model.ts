// Quantizing the weights of a decoded model: qdq (codes + scales + DequantizeLinear) or fake (values written back).
import { dequantize } from "../api/bulk.js";
import { packCodes } from "../api/packed.js";
import { DataType, dataTypeName } from "./dtypes.js";
import { OnnxError } from "./errors.js";
import { defaultOpset, irVersionFor, requireOpset } from "./opset.js";
import { type Skipped, type Weight, allNames, findWeights } from "./plan.js";
import { type Granularity, type ScaledWeight, quantizeBlockScheme, quantizeScaled, roundInto } from "./quantize.js";
import { type ModelProto, type NodeProto, type TensorProto, int, newAttribute, newNode } from "./schema.js";
import { QDQ_TYPES, type Target } from "./target.js";
import { rawTensor, readFloats, requireInternal, tensorDims, withRawData } from "./tensor.js";

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
  /** Scale granularity (block schemes: "block" with their block size). */
  readonly granularity: Granularity;
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

/** Stored element bytes: 8-bit codes as they are, 4-bit codes packed (INT4 in two's complement); qdq types are ≤ 8 bits. */
function storedCodes(w: ScaledWeight, onnxType: number): Uint8Array {
  const codes = w.codes as Uint8Array;
  if (onnxType === DataType.INT4)
    return packCodes(
      codes.map((c) => (c & 8 ? (16 - (c & 7)) & 15 : c)),
      4,
    );
  return onnxType === DataType.FLOAT4E2M1 ? packCodes(codes, 4) : codes;
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
  requireInternal(graph);
  const { weights: found, skipped } = findWeights(graph, int(model.ir_version));
  const weights = found.filter((w) => s.select(w.name));
  const { target, mode, granularity } = s;
  const current = int(defaultOpset(model)?.version);
  let opset = { from: current, to: current };
  const onnxType = target.onnxType;
  if (mode === "qdq") {
    if (onnxType === undefined) {
      throw new OnnxError(
        "options.to",
        `${target.name} has no DequantizeLinear data type; allowed in qdq mode: ${QDQ_TYPES}; any format or block scheme in fake mode`,
      );
    }
    if (granularity.kind === "none") throw new OnnxError("options.scale", "none is only allowed in fake mode (DequantizeLinear needs a scale)");
    const needed = opsetFor(onnxType, granularity);
    opset = weights.length
      ? requireOpset(model, needed, `DequantizeLinear of ${dataTypeName(onnxType)}${granularity.kind === "block" ? " with blocks" : ""}`)
      : opset;
    if (weights.length && int(model.ir_version) < irVersionFor(opset.to)) model.ir_version = irVersionFor(opset.to);
  }
  // New names must differ from every name of the graph, subgraphs included (a subgraph may not shadow them).
  const used = allNames(graph);
  const initializers: (TensorProto | undefined)[] = [...graph.initializer];
  // Each node's replacement (a Constant weight becomes its DequantizeLinear, and a Reshape for Conv blocks).
  const nodes: NodeProto[][] = graph.node.map((n) => [n]);
  const first: NodeProto[] = [];
  const reports: WeightReport[] = [];
  for (const w of weights) {
    const type = w.tensor.data_type!;
    const dims = tensorDims(w.tensor);
    const values = readFloats(w.name, w.tensor);
    const blocked = target.kind === "block";
    const q = blocked
      ? quantizeBlockScheme(w.name, values, w.blockDims, w.axes, target.scheme, granularity.kind === "block" ? granularity.size : target.scheme.blockSize, type)
      : quantizeScaled(w.name, values, granularity.kind === "block" ? w.blockDims : dims, w.axes, target.format, granularity, type);
    // INT4 stores no −0 (its sign–magnitude −0 code becomes 0): DequantizeLinear gives +0.
    const exact = onnxType === DataType.INT4 ? q.values.map((v) => v + 0) : q.values;
    if (mode === "qdq") {
      const scaleBytes = roundInto(q.scales, type);
      if (blocked && !sameValues(q.scales, scaleBytes, type)) {
        throw new OnnxError(w.name, `has ${target.name} block scales that are not ${dataTypeName(type)} values; allowed: FLOAT weights, or fake mode`);
      }
      const codeDims = granularity.kind === "block" ? w.blockDims : dims;
      const codes = rawTensor(freshName(`${w.name}_quantized`, used), onnxType!, codeDims, storedCodes(q, onnxType!));
      const scale = rawTensor(freshName(`${w.name}_scale`, used), type, q.scaleDims, scaleBytes);
      initializers.push(codes, scale);
      const reshaped = codeDims.length !== dims.length;
      const dqOutput = reshaped ? freshName(`${w.name}_blocks`, used) : w.name;
      const added = [dequantizeNode(codes, scale, q, dqOutput, freshName(`${w.name}_DequantizeLinear`, used))];
      if (reshaped) {
        const shape = rawTensor(freshName(`${w.name}_shape`, used), DataType.INT64, [dims.length], new Uint8Array(BigInt64Array.from(dims, BigInt).buffer));
        initializers.push(shape);
        added.push(newNode({ name: freshName(`${w.name}_Reshape`, used), op_type: "Reshape", input: [dqOutput, shape.name!], output: [w.name] }));
      }
      if (w.source.kind === "initializer") {
        initializers[w.source.index] = undefined;
        first.push(...added);
      } else {
        nodes[w.source.node] = added;
      }
    }
    const bytes = roundInto(exact, type);
    const stored = type === DataType.FLOAT ? new Float32Array(bytes.buffer, bytes.byteOffset, values.length) : readFloats(w.name, withRawData(w.tensor, bytes));
    // A finite weight must stay finite: a value rounded beyond the weight's type (a bfloat16 65536 written back into
    // float16) is refused rather than written as ∞.
    const overflow = stored.findIndex((v) => !Number.isFinite(v));
    if (overflow >= 0) {
      throw new OnnxError(
        w.name,
        `element ${overflow} (${values[overflow]}) becomes ${exact[overflow]} in ${target.name}, beyond ${dataTypeName(type)}'s range; allowed: a target whose values ${dataTypeName(type)} holds`,
      );
    }
    if (mode === "fake") replaceTensor(w, withRawData(w.tensor, bytes), initializers, nodes);
    const scales = granularity.kind === "none" ? 0 : q.scales.length;
    reports.push({ name: w.name, ops: w.ops, dtype: dataTypeName(type), shape: dims, scales, ...errors(values, stored) });
  }
  graph.initializer = initializers.filter((t): t is TensorProto => t !== undefined);
  // A qdq weight is computed now: an IR < 4 listing of it as a graph input goes (the IR version is ≥ 9 by now).
  if (mode === "qdq") {
    const gone = new Set(weights.map((w) => w.name));
    graph.input = graph.input.filter((v) => !gone.has(v.name ?? ""));
  }
  graph.node = [...first, ...nodes.flat()];
  return { weights: reports, skipped, opset };
}

/** Whether values rounded into a FLOAT or FLOAT16 tensor's bytes kept their value. */
function sameValues(values: Float64Array, bytes: Uint8Array, type: number): boolean {
  const back =
    type === DataType.FLOAT
      ? new Float32Array(bytes.buffer, bytes.byteOffset, values.length)
      : dequantize(new Uint16Array(bytes.buffer, bytes.byteOffset, values.length), "binary16");
  return values.every((v, i) => v === back[i]);
}

function dequantizeNode(codes: TensorProto, scale: TensorProto, q: ScaledWeight, output: string, name: string): NodeProto {
  const attribute = [];
  // AttributeProto.AttributeType INT = 2
  if (q.axis !== undefined) attribute.push(newAttribute({ name: "axis", type: 2, i: q.axis }));
  if (q.blockSize !== undefined) attribute.push(newAttribute({ name: "block_size", type: 2, i: q.blockSize }));
  return newNode({ name, op_type: "DequantizeLinear", input: [codes.name!, scale.name!], output: [output], attribute });
}

/** fake: the weight's tensor replaced by one of its own type and shape. */
function replaceTensor(w: Weight, t: TensorProto, initializers: (TensorProto | undefined)[], nodes: NodeProto[][]): void {
  if (w.source.kind === "initializer") {
    initializers[w.source.index] = t;
    return;
  }
  const node = nodes[w.source.node]![0]!;
  nodes[w.source.node] = [newNode({ ...node, attribute: node.attribute.map((a) => (a.name === "value" ? newAttribute({ ...a, t }) : a)) })];
}
