// Which logical tensors of an opened checkpoint (src/checkpoint/recognize.ts decides the scheme and checks the
// parts) GGUF stores without re-rounding, and under which names — those of llama.cpp's converter:
//
// - gpt-oss-mxfp4 `<p>` (`<p>_blocks` U8 [..., G, 16], byte k of a block holding element 2k low and 2k + 1 high,
//   with `<p>_scales` E8M0 [..., G]): MXFP4 `<p>.weight` [..., 32·G], not transposed. `gate_up_proj` is split into
//   `gate_proj.weight` (rows 0::2) and `up_proj.weight` (rows 1::2), and its float `gate_up_proj_bias` [..., 2I]
//   likewise into F32 `gate_proj.bias` (elements 0::2) and `up_proj.bias` (1::2).
// - compressed-tensors-mxfp4 `<p>.weight` (`weight_packed` U8 [N, K/2] low nibble first — the same byte order as
//   gpt-oss' blocks — with `weight_scale` E8M0 [N, K/32]): MXFP4 `<p>.weight` [N, K].
// - modelopt-nvfp4 `<p>.weight` (U8 [..., K/2] low nibble first, `weight_scale` E4M3 [..., K/16], F32 scalar
//   `weight_scale_2`, optional F32 scalar `input_scale`): NVFP4 `<p>.weight` [..., K] with the scale bytes copied,
//   `<p>.scale` (weight_scale_2) and `<p>.input_scale` beside it. Rows that are not whole 64-element GGUF blocks
//   cannot be repacked (nor MXFP4 rows that are not whole 32-element blocks): such a tensor is decoded like any other.
import type { CheckpointPart, CheckpointTensor } from "../../checkpoint/recognize.js";
import { GgufError } from "./errors.js";

/** MXFP4 from nibble pairs (gpt-oss, compressed-tensors), a split gpt-oss bias, ModelOpt NVFP4. */
export type PackedKind = "mxfp4" | "bias" | "nvfp4";

export interface PackedTensor {
  /** Name of the GGUF tensor. */
  readonly name: string;
  readonly kind: PackedKind;
  /** MXFP4: the packed codes and E8M0 scales parts; NVFP4: the weight and E4M3 scale parts (scalars: see sides). */
  readonly sources: readonly CheckpointPart[];
  /** bias: the logical bias tensor, read through the checkpoint. */
  readonly bias?: CheckpointTensor;
  /** ModelOpt: the F32 scalars written beside as `<p>.scale` and `<p>.input_scale`. */
  readonly sides?: readonly (readonly [CheckpointPart, string])[];
  /** Row-major shape of the GGUF tensor in elements. */
  readonly shape: readonly number[];
  /**
   * What it takes of the sources: first, first + step, ... of their rows (all dimensions but the packed last ones,
   * flattened), or for a bias of the elements of each row.
   */
  readonly pick: { readonly first: number; readonly step: number };
}

/**
 * The GGUF tensors that repack `t`: a list (empty: `t` is a bias another tensor's split consumes), a string saying
 * why a packed scheme is decoded instead, or undefined for every other tensor. `byName` finds the gpt-oss bias.
 */
export function repack(t: CheckpointTensor, byName: ReadonlyMap<string, CheckpointTensor>): PackedTensor[] | string | undefined {
  if (t.scheme === "gpt-oss-mxfp4") return gptOss(t, byName.get(`${t.name}_bias`));
  if (t.scheme === "modelopt-nvfp4") return modelOpt(t);
  if (t.scheme === "compressed-tensors-mxfp4") {
    const K = t.shape.at(-1)!;
    if (K % 32 !== 0) return `rows of ${K} elements are not whole MXFP4 blocks (32)`;
    return [{ name: t.name, kind: "mxfp4", sources: t.parts.slice(0, 2), shape: t.shape, pick: { first: 0, step: 1 } }];
  }
  const split = t.name.endsWith("gate_up_proj_bias") && byName.get(t.name.slice(0, -"_bias".length));
  return split && split.scheme === "gpt-oss-mxfp4" ? [] : undefined;
}

function gptOss(t: CheckpointTensor, bias: CheckpointTensor | undefined): PackedTensor[] {
  const sources = t.parts.slice(0, 2);
  if (!t.name.endsWith("gate_up_proj")) return [{ name: `${t.name}.weight`, kind: "mxfp4", sources, shape: t.shape, pick: { first: 0, step: 1 } }];
  const lead = t.shape.slice(0, -1);
  const rows = lead.at(-1);
  if (rows === undefined || rows % 2 !== 0) throw cannot(t, `has ${rows ?? "no"} gate_up rows; allowed: an even number (gate and up rows interleave)`);
  const base = t.name.slice(0, -"gate_up_proj".length);
  const parts = ["gate", "up"] as const;
  const half = [...lead.slice(0, -1), rows / 2];
  const weights = parts.map(
    (part, first): PackedTensor => ({
      name: `${base}${part}_proj.weight`,
      kind: "mxfp4",
      sources,
      shape: [...half, t.shape.at(-1)!],
      pick: { first, step: 2 },
    }),
  );
  if (!bias) return weights;
  if (!bias.decodable || bias.shape.join() !== lead.join())
    throw cannot(bias, `beside "${t.parts[0]!.name}"; allowed: a float bias [${lead.join(", ")}] (gate and up interleaved)`);
  return [
    ...weights,
    ...parts.map(
      (part, first): PackedTensor => ({
        name: `${base}${part}_proj.bias`,
        kind: "bias",
        sources: bias.parts,
        bias,
        shape: half,
        pick: { first, step: 2 },
      }),
    ),
  ];
}

function modelOpt(t: CheckpointTensor): PackedTensor[] | string {
  const K = t.shape.at(-1)!;
  if (K % 64 !== 0) return `rows of ${K} elements are not whole GGUF NVFP4 blocks (64)`;
  const [weight, scale, scale2] = t.parts;
  const input = t.parts.find((p) => p.role === "input scale");
  for (const s of [scale2!, input]) {
    if (s && (s.dtype !== "F32" || s.shape.reduce((a, b) => a * b, 1) !== 1))
      throw cannot(t, `with "${s.name}" ${s.dtype} [${s.shape.join(", ")}]; allowed: an F32 scalar`);
  }
  const prefix = t.name.replace(/\.weight$/, "");
  const sides: [CheckpointPart, string][] = [[scale2!, `${prefix}.scale`]];
  if (input) sides.push([input, `${prefix}.input_scale`]);
  return [{ name: t.name, kind: "nvfp4", sources: [weight!, scale!], sides, shape: t.shape, pick: { first: 0, step: 1 } }];
}

function cannot(t: CheckpointTensor, why: string): GgufError {
  return new GgufError(`tensor "${t.parts[0]!.name}"`, `${t.parts[0]!.dtype} [${t.parts[0]!.shape.join(", ")}] cannot be converted: ${why}`);
}
