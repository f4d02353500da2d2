// Sub-byte packing in Wasm (layouts in assembly/pack.ts): pack, unpack, quantize straight into packed bytes and
// decode straight from them.
import type { Format } from "../format/model.js";
import { BLOCK_WORDS, type WasmRandom } from "./encode.js";
import { kernels } from "./instance.js";
import { wasmTable, requireBelow } from "./decode.js";
import { CHUNK, allocBytesRaw, freeBytesRaw, keep, memoryBuffer, requireLive, stream, type WasmView } from "./memory.js";

/** Elements and bytes of one indivisible group: FP4 2 codes in 1 byte, FP6 4 codes in 3 bytes. */
export function packGroup(bits: 4 | 6): { group: number; groupBytes: number } {
  return bits === 4 ? { group: 2, groupBytes: 1 } : { group: 4, groupBytes: 3 };
}

/**
 * The kernels, once the source (named `argument` in errors) and output views are checked live, with getters that
 * re-create both views after memory growth; undefined when the kernels are unavailable.
 */
function liveKernels<S extends Uint8Array | Float32Array, O extends Uint8Array | Float32Array>(src: S, argument: string, out: O) {
  const k = kernels();
  if (!k) return undefined;
  requireLive(src, argument);
  requireLive(out, "options.out");
  return { k, srcNow: keep(src), outNow: keep(out) };
}

/** Checks codes < 2^bits, then packs them into out; undefined when the kernels are unavailable. */
export function packWasm(codes: Uint8Array, bits: 4 | 6, out: Uint8Array): Uint8Array | undefined {
  const live = liveKernels(codes, "codes", out);
  if (!live) return undefined;
  const { k, srcNow: codesNow, outNow } = live;
  requireBelow(k, codesNow(), 2 ** bits, "codes", `a ${bits}-bit code in [0, ${2 ** bits - 1}]`);
  const { group, groupBytes } = packGroup(bits);
  const pack = bits === 4 ? k.pack4 : k.pack6;
  stream(codesNow(), outNow(), (s, d, n) => pack(s, d, n), { group, srcGroupBytes: group, outGroupBytes: groupBytes });
  return outNow();
}

/**
 * Quantizes float32 src with the encode kernel's parameter block (encodeBlock: f, ρ and the random source) into
 * packed K-bit codes: per streamed chunk the kernel writes one code per byte into a chunk-sized buffer that stays in
 * cache and the packer reads it from there (one pass over the input, no code array). `first` is the absolute index
 * of src[0] for seeded random bits. Undefined when the kernels are unavailable.
 */
export function quantizePackedWasm(src: Float32Array, block: Int32Array, bits: 4 | 6, out: Uint8Array, random: WasmRandom, first = 0): Uint8Array | undefined {
  const live = liveKernels(src, "src", out);
  if (!live) return undefined;
  const { k, srcNow, outNow } = live;
  const extra = random !== undefined && "array" in random ? [keep<WasmView>(random.array)] : [];
  const { group, groupBytes } = packGroup(bits);
  const pack = bits === 4 ? k.pack4 : k.pack6;
  const codes = allocBytesRaw(CHUNK);
  try {
    // The block sits in the kernel's static data, so writing it cannot grow memory.
    const params = k.encodeParams();
    new Int32Array(memoryBuffer(), params, BLOCK_WORDS).set(block);
    stream(
      srcNow(),
      outNow(),
      (s, d, count, start, extraPtrs) => {
        k.encodeF32(params, s, codes, count, first + start, extraPtrs[0] ?? 0);
        pack(codes, d, count);
      },
      { group, outGroupBytes: groupBytes, extra: extra.map((a) => a()) },
    );
  } finally {
    freeBytesRaw(codes, CHUNK);
  }
  return outNow();
}

/** Unpacks n codes from packed bytes into out (one code per byte). */
export function unpackWasm(bytes: Uint8Array, bits: 4 | 6, n: number, out: Uint8Array): Uint8Array | undefined {
  const live = liveKernels(bytes, "bytes", out);
  if (!live) return undefined;
  const { k, srcNow: bytesNow, outNow } = live;
  const { group, groupBytes } = packGroup(bits);
  const unpack = bits === 4 ? k.unpack4 : k.unpack6;
  stream(bytesNow(), outNow(), (s, d, count) => unpack(s, d, count), { n, group, srcGroupBytes: groupBytes, outGroupBytes: group });
  return outNow();
}

/** Decodes n packed codes of f (K = 4 or 6) straight into float32 out. */
export function dequantizePackedWasm(
  bytes: Uint8Array,
  f: Format,
  n: number,
  out: Float32Array,
  decodeTable32: (f: Format) => Uint32Array,
): Float32Array | undefined {
  const live = liveKernels(bytes, "bytes", out);
  if (!live) return undefined;
  const { k, srcNow: bytesNow, outNow } = live;
  const t = wasmTable(k, f, decodeTable32);
  const { group, groupBytes } = packGroup(f.K as 4 | 6);
  const run =
    f.K === 4
      ? (s: number, d: number, c: number) => k.decodePacked4(s, d, c, t.planes, t.table)
      : t.affine >= 0
        ? (s: number, d: number, c: number) => k.decodePacked6Affine(s, d, c, t.affine, t.table, t.affineVariant)
        : (s: number, d: number, c: number) => k.decodePacked6(s, d, c, t.table);
  stream(bytesNow(), outNow(), run, { n, group, srcGroupBytes: groupBytes, outGroupBytes: 4 * group });
  return outNow();
}
