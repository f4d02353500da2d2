// Which tensors of a graph are weights: float32/float16 initializers or Constant tensors that feed only the
// weight input of MatMul, Gemm or Conv nodes, with the axes their scales run along.
import { DataType } from "./dtypes.js";
import type { WeightAxes } from "./quantize.js";
import { type GraphProto, type NodeProto, type TensorProto, int } from "./schema.js";
import { tensorDims } from "./tensor.js";

/** Where a weight's tensor lives: an initializer, or the `value` attribute of a Constant node. */
export type WeightSource = { readonly kind: "initializer"; readonly index: number } | { readonly kind: "constant"; readonly node: number };

export interface Weight {
  readonly name: string;
  readonly tensor: TensorProto;
  readonly source: WeightSource;
  readonly axes: WeightAxes;
  /** The operators it feeds (for reports). */
  readonly ops: string[];
  /**
   * The shape blocks see: a Conv weight [O, I, k…] as [O, I·k…] (its whole reduction, contiguous; qdq stores the
   * codes so and reshapes after DequantizeLinear), every other weight as it is.
   */
  readonly blockDims: number[];
}

export interface Skipped {
  readonly name: string;
  readonly reason: string;
}

function isDefaultDomain(node: NodeProto): boolean {
  return node.domain === undefined || node.domain === "" || node.domain === "ai.onnx";
}

function attributeInt(node: NodeProto, name: string, fallback: number): number {
  const a = node.attribute.find((x) => x.name === name);
  return a?.i === undefined ? fallback : int(a.i);
}

/** The axes of the weight input (input 1) of a MatMul, Gemm or Conv node of that rank; undefined: not a weight use. */
function weightAxes(node: NodeProto, rank: number): WeightAxes | undefined {
  if (!isDefaultDomain(node)) return undefined;
  switch (node.op_type) {
    case "MatMul": // B [..., K, N]
      return rank >= 2 ? { channel: rank - 1, reduction: rank - 2 } : undefined;
    case "Gemm": // B [K, N], or [N, K] with transB
      if (rank !== 2) return undefined;
      return attributeInt(node, "transB", 0) ? { channel: 0, reduction: 1 } : { channel: 1, reduction: 0 };
    case "Conv": // W [O, I/group, k…]: output channels, then the input channels summed over
      return rank >= 3 ? { channel: 0, reduction: 1 } : undefined;
    default:
      return undefined;
  }
}

/** Every value name of a graph and its subgraphs (initializers, inputs, outputs, node inputs and outputs). */
export function allNames(graph: GraphProto, out = new Set<string>()): Set<string> {
  for (const t of graph.initializer) out.add(t.name ?? "");
  for (const v of [...graph.input, ...graph.output]) out.add(v.name ?? "");
  for (const node of graph.node) {
    for (const n of [...node.input, ...node.output]) out.add(n);
    for (const a of node.attribute) for (const g of [...(a.g ? [a.g] : []), ...a.graphs]) allNames(g, out);
  }
  return out;
}

/** Names read by nodes of subgraphs (If/Loop/Scan bodies): such uses are not weight uses. */
function subgraphInputs(graph: GraphProto, out: Set<string>): void {
  for (const node of graph.node) {
    for (const a of node.attribute) {
      for (const g of [...(a.g ? [a.g] : []), ...a.graphs]) {
        for (const n of g.node) for (const i of n.input) out.add(i);
        subgraphInputs(g, out);
      }
    }
  }
}

/**
 * The weights of the main graph, and the float tensors feeding a weight input that are left as they are, with why.
 * Before IR version 4 every initializer had to be listed as a graph input, so there such a listing does not make a
 * tensor replaceable.
 */
export function findWeights(graph: GraphProto, irVersion: number): { weights: Weight[]; skipped: Skipped[] } {
  const graphOutputs = new Set(graph.output.map((o) => o.name ?? ""));
  const tensors = new Map<string, { tensor: TensorProto; source: WeightSource }>();
  graph.initializer.forEach((t, index) => tensors.set(t.name ?? "", { tensor: t, source: { kind: "initializer", index } }));
  graph.node.forEach((node, i) => {
    const value = node.op_type === "Constant" && isDefaultDomain(node) ? node.attribute.find((a) => a.name === "value")?.t : undefined;
    if (value && node.output[0]) tensors.set(node.output[0], { tensor: value, source: { kind: "constant", node: i } });
  });
  const inputs = new Set(irVersion < 4 ? [] : graph.input.map((v) => v.name ?? ""));
  const nested = new Set<string>();
  subgraphInputs(graph, nested);
  const uses = new Map<string, { axes: WeightAxes | undefined; op: string }[]>();
  for (const node of graph.node) {
    node.input.forEach((name, k) => {
      const t = tensors.get(name);
      if (!t) return;
      const axes = k === 1 ? weightAxes(node, t.tensor.dims.length) : undefined;
      uses.set(name, [...(uses.get(name) ?? []), { axes, op: node.op_type ?? "" }]);
    });
  }
  const weights: Weight[] = [];
  const skipped: Skipped[] = [];
  for (const [name, list] of uses) {
    const firstAxes = list.find((u) => u.axes)?.axes;
    if (!firstAxes) continue;
    const { tensor, source } = tensors.get(name)!;
    const type = tensor.data_type;
    const reason =
      type !== DataType.FLOAT && type !== DataType.FLOAT16
        ? "not FLOAT or FLOAT16"
        : inputs.has(name)
          ? "also a graph input (a caller may replace it)"
          : graphOutputs.has(name) || nested.has(name)
            ? "also read outside a weight input"
            : list.some((u) => !u.axes || u.axes.channel !== firstAxes.channel || u.axes.reduction !== firstAxes.reduction)
              ? `also read outside a weight input or with other axes (${list.map((u) => u.op).join(", ")})`
              : tensorDims(tensor).some((d) => d === 0)
                ? "empty"
                : undefined;
    if (reason) skipped.push({ name, reason });
    else {
      const dims = tensorDims(tensor);
      const ops = [...new Set(list.map((u) => u.op))];
      const blockDims = ops.includes("Conv") ? [dims[0]!, dims.slice(1).reduce((a, b) => a * b, 1)] : dims;
      weights.push({ name, tensor, source, axes: firstAxes, ops, blockDims });
    }
  }
  return { weights, skipped };
}
