// Sub-byte packed code arrays. FP4: two codes per byte, element 2j in the low nibble of byte j (OCP MX v1.0,
// safetensors F4, ONNX FLOAT4E2M1). FP6: a little-endian bit stream, element i at bits 6i…6i+5, so 4 codes fill
// 3 bytes. A trailing partial byte is zero-padded on pack; padding bits are ignored on unpack.
import { ArgumentTypeError, CodeRangeError, describe } from "../errors.js";
import type { Format } from "../format/model.js";
import { dequantizePackedWasm, packWasm, quantizePackedWasm, unpackWasm } from "../wasm/pack.js";
import { type QuantizeOptions, dequantize, runQuantize } from "./bulk.js";
import { decodeTable32 } from "../exact/tables.js";
import { OUT_KEYS, requireAttached, requireInput } from "./validate.js";
import { QUANTIZE_KEYS, planQuantize, wasmRandom } from "./plan.js";
import { checkOptions } from "../options.js";
import { type FormatLike, resolveFormat } from "./scalar.js";

export type PackedBits = 4 | 6;

/** Bytes holding n packed codes of `bits` bits: ceil(n · bits / 8). */
export function packedLength(n: number, bits: PackedBits): number {
  return Math.ceil((requireCount(n) * requireBits(bits)) / 8);
}

function requireBits(bits: unknown): PackedBits {
  if (bits !== 4 && bits !== 6) throw new CodeRangeError("bits", `got ${describe(bits)}; allowed: 4 or 6`);
  return bits;
}

function requireCount(n: unknown): number {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0 || n > 2 ** 32)
    throw new CodeRangeError("n", `got ${describe(n)}; allowed: an integer in [0, 2^32]`);
  return n;
}

function requireBytes<T extends Uint8Array | Float32Array>(
  a: unknown,
  type: { new (n: number): T; readonly name: string },
  length: number,
  argument: string,
  what: string,
): T {
  if (a === undefined && argument === "options.out") return new type(length);
  if (!(a instanceof type)) throw new ArgumentTypeError(argument, `got ${describe(a)}; allowed: a ${type.name} of length ${length} (${what})`);
  requireAttached(a, argument);
  if (a.length !== length) throw new CodeRangeError(argument, `has length ${a.length}; allowed: ${length} (${what})`);
  return a;
}

function packedFormat(fmt: FormatLike): Format {
  const f = resolveFormat(fmt);
  if (f.K !== 4 && f.K !== 6)
    throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; allowed: a 4- or 6-bit format (packed layouts exist for FP4 and FP6)`);
  return f;
}

/** Reference packing in TypeScript (used when the kernels are unavailable). */
export function packReference(codes: Uint8Array, bits: PackedBits, out: Uint8Array): Uint8Array {
  for (let i = 0; i < codes.length; i++) {
    if (codes[i]! >= 2 ** bits) throw new CodeRangeError(`codes[${i}]`, `is ${codes[i]}; allowed: a ${bits}-bit code in [0, ${2 ** bits - 1}]`);
  }
  out.fill(0);
  for (let i = 0; i < codes.length; i++) {
    // Bit offsets pass 2^31 from 358 M six-bit codes on: byte indices by division, not by a signed shift.
    const bit = i * bits;
    const byte = Math.floor(bit / 8);
    const word = codes[i]! << (bit & 7);
    out[byte]! |= word & 255;
    if (word > 255) out[byte + 1]! |= word >> 8;
  }
  return out;
}

/** Reference unpacking in TypeScript. */
export function unpackReference(bytes: Uint8Array, bits: PackedBits, n: number, out: Uint8Array): Uint8Array {
  for (let i = 0; i < n; i++) {
    const bit = i * bits;
    const byte = Math.floor(bit / 8);
    const word = bytes[byte]! | ((bit & 7) + bits > 8 ? bytes[byte + 1]! << 8 : 0);
    out[i] = (word >> (bit & 7)) & (2 ** bits - 1);
  }
  return out;
}

/** Packs 4- or 6-bit codes (one per Uint8Array element) into ceil(n·bits/8) bytes. */
export function packCodes(codes: Uint8Array, bits: PackedBits, options?: { out?: Uint8Array }): Uint8Array {
  if (!(codes instanceof Uint8Array)) throw new ArgumentTypeError("codes", `got ${describe(codes)}; allowed: a Uint8Array of ${describe(bits)}-bit codes`);
  requireAttached(codes, "codes");
  requireBits(bits);
  const out = requireBytes(
    checkOptions(options, OUT_KEYS).out,
    Uint8Array,
    packedLength(codes.length, bits),
    "options.out",
    `ceil(${codes.length}·${bits}/8) packed bytes`,
  );
  return packWasm(codes, bits, out) ?? packReference(codes, bits, out);
}

/** Unpacks n codes of `bits` bits from exactly ceil(n·bits/8) bytes into a Uint8Array (one code per element). */
export function unpackCodes(bytes: Uint8Array, bits: PackedBits, n: number, options?: { out?: Uint8Array }): Uint8Array {
  requireBits(bits);
  requireCount(n);
  requireBytes(bytes, Uint8Array, packedLength(n, bits), "bytes", `ceil(${n}·${bits}/8) packed bytes`);
  const out = requireBytes(checkOptions(options, OUT_KEYS).out, Uint8Array, n, "options.out", "one code per element");
  return unpackWasm(bytes, bits, n, out) ?? unpackReference(bytes, bits, n, out);
}

/**
 * Quantizes into a 4- or 6-bit format and returns the packed codes (the projection of quantize, then packCodes):
 * on the encode kernel, codes are packed chunk by chunk as they are produced.
 */
export function quantizePacked(src: Float32Array | Float64Array, fmt: FormatLike, options?: Omit<QuantizeOptions, "out"> & { out?: Uint8Array }): Uint8Array {
  const f = packedFormat(fmt);
  const bits = f.K as PackedBits;
  const n = requireInput(src).length;
  const { out: given, ...rest } = checkOptions(options, QUANTIZE_KEYS);
  const out = requireBytes(given, Uint8Array, packedLength(n, bits), "options.out", `ceil(${n}·${bits}/8) packed bytes`);
  const plan = planQuantize(src, f, rest);
  if (plan.run.kernel === "encodeF32") {
    const first = plan.random?.kind === "seed" ? plan.random.seedIndex : 0;
    const written = quantizePackedWasm(plan.src as Float32Array, plan.run.block, bits, out, wasmRandom(plan.random), first);
    if (written) return written;
  }
  return packCodes(runQuantize(plan) as Uint8Array, bits, { out });
}

/** Dequantizes n packed codes of a 4- or 6-bit format into float32 (values as dequantize gives them). */
export function dequantizePacked(bytes: Uint8Array, fmt: FormatLike, n: number, options?: { out?: Float32Array }): Float32Array {
  const f = packedFormat(fmt);
  const bits = f.K as PackedBits;
  requireCount(n);
  requireBytes(bytes, Uint8Array, packedLength(n, bits), "bytes", `ceil(${n}·${bits}/8) packed bytes`);
  const out = requireBytes(checkOptions(options, OUT_KEYS).out, Float32Array, n, "options.out", "one float32 per element");
  return dequantizePackedWasm(bytes, f, n, out, decodeTable32) ?? dequantize(unpackReference(bytes, bits, n, new Uint8Array(n)), f, { out });
}
