// The opset a rewritten graph needs, and whether raising the model's opset to it leaves every operator as it was.
import { OnnxError } from "./errors.js";
import { LATEST_OPSET, OP_HISTORY } from "./op-history.js";
import { type GraphProto, type ModelProto, int } from "./schema.js";

/** The default-domain opset entry of a model. */
export function defaultOpset(model: ModelProto): { domain?: string; version?: number | { toNumber(): number } } | undefined {
  return model.opset_import.find((o) => o.domain === undefined || o.domain === "" || o.domain === "ai.onnx");
}

function opTypes(graph: GraphProto, out: Set<string>): Set<string> {
  for (const node of graph.node) {
    if (node.domain === undefined || node.domain === "" || node.domain === "ai.onnx") out.add(node.op_type ?? "");
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
  const changed = [...opTypes(model.graph!, new Set(["DequantizeLinear"]))]
    .filter((op) => op !== "DequantizeLinear")
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
  return { from, to: needed };
}

/** The IR version an opset needs (ONNX's release table: opset 19 → IR 9, 21 → 10, 23 → 11). */
export function irVersionFor(opset: number): number {
  return opset >= 23 ? 11 : opset >= 21 ? 10 : opset >= 19 ? 9 : 0;
}
