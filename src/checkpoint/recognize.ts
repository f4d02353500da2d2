// Groups a checkpoint's stored tensors into logical tensors: a weight with its scale tensors, named by the
// convention they follow (docs/checkpoints.md). Names, dtypes and shapes identify a convention; the config, when
// present, must agree. Each group comes with the recipe decode.ts follows: element codes → values through a table,
// times a scale looked up on a block grid, times (or divided by) a global scalar.
import type { BlockLayout } from "../io/blocks.js";
import { scaleValues, elementValues } from "../block/mx.js";
import type { TensorInfo } from "../io/header.js";
import type { SafetensorsReader } from "../io/reader.js";
import { valueTableOrNaN } from "../exact/tables.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import type { QuantConfig } from "./config.js";
import { CheckpointError } from "./errors.js";
import type { CheckpointScheme } from "./schemes.js";

/** A logical tensor's scheme: another tool's convention, minifloat's own, a GGUF type ("gguf:Q8_0") or none. */
export type TensorScheme = CheckpointScheme | "minifloat-block" | "minifloat" | "plain" | `gguf:${string}`;

/** One stored tensor of a logical tensor. */
export interface CheckpointPart {
  readonly role: "weight" | "scale" | "global scale" | "input scale";
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** The file holding it (a shard's name for a model directory). */
  readonly file: string;
}

export interface CheckpointTensor {
  /** The weight's name (gpt-oss: without the `_blocks` suffix). */
  readonly name: string;
  readonly scheme: TensorScheme;
  /**
   * The element type: a safetensors dtype ("F8_E4M3", "F4" for packed E2M1), a recorded minifloat format, a
   * minifloat block scheme ("mxfp4") or a GGUF type.
   */
  readonly dtype: string;
  /** Logical shape (packed and blocked storage unfolded). */
  readonly shape: readonly number[];
  readonly length: number;
  /** Elements sharing one scale: [rows, columns] of the last two axes (per tensor: the whole matrix). */
  readonly blockShape?: readonly [number, number];
  /** The weight first, then its scale tensors. */
  readonly parts: readonly CheckpointPart[];
  /** Whether the values are floating-point (false for integer tensors, which are copied, never decoded). */
  readonly decodable: boolean;
}

/** A stored safetensors tensor and the file it came from. */
export interface Entry {
  readonly t: TensorInfo;
  readonly reader: SafetensorsReader;
  readonly file: string;
}

/** How decode.ts computes a logical tensor's values. */
export interface Recipe {
  readonly tensor: CheckpointTensor;
  readonly elements: Entry;
  /** "values": the dtype's own decoding; "codes": one code per stored element; "nibbles": two per byte, low first. */
  readonly kind: "values" | "codes" | "nibbles";
  readonly table?: Float64Array;
  /** The codes' format when no scale applies to them (readRounded rounds its decoded codes, NaN signs included). */
  readonly format?: Format;
  readonly scale?: {
    readonly entry: Entry;
    readonly table?: Float64Array;
    readonly block: readonly [number, number];
    readonly pow2: boolean;
    /** minifloat's own blocks: the scheme's NaN scale code (a block that held NaN or ±∞) decodes its block to NaN. */
    readonly nanBlocks?: boolean;
  };
  readonly global?: { readonly entry: Entry; readonly divide: boolean };
  /** minifloat's recorded second-level scale (1 when none). */
  readonly constant: number;
  /** Elements per row of the scale grid: the last dimension, or minifloat's recorded row_length (K = product of the dimensions after the first). */
  readonly rowLength?: number;
}

const E4M3 = valueTableOrNaN(format("float8_e4m3fn"));
const E8M0 = valueTableOrNaN(format("float8_e8m0fnu"));
const E2M1 = valueTableOrNaN(format("float4_e2m1fn"));
const FLOAT_SCALE = ["F32", "BF16", "F16"];
const NARROW = /^F[468]/;
/** Scale tensors that belong to a weight; one left over means the weight is missing or not understood. */
const SCALE_SUFFIXES = [".weight_scale_inv", ".weight_scale", ".weight_scale_2", ".weight_global_scale"];

/** Every logical tensor of the entries, in stored order. `raw`: other tools' conventions are not applied. */
export function recognize(entries: readonly Entry[], blocks: ReadonlyMap<string, BlockLayout>, config: QuantConfig | undefined, raw: boolean): Recipe[] {
  const byName = new Map(entries.map((e) => [e.t.name, e]));
  const used = new Set<string>();
  const out: Recipe[] = [];
  for (const [name, b] of blocks) {
    const e = byName.get(name)!;
    const s = byName.get(b.scales.name)!;
    out.push({
      tensor: tensor(name, "minifloat-block", b.scheme.name, e.t.shape, [1, b.scheme.blockSize], [part("weight", e), part("scale", s)]),
      elements: e,
      kind: "codes",
      table: elementValues(b.scheme),
      scale: { entry: s, table: scaleValues(b.scheme), block: [1, b.scheme.blockSize], pow2: false, nanBlocks: true },
      constant: b.tensorScale,
      rowLength: b.rowLength,
    });
    used.add(name).add(b.scales.name);
  }
  for (const e of raw ? [] : entries) {
    if (used.has(e.t.name)) continue;
    const r = foreign(e, byName, config);
    if (r) for (const p of r.tensor.parts) used.add(p.name);
    if (r) out.push(r);
  }
  for (const e of entries) {
    if (used.has(e.t.name)) continue;
    if (!raw) refuseOrphan(e, config);
    const t = e.t;
    const own = t.format !== undefined && ["F64", "F32", "F16", "BF16"].includes(t.dtype);
    const scheme = t.format === undefined || own ? "plain" : "minifloat";
    const dtype = t.format && t.info.format !== t.format.name ? t.format.name : t.dtype;
    // Narrow codes (up to 8 bits) decode through their value table, which readRounded gathers from in Wasm.
    const narrow = t.format !== undefined && !own && t.format.K <= 8;
    out.push({
      tensor: { ...tensor(t.name, scheme, dtype, t.shape, undefined, [part("weight", e)]), decodable: t.format !== undefined },
      elements: e,
      ...(narrow ? { kind: "codes" as const, table: valueTableOrNaN(t.format!), format: t.format! } : { kind: "values" as const }),
      constant: 1,
    });
  }
  const order = new Map(entries.map((e, i) => [e.t.name, i]));
  return out.sort((a, b) => order.get(a.elements.t.name)! - order.get(b.elements.t.name)!);
}

function tensor(
  name: string,
  scheme: TensorScheme,
  dtype: string,
  shape: readonly number[],
  blockShape: readonly [number, number] | undefined,
  parts: CheckpointPart[],
): CheckpointTensor {
  const length = shape.reduce((p, d) => p * d, 1);
  return { name, scheme, dtype, shape: [...shape], length, ...(blockShape && { blockShape }), parts, decodable: true };
}

function part(role: CheckpointPart["role"], e: Entry): CheckpointPart {
  return { role, name: e.t.name, dtype: e.t.dtype, shape: e.t.shape, file: e.file };
}

/** The group another tool's convention makes of this tensor, if it heads one. */
function foreign(e: Entry, byName: ReadonlyMap<string, Entry>, config: QuantConfig | undefined): Recipe | undefined {
  const t = e.t;
  const get = (suffix: string) => byName.get(base + suffix);
  let base = "";
  if (t.dtype === "F8_E4M3" && t.name.endsWith(".weight") && t.shape.length === 2) {
    base = t.name.slice(0, -".weight".length);
    const inv = get(".weight_scale_inv");
    const ws = get(".weight_scale");
    if (inv) return fp8(e, inv, undefined, "deepseek-fp8", config);
    if (ws)
      return fp8(
        e,
        ws,
        get(".input_scale"),
        config?.method === "modelopt" || (ws.t.shape.length === 0 && config?.method !== "compressed-tensors") ? "modelopt-fp8" : "compressed-tensors-fp8",
        config,
      );
    return undefined;
  }
  if (t.dtype === "U8" && t.name.endsWith(".weight_packed") && t.shape.length === 2) {
    base = t.name.slice(0, -".weight_packed".length);
    const ws = need(e, get(".weight_scale"), ".weight_scale", "compressed-tensors weight_packed");
    if (ws.t.dtype === "F8_E4M3") {
      const g = need(e, get(".weight_global_scale"), ".weight_global_scale", "compressed-tensors-nvfp4");
      return fp4(e, ws, { entry: g, divide: true }, get(".input_global_scale"), "compressed-tensors-nvfp4", 16, config);
    }
    return fp4(e, ws, undefined, undefined, "compressed-tensors-mxfp4", 32, config);
  }
  if (t.dtype === "U8" && t.name.endsWith(".weight") && t.shape.length === 2 && byName.get(`${t.name}_scale`)?.t.dtype === "F8_E4M3") {
    base = t.name.slice(0, -".weight".length);
    const g = need(e, get(".weight_scale_2"), ".weight_scale_2", "modelopt-nvfp4");
    return fp4(e, get(".weight_scale")!, { entry: g, divide: false }, get(".input_scale"), "modelopt-nvfp4", 16, config);
  }
  if (t.dtype === "U8" && t.name.endsWith("_blocks") && byName.has(`${t.name.slice(0, -7)}_scales`)) {
    base = t.name.slice(0, -"_blocks".length);
    return gptOss(e, get("_scales")!, base, config);
  }
  return undefined;
}

function need(e: Entry, found: Entry | undefined, suffix: string, scheme: string): Entry {
  if (found) return found;
  const base = e.t.name.replace(/(\.weight(_packed)?|_blocks)$/, "");
  throw new CheckpointError(`tensor "${e.t.name}"`, `is a ${scheme} weight without its scale: tensor "${base}${suffix}" is missing`);
}

/** The config, when present, must declare the convention the tensors follow. */
function agree(e: Entry, scheme: CheckpointScheme, config: QuantConfig | undefined, method: QuantConfig["method"], algo?: string): void {
  if (!config) return;
  const declared = config.method === "modelopt" ? `modelopt ${config.algo}` : config.method;
  if (config.method !== method || (algo !== undefined && config.method === "modelopt" && config.algo !== algo))
    throw new CheckpointError(`tensor "${e.t.name}"`, `is stored as ${scheme}, but the quantization config declares ${declared}`);
}

function checkScale(s: Entry, dtypes: readonly string[], shape: readonly number[], scheme: string, what = "scale"): void {
  if (!dtypes.includes(s.t.dtype)) throw new CheckpointError(`tensor "${s.t.name}"`, `has dtype ${s.t.dtype}; ${scheme} ${what}s are ${dtypes.join(" or ")}`);
  if (s.t.shape.join() !== shape.join())
    throw new CheckpointError(`tensor "${s.t.name}"`, `has shape [${s.t.shape.join(", ")}]; ${scheme} expects [${shape.join(", ")}] for its weight`);
}

/** F8_E4M3 weights with a float scale broadcast over a block grid: DeepSeek, compressed-tensors, ModelOpt FP8. */
function fp8(e: Entry, s: Entry, input: Entry | undefined, scheme: CheckpointScheme, config: QuantConfig | undefined): Recipe {
  const [n, k] = e.t.shape as [number, number];
  let block: [number, number];
  if (scheme === "deepseek-fp8") {
    agree(e, scheme, config, "fp8");
    block = config?.method === "fp8" ? [...config.block] : [128, 128];
    const grid = [Math.ceil(n / block[0]), Math.ceil(k / block[1])];
    if (!config && s.t.shape.join() !== grid.join())
      throw new CheckpointError(
        `tensor "${s.t.name}"`,
        `has shape [${s.t.shape.join(", ")}], not the [${grid.join(", ")}] of 128×128 blocks; without config.json quantization_config.weight_block_size the block size is unknown`,
      );
    checkScale(s, ["F32"], grid, scheme);
  } else if (scheme === "modelopt-fp8") {
    agree(e, scheme, config, "modelopt", "FP8");
    // One per-tensor scale: a scalar as ModelOpt writes it, or of shape [1] (under a ModelOpt config).
    checkScale(s, ["F32"], s.t.shape.join() === "1" ? [1] : [], scheme);
    block = [n, k];
  } else {
    agree(e, scheme, config, "compressed-tensors");
    const groups = config?.method === "compressed-tensors" ? config.groups.filter((g) => g.numBits === 8 && g.type === "float") : [];
    const sb = groups.find((g) => g.blockStructure)?.blockStructure ?? [128, 128];
    const shapes: Record<string, [number[], [number, number]]> = {
      tensor: [[1], [n, k]],
      channel: [
        [n, 1],
        [1, k],
      ],
      block: [
        [Math.ceil(n / sb[0]), Math.ceil(k / sb[1])],
        [sb[0], sb[1]],
      ],
    };
    const strategies = groups.length > 0 ? groups.map((g) => g.strategy ?? "") : Object.keys(shapes);
    const strategy = strategies.find((st) => shapes[st]?.[0].join() === s.t.shape.join());
    if (strategy === undefined) {
      const allowed = strategies.map((st) => (shapes[st] ? `[${shapes[st][0].join(", ")}] (${st})` : st)).join(" or ");
      throw new CheckpointError(`tensor "${s.t.name}"`, `has shape [${s.t.shape.join(", ")}]; compressed-tensors-fp8 expects ${allowed} for its weight`);
    }
    checkScale(s, FLOAT_SCALE, shapes[strategy]![0], scheme);
    block = shapes[strategy]![1];
  }
  const pow2 = config?.method === "fp8" && config.ue8m0;
  const parts = [part("weight", e), part("scale", s), ...(input ? [part("input scale", input)] : [])];
  return {
    tensor: tensor(e.t.name, scheme, "F8_E4M3", e.t.shape, block, parts),
    elements: e,
    kind: "codes",
    table: E4M3,
    scale: { entry: s, block, pow2 },
    constant: 1,
  };
}

/** Packed E2M1 weights [N, K/2] with E4M3 (per 16) or E8M0 (per 32) scales, and for NVFP4 a global scalar. */
function fp4(
  e: Entry,
  s: Entry,
  global: Recipe["global"],
  input: Entry | undefined,
  scheme: CheckpointScheme,
  size: number,
  config: QuantConfig | undefined,
): Recipe {
  const [n, half] = e.t.shape as [number, number];
  const k = 2 * half;
  if (scheme === "modelopt-nvfp4") agree(e, scheme, config, "modelopt", "NVFP4");
  else {
    agree(e, scheme, config, "compressed-tensors");
    const fmt = scheme === "compressed-tensors-nvfp4" ? "nvfp4-pack-quantized" : "mxfp4-pack-quantized";
    if (config?.method === "compressed-tensors" && !config.groups.some((g) => g.format === fmt))
      throw new CheckpointError(`tensor "${e.t.name}"`, `is stored as ${scheme}, but no config group has format ${fmt}`);
  }
  const e8m0 = size === 32;
  checkScale(s, e8m0 ? ["U8", "F8_E8M0"] : ["F8_E4M3"], [n, Math.ceil(k / size)], scheme);
  if (global) checkScale(global.entry, ["F32"], global.entry.t.shape.length === 0 ? [] : [1], scheme, "global scale");
  const block: [number, number] = [1, size];
  const parts = [part("weight", e), part("scale", s), ...(global ? [part("global scale", global.entry)] : []), ...(input ? [part("input scale", input)] : [])];
  return {
    tensor: tensor(e.t.name.replace(/\.weight_packed$/, ".weight"), scheme, "F4", [n, k], block, parts),
    elements: e,
    kind: "nibbles",
    table: E2M1,
    scale: { entry: s, table: e8m0 ? E8M0 : E4M3, block, pow2: false },
    ...(global && { global }),
    constant: 1,
  };
}

/** gpt-oss experts: `*_blocks` [..., G, 16] of packed E2M1 and `*_scales` [..., G] of E8M0, one per 32 elements. */
function gptOss(e: Entry, s: Entry, name: string, config: QuantConfig | undefined): Recipe {
  agree(e, "gpt-oss-mxfp4", config, "mxfp4");
  const shape = e.t.shape;
  if (shape.length < 2 || shape[shape.length - 1] !== 16)
    throw new CheckpointError(`tensor "${e.t.name}"`, `has shape [${shape.join(", ")}]; gpt-oss-mxfp4 blocks are [..., K/32, 16]`);
  checkScale(s, ["U8", "F8_E8M0"], shape.slice(0, -1), "gpt-oss-mxfp4");
  const logical = [...shape.slice(0, -2), shape[shape.length - 2]! * 32];
  const block: [number, number] = [1, 32];
  return {
    tensor: tensor(name, "gpt-oss-mxfp4", "F4", logical, block, [part("weight", e), part("scale", s)]),
    elements: e,
    kind: "nibbles",
    table: E2M1,
    scale: { entry: s, table: E8M0, block, pow2: false },
    constant: 1,
  };
}

/** A scale tensor no weight claimed, or (with a config) a narrow-float weight without its scale. */
function refuseOrphan(e: Entry, config: QuantConfig | undefined): void {
  const name = e.t.name;
  const suffix = SCALE_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) {
    const base = name.slice(0, -suffix.length);
    throw new CheckpointError(`tensor "${name}"`, `is a scale whose weight "${base}.weight" is missing or not a quantized weight of a known convention`);
  }
  if (!config) return;
  const narrow = NARROW.test(e.t.dtype) && e.t.info.format === e.t.format?.name;
  // Packed E2M1 weights are stored as U8: their names (or a ModelOpt NVFP4 config) say what they are.
  const packed =
    e.t.dtype === "U8" && (/(\.weight_packed|_blocks)$/.test(name) || (config.method === "modelopt" && config.algo === "NVFP4" && name.endsWith(".weight")));
  if (!narrow && !packed) return;
  const base = name.replace(/(\.weight(_packed)?|_blocks)$/, "");
  const missing: Record<QuantConfig["method"], string> = {
    fp8: `"${base}.weight_scale_inv"`,
    "compressed-tensors": `"${base}.weight_scale"`,
    modelopt: `"${base}.weight_scale"`,
    mxfp4: `"${base}_scales"`,
  };
  throw new CheckpointError(
    `tensor "${name}"`,
    `is a ${packed ? "packed E2M1" : e.t.dtype} weight without its scale: the ${config.method} config needs tensor ${missing[config.method]}`,
  );
}
