// The checkpoint conventions of other tools that minifloat reads and writes (docs/checkpoints.md has the sources,
// tensor names and formulas). `N` = output features, `K` = input features of a Linear weight `[N, K]`.
export const CHECKPOINT_SCHEMES = {
  /** DeepSeek-V3/R1, transformers FineGrainedFP8, Qwen3-FP8: W = e4m3(Wq) · weight_scale_inv[i/128, j/128]. */
  "deepseek-fp8": "F8_E4M3 weight, F32 weight_scale_inv per 128×128 block (multiplied)",
  /** compressed-tensors float-quantized: W = e4m3(Wq) · weight_scale, broadcast per tensor, row or 128×128 block. */
  "compressed-tensors-fp8": "F8_E4M3 weight, F32 weight_scale per tensor [1], channel [N, 1] or block [⌈N/128⌉, ⌈K/128⌉]",
  /** compressed-tensors nvfp4-pack-quantized: W = E2M1 · e4m3(weight_scale) / weight_global_scale. */
  "compressed-tensors-nvfp4": "U8 weight_packed (low nibble first), F8_E4M3 weight_scale per 16, F32 weight_global_scale (divided)",
  /** compressed-tensors mxfp4-pack-quantized: W = E2M1 · 2^(weight_scale − 127). */
  "compressed-tensors-mxfp4": "U8 weight_packed (low nibble first), U8 E8M0 weight_scale per 32",
  /** NVIDIA ModelOpt FP8: W = e4m3(Wq) · weight_scale (per tensor). */
  "modelopt-fp8": "F8_E4M3 weight, F32 scalar weight_scale",
  /** NVIDIA ModelOpt NVFP4: W = E2M1 · e4m3(weight_scale) · weight_scale_2. */
  "modelopt-nvfp4": "U8 weight (low nibble first), F8_E4M3 weight_scale per 16, F32 scalar weight_scale_2 (multiplied)",
  /** gpt-oss MoE experts: W = E2M1 · 2^(scales − 127), `*_blocks` [.., K/32, 16] + `*_scales` [.., K/32]. */
  "gpt-oss-mxfp4": "U8 *_blocks (element 2k in the low nibble of byte k), U8 E8M0 *_scales per 32",
} as const;

export type CheckpointScheme = keyof typeof CHECKPOINT_SCHEMES;

export const CHECKPOINT_SCHEME_NAMES = Object.keys(CHECKPOINT_SCHEMES) as CheckpointScheme[];
