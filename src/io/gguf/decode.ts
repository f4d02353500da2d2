// ggml block decoders (restated from ggml-common.h and ggml-quants.c): stored bytes of whole blocks → float32,
// bit-exact with ggml's dequantize_row_* and the gguf Python package's gguf.quants.dequantize. The loops below are
// the reference; the Wasm kernels (assembly/ggml.ts) run them when the kernels are on.
import { decode } from "../../api/scalar.js";
import { dequantize } from "../kernels.js";
import { GgufError } from "./errors.js";
import { type NibbleLayout, e2m1DecodeWasm, q8DecodeWasm } from "../../wasm/ggml.js";
import { keep } from "../../wasm/memory.js";
import type { GgmlType } from "./format.js";

/**
 * E2M1 values doubled, indexed by the 4-bit code (ggml's kvalues_mxfp4): ggml stores them as int8, so code 8
 * (E2M1 −0) is +0 and a product with it is +0.
 */
export const KVALUES: Float32Array = Float32Array.from({ length: 16 }, (_, n) => 2 * decode(n, "float4_e2m1fn") + 0);

/**
 * Half the E8M0 scale, 2^(e − 128), as ggml's float32 bits (e < 2 are subnormal). e = 255, NaN in the OCP MX
 * format, is the finite 2^127 here, as in ggml; products with |kvalue| ≥ 2 (and ≥ 4 for e = 254) overflow to ±∞.
 */
export const MXFP4_HALF_SCALES: Float32Array = new Float32Array(Uint32Array.from({ length: 256 }, (_, e) => (e < 2 ? 0x00200000 << e : (e - 1) << 23)).buffer);

/**
 * Half the NVFP4 sub-block scale: 0.5 × UE4M3 with the sign bit ignored (0x80…0xFF read as 0x00…0x7F); the bytes
 * 0x00 and 0x7F are 0, but 0xFF is 0.5 × 480 (the formula continued past E4M3's largest 448), as in ggml.
 */
export const NVFP4_HALF_SCALES: Float32Array = Float32Array.from({ length: 256 }, (_, b) => {
  if (b === 0 || b === 0x7f) return 0;
  const exponent = (b >> 3) & 15;
  const mantissa = b & 7;
  return 0.5 * (exponent === 0 ? mantissa * 2 ** -9 : (1 + mantissa / 8) * 2 ** (exponent - 7));
});

/** Where MXFP4 and NVFP4 blocks keep their scale bytes and nibbles (the decoders' and encode.ts's loops). */
export const MXFP4_LAYOUT: NibbleLayout = { width: 32, per: 1, stride: 17, head: 1 };
export const NVFP4_LAYOUT: NibbleLayout = { width: 16, per: 4, stride: 36, head: 4 };

/**
 * Decodes `blocks` whole blocks of type `type` from `bytes` (a fresh buffer, offset 0) into `out`; `tensor` names
 * the tensor and its file in errors.
 */
export function decodeBlocks(type: GgmlType, tensor: string, bytes: Uint8Array, blocks: number, out: Float32Array): void {
  switch (type.name) {
    case "F32":
      new Uint8Array(out.buffer, out.byteOffset, blocks * 4).set(bytes.subarray(0, blocks * 4));
      return;
    case "F16":
    case "BF16":
      dequantize(new Uint16Array(bytes.buffer, bytes.byteOffset, blocks), type.name === "F16" ? "binary16" : "bfloat16", { out: out.subarray(0, blocks) });
      return;
    case "Q8_0":
      decodeQ8_0(bytes, blocks, out);
      return;
    case "MXFP4":
      decodeMxfp4(bytes, blocks, out);
      return;
    case "NVFP4":
      decodeNvfp4(bytes, blocks, out);
      return;
  }
  throw new GgufError(tensor, `has unsupported ggml type ${type.name} (${type.id}); allowed for decoding: F32, F16, BF16, Q8_0, MXFP4, NVFP4`);
}

/** Q8_0 {f16 d; int8 qs[32]}: d · qs[j] in float32, exact (an 11-bit by 8-bit product fits 24 bits). */
function decodeQ8_0(bytes: Uint8Array, blocks: number, given: Float32Array): void {
  // out re-made after the scales' allocations (an out in Wasm memory is detached when they grow it).
  const target = keep(given);
  const scaleBits = new Uint16Array(blocks);
  for (let b = 0; b < blocks; b++) scaleBits[b] = bytes[34 * b]! | (bytes[34 * b + 1]! << 8);
  const scales = dequantize(scaleBits, "binary16");
  // A NaN scale's products are NaNs whose bits Wasm leaves to the engine: such blocks take the loop.
  if (allFinite(scales) && q8DecodeWasm(bytes, blocks, scales, target())) return;
  const out = target();
  const qs = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let b = 0; b < blocks; b++) {
    const d = scales[b]!;
    const at = 34 * b + 2;
    const to = 32 * b;
    for (let j = 0; j < 32; j++) out[to + j] = d * qs[at + j]!;
  }
}

/** MXFP4 {u8 e; u8 qs[16]}: element j is the low nibble of qs[j], element j + 16 its high nibble. */
function decodeMxfp4(bytes: Uint8Array, blocks: number, out: Float32Array): void {
  if (e2m1DecodeWasm(bytes, blocks, MXFP4_HALF_SCALES, out, MXFP4_LAYOUT)) return;
  for (let b = 0; b < blocks; b++) {
    const at = 17 * b;
    const d = MXFP4_HALF_SCALES[bytes[at]!]!;
    const to = 32 * b;
    for (let j = 0; j < 16; j++) {
      const q = bytes[at + 1 + j]!;
      out[to + j] = KVALUES[q & 15]! * d;
      out[to + j + 16] = KVALUES[q >> 4]! * d;
    }
  }
}

/** NVFP4 {u8 d[4]; u8 qs[32]}: sub-block s holds element j in the low nibble of qs[8s + j], j + 8 in its high one. */
function decodeNvfp4(bytes: Uint8Array, blocks: number, out: Float32Array): void {
  if (e2m1DecodeWasm(bytes, blocks, NVFP4_HALF_SCALES, out, NVFP4_LAYOUT)) return;
  for (let b = 0; b < blocks; b++) {
    const at = 36 * b;
    for (let s = 0; s < 4; s++) {
      const d = NVFP4_HALF_SCALES[bytes[at + s]!]!;
      const from = at + 4 + 8 * s;
      const to = 64 * b + 16 * s;
      for (let j = 0; j < 8; j++) {
        const q = bytes[from + j]!;
        out[to + j] = KVALUES[q & 15]! * d;
        out[to + j + 8] = KVALUES[q >> 4]! * d;
      }
    }
  }
}

function allFinite(values: Float32Array): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) return false;
  return true;
}
