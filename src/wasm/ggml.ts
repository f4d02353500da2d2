// Host side of assembly/ggml.ts: the element passes of ggml's reference block quantizers over float32 values
// streamed through Wasm memory, once src/io/gguf/encode.ts chose every block's scale, and ggml's block decoders
// (src/io/gguf/encode.ts and decode.ts hold the TypeScript loops they agree with).
import { kernels } from "./instance.js";
import { keep, stream, withUploaded } from "./memory.js";

/** Q8_0's int8 elements into blocks of 34 bytes (qs at +2) with ids[b] = 1/d; false when the kernels are off. */
export function q8ElementsWasm(values: Float32Array, ids: Float32Array, out: Uint8Array): boolean {
  const k = kernels();
  if (!k) return false;
  const [xs, os] = [keep(values), keep(out)];
  withUploaded(ids, (ptr) =>
    stream(xs(), os(), (src, dst, count, first) => k.q8Elements(src, count / 32, ptr + (first / 32) * 4, dst), { group: 32, outGroupBytes: 34 }),
  );
  return true;
}

/** ggml's UE4M3 scale bytes of fl32(amax / divisor) (assembly/ggml.ts ue4m3Scales); undefined when the kernels are off. */
export function ue4m3ScalesWasm(amax: Float32Array, divisor: number): Uint8Array | undefined {
  const k = kernels();
  if (!k) return undefined;
  const out = new Uint8Array(amax.length);
  stream(amax, out, (src, dst, count) => k.ue4m3Scales(src, count, divisor, dst));
  return out;
}

/** Where a GGUF block type keeps its nibbles: sub-blocks per block, block bytes, scale bytes before the nibbles. */
export interface NibbleLayout {
  readonly width: 16 | 32;
  readonly per: number;
  readonly stride: number;
  readonly head: number;
}

/** E2M1 nibbles of sub-blocks of `width` values under half-scales d (one per sub-block); false when the kernels are off. */
export function e2m1NearestWasm(values: Float32Array, d: Float32Array, out: Uint8Array, layout: NibbleLayout): boolean {
  const k = kernels();
  if (!k) return false;
  const { width, per, stride, head } = layout;
  const [xs, os] = [keep(values), keep(out)];
  withUploaded(d, (ptr) =>
    stream(xs(), os(), (src, dst, count, first) => k.e2m1Nearest(src, count / width, width, ptr + (first / width) * 4, dst, per, stride, head), {
      group: width * per,
      outGroupBytes: stride,
    }),
  );
  return true;
}

/**
 * E2M1 codes (0…15, one byte each, or two per byte in element order with `paired`) packed into MXFP4/NVFP4 blocks'
 * nibbles; false when the kernels are off.
 */
export function e2m1PackWasm(codes: Uint8Array, out: Uint8Array, layout: NibbleLayout, paired = false): boolean {
  const k = kernels();
  if (!k) return false;
  const { width, per, stride, head } = layout;
  const group = width * per;
  const sizes = paired ? { n: 2 * codes.length, srcGroupBytes: group / 2 } : {};
  stream(codes, out, (src, dst, count) => k.e2m1Pack(src, count / width, width, dst, per, stride, head, paired ? 1 : 0), {
    group,
    outGroupBytes: stride,
    ...sizes,
  });
  return true;
}

/**
 * Decodes `blocks` whole MXFP4/NVFP4 blocks of `bytes` into out (float32), each sub-block's half-scale from the
 * 256-entry table by its scale byte; false when the kernels are off.
 */
export function e2m1DecodeWasm(bytes: Uint8Array, blocks: number, halfScales: Float32Array, out: Float32Array, layout: NibbleLayout): boolean {
  const k = kernels();
  if (!k) return false;
  const { width, per, stride, head } = layout;
  const elements = width * per;
  const [bs, os] = [keep(bytes), keep(out)];
  withUploaded(halfScales, (table) =>
    stream(bs(), os(), (src, dst, count) => k.e2m1Decode(src, count / width, width, table, dst, per, stride, head), {
      n: blocks * elements,
      group: elements,
      srcGroupBytes: stride,
    }),
  );
  return true;
}

/** Decodes `blocks` Q8_0 blocks of `bytes` into out with the blocks' scales d (finite float32); false when the kernels are off. */
export function q8DecodeWasm(bytes: Uint8Array, blocks: number, d: Float32Array, out: Float32Array): boolean {
  const k = kernels();
  if (!k) return false;
  const [bs, os] = [keep(bytes), keep(out)];
  withUploaded(d, (ptr) =>
    stream(bs(), os(), (src, dst, count, first) => k.q8Decode(src, count / 32, ptr + (first / 32) * 4, dst), { n: blocks * 32, group: 32, srcGroupBytes: 34 }),
  );
  return true;
}
