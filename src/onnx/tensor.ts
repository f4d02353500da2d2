// Tensor contents: the values of float32/float16 tensors (raw_data or typed fields) and new tensors in raw_data.
import { dequantize } from "../api/bulk.js";
import { DataType, dataTypeName, rawBytes } from "./dtypes.js";
import { OnnxError } from "./errors.js";
import { type GraphProto, type SparseTensorProto, type TensorProto, int, newTensor } from "./schema.js";

export function tensorDims(t: TensorProto): number[] {
  return t.dims.map(int);
}

export function tensorLength(t: TensorProto): number {
  return tensorDims(t).reduce((a, b) => a * b, 1);
}

/** Whether the tensor keeps its data in a file beside the model. */
export function isExternal(t: TensorProto): boolean {
  return t.data_location === 1 || t.external_data.length > 0;
}

/** The tensors a graph holds: initializers (sparse ones' values and indices too) and node attributes', subgraphs included. */
export function* graphTensors(graph: GraphProto): Generator<TensorProto> {
  const sparse = (s: SparseTensorProto) => [s.values, s.indices].filter((t): t is TensorProto => t !== undefined);
  yield* graph.initializer;
  for (const s of graph.sparse_initializer ?? []) yield* sparse(s);
  for (const node of graph.node) {
    for (const a of node.attribute) {
      if (a.t) yield a.t;
      yield* a.tensors ?? [];
      for (const s of [...(a.sparse_tensor ? [a.sparse_tensor] : []), ...(a.sparse_tensors ?? [])]) yield* sparse(s);
      for (const g of [...(a.g ? [a.g] : []), ...a.graphs]) yield* graphTensors(g);
    }
  }
}

/**
 * Refuses a model with any tensor in an external data file (not only a weight): the output, written elsewhere, would
 * point at a file that is not beside it.
 */
export function requireInternal(graph: GraphProto): void {
  for (const t of graphTensors(graph)) if (isExternal(t)) throw externalError(t.name ?? "(unnamed tensor)");
}

function externalError(name: string): OnnxError {
  return new OnnxError(name, "keeps its data in an external file; allowed: tensors stored inside the model (raw_data or typed fields)");
}

/** Bytes the tensor's data takes in its data type (4-bit types packed). */
export function tensorBytes(t: TensorProto): number {
  if (t.data_type === DataType.STRING) return t.string_data.reduce((n, s) => n + s.length, 0);
  return rawBytes(t.data_type ?? 0, tensorLength(t));
}

/** The exact values of a FLOAT or FLOAT16 tensor as float32. */
export function readFloats(name: string, t: TensorProto): Float32Array {
  const type = t.data_type ?? 0;
  if (isExternal(t)) throw externalError(name);
  const n = tensorLength(t);
  const raw = t.raw_data !== undefined && t.raw_data.length > 0 ? t.raw_data : undefined;
  let out: Float32Array;
  if (type === DataType.FLOAT) {
    out = raw ? new Float32Array(copy(raw).buffer) : Float32Array.from(t.float_data);
  } else if (type === DataType.FLOAT16) {
    const bits = raw ? new Uint16Array(copy(raw).buffer) : Uint16Array.from(t.int32_data);
    out = dequantize(bits, "binary16");
  } else {
    throw new OnnxError(name, `is ${dataTypeName(type)}; allowed: FLOAT or FLOAT16`);
  }
  if (out.length !== n) throw new OnnxError(name, `holds ${out.length} values but its shape [${tensorDims(t).join(", ")}] has ${n}`);
  return out;
}

/** An aligned copy of raw bytes (raw_data may be a view at any offset of the model's buffer; Buffer#slice copies nothing). */
function copy(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** A new tensor with its data in raw_data. */
export function rawTensor(name: string, type: number, dims: readonly number[], raw: Uint8Array): TensorProto {
  return newTensor({ name, data_type: type, dims: [...dims], raw_data: raw });
}

/** The tensor with new contents of its own type and shape in raw_data (typed fields cleared). */
export function withRawData(t: TensorProto, raw: Uint8Array): TensorProto {
  return newTensor({ ...t, raw_data: raw, float_data: [], int32_data: [], double_data: [], int64_data: [], uint64_data: [] });
}
