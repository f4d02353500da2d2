// The configuration entries the consuming tools read for each convention: config.json's quantization_config
// (transformers FineGrainedFP8 / DeepSeek, compressed-tensors, gpt-oss) or ModelOpt's hf_quant_config.json.
import type { Granularity, ProducedScheme } from "./scales.js";

export interface QuantizedModules {
  /** Module names of the quantized weights (a weight's name without ".weight"). */
  readonly quantized: readonly string[];
  /** Module names of the 2-D "*.weight" tensors left in high precision (lm_head, embeddings, --only exclusions). */
  readonly kept: readonly string[];
}

/** gpt-oss's own list (openai/gpt-oss-20b config.json): every module but the MoE experts stays BF16. */
const GPT_OSS_NOT_CONVERTED = ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"];

function compressedTensors(format: string, weights: Record<string, unknown>, ignore: readonly string[]): Record<string, unknown> {
  return {
    config_groups: {
      group_0: {
        format,
        input_activations: null,
        output_activations: null,
        targets: ["Linear"],
        weights: { actorder: null, dynamic: false, observer: "minmax", observer_kwargs: {}, symmetric: true, type: "float", ...weights },
      },
    },
    format,
    global_compression_ratio: null,
    ignore,
    kv_cache_scheme: null,
    quant_method: "compressed-tensors",
    quantization_status: "compressed",
  };
}

/** config.json's "quantization_config" of a scheme, or undefined for ModelOpt (which writes hf_quant_config.json). */
export function quantizationConfig(scheme: ProducedScheme, granularity: Granularity, m: QuantizedModules): Record<string, unknown> | undefined {
  switch (scheme) {
    case "deepseek-fp8":
      return { activation_scheme: "dynamic", fmt: "e4m3", quant_method: "fp8", weight_block_size: [128, 128] };
    case "compressed-tensors-fp8":
      return compressedTensors(
        "float-quantized",
        { num_bits: 8, strategy: granularity, group_size: null, block_structure: granularity === "block" ? [128, 128] : null },
        m.kept,
      );
    case "compressed-tensors-nvfp4":
      return compressedTensors("nvfp4-pack-quantized", { num_bits: 4, strategy: "tensor_group", group_size: 16, block_structure: null }, m.kept);
    case "compressed-tensors-mxfp4":
      return compressedTensors("mxfp4-pack-quantized", { num_bits: 4, strategy: "group", group_size: 32, block_structure: null }, m.kept);
    case "gpt-oss-mxfp4":
      return { modules_to_not_convert: GPT_OSS_NOT_CONVERTED, quant_method: "mxfp4" };
    case "modelopt-fp8":
    case "modelopt-nvfp4":
      return undefined;
  }
}

/** ModelOpt's hf_quant_config.json (the keys vLLM and TensorRT-LLM read), or undefined for the other schemes. */
export function hfQuantConfig(scheme: ProducedScheme, m: QuantizedModules): Record<string, unknown> | undefined {
  if (scheme !== "modelopt-fp8" && scheme !== "modelopt-nvfp4") return undefined;
  const nvfp4 = scheme === "modelopt-nvfp4";
  return {
    producer: { name: "minifloat" },
    quantization: {
      quant_algo: nvfp4 ? "NVFP4" : "FP8",
      kv_cache_quant_algo: null,
      ...(nvfp4 && { group_size: 16 }),
      exclude_modules: m.kept,
    },
  };
}
