// Recognises the packed 4-bit tensors of two checkpoint conventions that GGUF stores without re-rounding, by
// tensor names, dtypes and shapes alone (config.json and hf_quant_config.json are not needed to tell them apart):
//
// - gpt-oss MXFP4 experts: `<p>_blocks` U8 [..., G, 16] (byte k of a block: element 2k low nibble, 2k + 1 high)
//   with `<p>_scales` U8 [..., G] (E8M0). As llama.cpp's converter: `<p>.weight` MXFP4 [..., 32·G], not
//   transposed; `gate_up_proj` is split into `gate_proj.weight` (rows 0::2) and `up_proj.weight` (rows 1::2), and
//   its float `gate_up_proj_bias` [..., 2I] likewise into F32 `gate_proj.bias` (0::2) and `up_proj.bias` (1::2).
// - ModelOpt NVFP4: `<p>.weight` U8 [..., K/2] (low nibble first), `<p>.weight_scale` F8_E4M3 [..., K/16],
//   `<p>.weight_scale_2` F32 scalar, optional `<p>.input_scale` F32 scalar. As llama.cpp: `<p>.weight` NVFP4
//   [..., K] with the E4M3 scale bytes copied, `<p>.scale` (weight_scale_2) and `<p>.input_scale` beside it.
import type { TensorInfo } from "../header.js";
import { GgufError } from "./errors.js";

export type PackedKind = "gpt-oss-mxfp4" | "gpt-oss-bias" | "modelopt-nvfp4";

export interface PackedTensor {
  /** Name of the GGUF tensor. */
  readonly name: string;
  readonly kind: PackedKind;
  /** gpt-oss: [blocks, scales] or [bias]; ModelOpt: [weight, weight_scale, weight_scale_2, input_scale?]. */
  readonly sources: readonly TensorInfo[];
  /** Row-major shape of the GGUF tensor in elements. */
  readonly shape: readonly number[];
  /**
   * What it takes of the sources: first, first + step, ... of their rows (all dimensions but the packed last ones,
   * flattened), or for gpt-oss-bias of the elements of each row.
   */
  readonly pick: { readonly first: number; readonly step: number };
}

/** The packed tensors among `tensors`, in file order; a tensor that looks like one but is malformed is an error. */
export function recognisePacked(tensors: readonly TensorInfo[]): PackedTensor[] {
  const byName = new Map(tensors.map((t) => [t.name, t]));
  const out: PackedTensor[] = [];
  for (const t of tensors) {
    if (t.dtype !== "U8") continue;
    if (t.name.endsWith("_blocks")) out.push(...gptOss(t, byName));
    else if (t.name.endsWith(".weight") && byName.get(`${t.name}_scale`)?.dtype === "F8_E4M3") out.push(modelOpt(t, byName));
  }
  return out;
}

function gptOss(blocks: TensorInfo, byName: ReadonlyMap<string, TensorInfo>): PackedTensor[] {
  const prefix = blocks.name.slice(0, -"_blocks".length);
  const scales = byName.get(`${prefix}_scales`);
  const lead = blocks.shape.slice(0, -2);
  if (!scales) return [];
  if (blocks.shape.length < 3 || blocks.shape.at(-1) !== 16 || scales.dtype !== "U8" || !same(scales.shape, blocks.shape.slice(0, -1))) {
    throw cannot(
      blocks,
      `with "${scales.name}" ${scales.dtype} [${scales.shape.join(", ")}]; allowed: gpt-oss MXFP4 blocks U8 [..., G, 16] with scales U8 [..., G]`,
    );
  }
  const shape = [...lead, 32 * blocks.shape.at(-2)!];
  const sources = [blocks, scales];
  if (!prefix.endsWith("gate_up_proj")) return [{ name: `${prefix}.weight`, kind: "gpt-oss-mxfp4", sources, shape, pick: { first: 0, step: 1 } }];
  const rows = lead.at(-1)!;
  if (rows % 2 !== 0) throw cannot(blocks, `has ${rows} gate_up rows; allowed: an even number (gate and up rows interleave)`);
  const base = prefix.slice(0, -"gate_up_proj".length);
  const parts = ["gate", "up"] as const;
  const half = [...lead.slice(0, -1), rows / 2];
  const weights = parts.map(
    (part, first): PackedTensor => ({
      name: `${base}${part}_proj.weight`,
      kind: "gpt-oss-mxfp4",
      sources,
      shape: [...half, shape.at(-1)!],
      pick: { first, step: 2 },
    }),
  );
  const bias = byName.get(`${prefix}_bias`);
  if (!bias) return weights;
  if (bias.format === undefined || !same(bias.shape, lead)) {
    throw cannot(bias, `beside "${blocks.name}"; allowed: a float bias [${lead.join(", ")}] (gate and up interleaved)`);
  }
  return [
    ...weights,
    ...parts.map(
      (part, first): PackedTensor => ({ name: `${base}${part}_proj.bias`, kind: "gpt-oss-bias", sources: [bias], shape: half, pick: { first, step: 2 } }),
    ),
  ];
}

function modelOpt(weight: TensorInfo, byName: ReadonlyMap<string, TensorInfo>): PackedTensor {
  const scale = byName.get(`${weight.name}_scale`)!;
  const scale2 = byName.get(`${weight.name}_scale_2`);
  const input = byName.get(weight.name.replace(/weight$/, "input_scale"));
  const K = 2 * (weight.shape.at(-1) ?? 0);
  if (weight.shape.length < 2 || !same(scale.shape, [...weight.shape.slice(0, -1), K / 16])) {
    throw cannot(
      weight,
      `with "${scale.name}" [${scale.shape.join(", ")}]; allowed: ModelOpt NVFP4 weight U8 [..., K/2] with weight_scale F8_E4M3 [..., K/16]`,
    );
  }
  if (K % 64 !== 0) throw cannot(weight, `has rows of ${K} elements; allowed: a multiple of 64 (the GGUF NVFP4 block)`);
  for (const s of [scale2, input]) {
    if (s && (s.dtype !== "F32" || s.length !== 1)) throw cannot(weight, `with "${s.name}" ${s.dtype} [${s.shape.join(", ")}]; allowed: an F32 scalar`);
  }
  if (!scale2) throw cannot(weight, `has no "${weight.name}_scale_2"; allowed: ModelOpt NVFP4 with its F32 weight_scale_2`);
  return {
    name: weight.name,
    kind: "modelopt-nvfp4",
    sources: [weight, scale, scale2, ...(input ? [input] : [])],
    shape: [...weight.shape.slice(0, -1), K],
    pick: { first: 0, step: 1 },
  };
}

function same(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

function cannot(t: TensorInfo, why: string): GgufError {
  return new GgufError(`tensor "${t.name}"`, `${t.dtype} [${t.shape.join(", ")}] cannot be converted: ${why}`);
}
