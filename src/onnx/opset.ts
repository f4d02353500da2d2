// The opset a rewritten graph needs, and whether raising the model's opset to it leaves every operator as it was.
import { OnnxError } from "./errors.js";
import { LATEST_OPSET, OP_HISTORY } from "./op-history.js";
import { type GraphProto, type ModelProto, type OperatorSetId, int } from "./schema.js";

const isDefault = (domain: string | undefined) => domain === undefined || domain === "" || domain === "ai.onnx";

/** The default-domain opset entry of a model. */
export function defaultOpset(model: ModelProto): OperatorSetId | undefined {
  return model.opset_import.find((o) => isDefault(o.domain));
}

function opTypes(graph: Pick<GraphProto, "node">, out: Set<string>): Set<string> {
  for (const node of graph.node) {
    if (isDefault(node.domain)) out.add(node.op_type ?? "");
    for (const a of node.attribute) for (const g of [...(a.g ? [a.g] : []), ...a.graphs]) opTypes(g, out);
  }
  return out;
}

/**
 * Raises the model's default opset to `needed` if it is lower and no operator the graph uses (DequantizeLinear,
 * which the rewrite adds, included) changed definition between the two; throws an OnnxError naming the operators
 * otherwise. Returns the opset before and after.
 */
export function requireOpset(model: ModelProto, needed: number, why: string): { from: number; to: number } {
  const entry = defaultOpset(model);
  const from = int(entry?.version);
  if (from >= needed) return { from, to: from };
  // The operators already there, in the graph and in local functions' bodies (a DequantizeLinear among them too:
  // only the one the rewrite adds is written for the new opset).
  const functions = model.functions;
  const used = opTypes(model.graph!, new Set());
  for (const f of functions) opTypes({ node: f.node ?? [] }, used);
  const changed = [...used]
    .map((op) => ({ op, versions: (OP_HISTORY[op] ?? []).filter((v) => v > from && v <= needed) }))
    .filter((c) => c.versions.length > 0 || !(c.op in OP_HISTORY));
  if (changed.length > 0 || from > LATEST_OPSET) {
    const list = changed.map((c) => (c.versions.length ? `${c.op} (changed at ${c.versions.join(", ")})` : `${c.op} (unknown operator)`)).join(", ");
    throw new OnnxError(
      "model",
      `is at opset ${from}; ${why} needs opset ${needed}, and raising it would change ${list}; allowed: a model at opset ≥ ${needed}, or fake mode`,
    );
  }
  model.opset_import = entry
    ? model.opset_import.map((o) => (o === entry ? { ...o, version: needed } : o))
    : [...model.opset_import, { domain: "", version: needed }];
  // A local function must import the model's version of a domain (onnx.checker): its default opset follows.
  for (const f of functions) {
    f.opset_import = (f.opset_import ?? []).map((o) => (isDefault(o.domain) && int(o.version) < needed ? { ...o, version: needed } : o));
  }
  return { from, to: needed };
}

/** The IR version an opset needs (ONNX's release table: opset 19 → IR 9, 21 → 10, 23 → 11). */
export function irVersionFor(opset: number): number {
  return opset >= 23 ? 11 : opset >= 21 ? 10 : opset >= 19 ? 9 : 0;
}
