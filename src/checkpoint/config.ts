// The quantization configs that name a checkpoint's convention: config.json's `quantization_config` (DeepSeek
// "fp8", "compressed-tensors", gpt-oss "mxfp4", "modelopt") and ModelOpt's hf_quant_config.json. An unknown
// quant_method or format is an error: a reader that guessed would produce wrong numbers silently.
import { CheckpointError } from "./errors.js";

/** compressed-tensors formats whose weights minifloat decodes (the others are refused). */
export const CT_FORMATS = ["float-quantized", "nvfp4-pack-quantized", "mxfp4-pack-quantized"] as const;
/** ModelOpt quant_algo values minifloat decodes. */
export const MODELOPT_ALGOS = ["FP8", "NVFP4"] as const;

export interface CtWeights {
  readonly format: string;
  readonly numBits?: number;
  readonly type?: string;
  readonly strategy?: string;
  readonly groupSize?: number;
  readonly blockStructure?: readonly [number, number];
}

export type QuantConfig =
  | { readonly method: "fp8"; readonly block: readonly [number, number]; readonly ue8m0: boolean }
  | { readonly method: "compressed-tensors"; readonly groups: readonly CtWeights[]; readonly ignore: readonly string[] }
  | { readonly method: "modelopt"; readonly algo: (typeof MODELOPT_ALGOS)[number]; readonly groupSize: number; readonly exclude: readonly string[] }
  | { readonly method: "mxfp4"; readonly notConvert: readonly string[] };

const METHODS = ["fp8", "compressed-tensors", "mxfp4", "modelopt"];

/**
 * The convention a checkpoint's configs declare, or undefined when neither declares one. `config` is config.json,
 * `hf` hf_quant_config.json (either may be absent); `where` prefixes the file names in errors (a directory and "/").
 */
export function parseQuantConfig(config: unknown, hf: unknown, where: string): QuantConfig | undefined {
  const q = isObject(config) ? config.quantization_config : undefined;
  if (q !== undefined && !(isObject(q) && q.quant_method === "modelopt" && hf !== undefined)) {
    const at = `${where}config.json quantization_config`;
    if (!isObject(q)) throw new CheckpointError(at, `is ${JSON.stringify(q)}; allowed: an object with a quant_method`);
    switch (q.quant_method) {
      case "fp8":
        return deepseek(q, at);
      case "compressed-tensors":
        return compressedTensors(q, at);
      case "mxfp4":
        return { method: "mxfp4", notConvert: strings(q.modules_to_not_convert, `${at}.modules_to_not_convert`) };
      case "modelopt":
        return modelopt(q, at);
    }
    throw new CheckpointError(`${at}.quant_method`, `is ${JSON.stringify(q.quant_method)}; allowed: ${METHODS.join(", ")}`);
  }
  if (hf === undefined) return undefined;
  const at = `${where}hf_quant_config.json quantization`;
  if (!isObject(hf) || !isObject(hf.quantization)) throw new CheckpointError(at, "is missing; allowed: an object with quant_algo");
  return modelopt(hf.quantization, at);
}

function deepseek(q: Record<string, unknown>, at: string): QuantConfig {
  if (q.fmt !== undefined && q.fmt !== "e4m3") throw new CheckpointError(`${at}.fmt`, `is ${JSON.stringify(q.fmt)}; allowed: "e4m3"`);
  if (q.scale_fmt !== undefined && q.scale_fmt !== "ue8m0" && q.scale_fmt !== "float32")
    throw new CheckpointError(`${at}.scale_fmt`, `is ${JSON.stringify(q.scale_fmt)}; allowed: "ue8m0" or absent`);
  const b = q.weight_block_size ?? [128, 128];
  if (!Array.isArray(b) || b.length !== 2 || !b.every((d) => Number.isSafeInteger(d) && d > 0))
    throw new CheckpointError(`${at}.weight_block_size`, `is ${JSON.stringify(b)}; allowed: [rows, columns] of positive integers`);
  return { method: "fp8", block: [b[0], b[1]], ue8m0: q.scale_fmt === "ue8m0" };
}

function compressedTensors(q: Record<string, unknown>, at: string): QuantConfig {
  const groups = isObject(q.config_groups) ? Object.entries(q.config_groups) : [];
  const out: CtWeights[] = [];
  for (const [name, g] of groups) {
    if (!isObject(g) || !isObject(g.weights)) continue;
    const format = (g.format ?? q.format) as unknown;
    const where = `${at}.config_groups.${name}`;
    if (typeof format !== "string" || !(CT_FORMATS as readonly string[]).includes(format))
      throw new CheckpointError(`${where}.format`, `is ${JSON.stringify(format)}; allowed: ${CT_FORMATS.join(", ")}`);
    const w = g.weights;
    const bs = w.block_structure;
    out.push({
      format,
      ...(typeof w.num_bits === "number" && { numBits: w.num_bits }),
      ...(typeof w.type === "string" && { type: w.type }),
      ...(typeof w.strategy === "string" && { strategy: w.strategy }),
      ...(typeof w.group_size === "number" && { groupSize: w.group_size }),
      ...(Array.isArray(bs) && bs.length === 2 && { blockStructure: [bs[0], bs[1]] as const }),
    });
  }
  if (out.length === 0 && !(typeof q.format === "string" && (CT_FORMATS as readonly string[]).includes(q.format)))
    throw new CheckpointError(`${at}.format`, `is ${JSON.stringify(q.format)} with no weight groups; allowed: ${CT_FORMATS.join(", ")}`);
  return { method: "compressed-tensors", groups: out, ignore: strings(q.ignore, `${at}.ignore`) };
}

function modelopt(q: Record<string, unknown>, at: string): QuantConfig {
  const algo = q.quant_algo;
  if (!(MODELOPT_ALGOS as readonly unknown[]).includes(algo))
    throw new CheckpointError(`${at}.quant_algo`, `is ${JSON.stringify(algo)}; allowed: ${MODELOPT_ALGOS.join(", ")}`);
  const groupSize = q.group_size ?? 16;
  if (algo === "NVFP4" && groupSize !== 16) throw new CheckpointError(`${at}.group_size`, `is ${JSON.stringify(groupSize)}; allowed: 16`);
  return { method: "modelopt", algo: algo as "FP8" | "NVFP4", groupSize: 16, exclude: strings(q.exclude_modules, `${at}.exclude_modules`) };
}

function strings(v: unknown, at: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === "string")) throw new CheckpointError(at, `is ${JSON.stringify(v)}; allowed: a list of strings`);
  return v;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
