// Dequantize in Wasm: each format's decode table (from the exact core) is uploaded once and applied by a kernel, or
// for 16-bit formats with a rule (bfloat16's shift, the IEEE rule) only constants derived from its parameters; so
// are the 16-bit conversion tables of dequantize to binary16/bfloat16 and convert.
import { binary32Prefix, maxFiniteBinade, nanEntry32 } from "../exact/tables.js";
import { float32Bits } from "../exact/value.js";
import { CodeRangeError } from "../errors.js";
import type { Format } from "../format/model.js";
import type { ResolvedProjection } from "../exact/projection.js";
import { callKernel } from "./abi.js";
import { quantizeWasm } from "./encode.js";
import { type Kernels, kernels } from "./instance.js";
import { allocBytesRaw, freeBytesRaw, keep, memoryBuffer, requireLive, stream, type WasmView } from "./memory.js";

/** A format's float32 table, and the kernel-specific forms of it that apply, in Wasm memory. */
export interface WasmTable {
  /** The float32 bits of every code; for formats decoded by a rule, its constants (ieee) or −1 (shift): no table. */
  readonly table: number;
  readonly bytes: number;
  /** ≤ 4-bit formats: 64 bytes, byte b of the 16 entries at planes + 16·b; else −1. */
  readonly planes: number;
  /** 5…8-bit formats with an affine form (see affineForm); else −1. */
  readonly affine: number;
  /** The affine kernels' variant bits for the form (an odd code, one window). */
  readonly affineVariant: number;
  /** 9…16-bit formats whose float32 bits are code << shift (binary32's prefixes: bfloat16; no table); else undefined. */
  readonly shift?: number;
  /** 9…16-bit formats that decodeIeee16 decodes (binary16; no table): its parameter block; else −1. */
  readonly ieee: number;
  /** Whether the IEEE rule has a run of NaN codes (decodeIeee16NaNs: P3109, cfloat16_uhp). */
  readonly ieeeNaNs?: boolean;
}

/** Tables held at once (16-bit formats take 256 KiB each); the least recently used one is freed beyond it. */
const MAX_TABLES = 32;
/**
 * Uploaded tables, least recently used first: float32 tables by Format identity (equal parameters are one interned
 * Format), conversion tables by the table array (the exact core caches one per formats and projection).
 */
const tables = new Map<Format | Uint16Array, { readonly table: number; readonly bytes: number }>();

/** The most frequent element of a list. */
function mode<T>(xs: T[]): T {
  const counts = new Map<T, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

/** Bytes of the affine form: 13 rows of 16 bytes (assembly/decode.ts, F_*). */
const AFFINE_BYTES = 208;
/** Variant bits of the affine kernels (assembly/decode.ts AFFINE_*). */
const AFFINE_ODD = 1;
const AFFINE_ONE_WINDOW = 2;

/**
 * The affine form of a table of 16-bit outputs (binary16 or bfloat16 bits, or the top halves of float32 bits) of a
 * 5…8-bit format, for decodeAffine/decodeAffineTo16: out(c) = m·step + offset + R[m] + 0x8000·(c negative)
 * (mod 2^16), where m is the magnitude and R is nonzero only within one window of 16 magnitudes taken cyclically
 * (float8_e4m3fn: its NaN, zero and subnormals) or else only on the 16 lowest and 16 highest magnitudes (zero,
 * subnormals, ∞, NaN), and one code may have its own residual (P3109's NaN in −0's place). step and offset are the
 * most common ones of the table (its normal binades). The kernel's rule is evaluated here on every code, so a table
 * is accepted only if the kernel reproduces it bit for bit; undefined otherwise. `variant` holds the kernel's
 * AFFINE_* bits.
 */
export function affineForm(values: Uint16Array, f: Pick<Format, "K" | "signed">): { bytes: Uint8Array; variant: number } | undefined {
  const { K } = f;
  if (K < 5 || K > 8 || values.length !== 2 ** K) return undefined;
  const mags = f.signed ? 2 ** (K - 1) : 2 ** K;
  const step = mode(Array.from({ length: mags - 1 }, (_, m) => (values[m + 1]! - values[m]!) & 0xffff));
  const offset = mode(Array.from({ length: mags }, (_, m) => (values[m]! - m * step) & 0xffff));
  const residual = (m: number) => (values[m]! - m * step - offset) & 0xffff;
  const irregular = Array.from({ length: mags }, (_, m) => m).filter((m) => residual(m) !== 0);
  const cyclic = (m: number, from: number) => (m - from + mags) % mags;
  const window = Array.from({ length: mags }, (_, w) => w).find((w) => irregular.every((m) => cyclic(m, w) < 16));
  const top = Math.max(16, mags - 16);
  const inWindows = window !== undefined ? (m: number) => cyclic(m, window) < 16 : (m: number) => m < 16 || m >= top;
  if (!irregular.every(inWindows)) return undefined;
  const odd: number[] = [];
  for (let c = 0; c < values.length; c++) {
    const m = c & (mags - 1);
    if (((m * step + offset + (inWindows(m) ? residual(m) : 0) + (c >= mags ? 0x8000 : 0)) & 0xffff) !== values[c]) odd.push(c);
  }
  if (odd.length > 1) return undefined;
  const form = new Uint8Array(AFFINE_BYTES);
  form.fill(mags - 1, 0, 16);
  form.fill(top, 16, 32);
  for (let j = 0; j < 16; j++) {
    const first = window !== undefined ? (window + j) % mags : j;
    const low = j < mags ? residual(first) : 0;
    const high = window === undefined && top + j < mags ? residual(top + j) : 0;
    [form[32 + j], form[48 + j], form[64 + j], form[80 + j]] = [low & 255, low >> 8, high & 255, high >> 8];
  }
  new Uint16Array(form.buffer, 96, 16).fill(step & 0xffff, 0, 8).fill(offset, 8, 16);
  form.fill(f.signed ? 0x80 - mags : 0, 128, 144);
  form.fill(f.signed ? 0x80 : 0, 176, 192);
  form.fill(window ?? 0, 192, 208);
  if (odd.length) {
    const oddResidual = (values[odd[0]!]! - (odd[0]! & (mags - 1)) * step - offset) & 0xffff;
    form.fill(odd[0]!, 144, 160);
    [form[160], form[161]] = [oddResidual & 255, oddResidual >> 8];
  }
  return { bytes: form, variant: (odd.length ? AFFINE_ODD : 0) | (window !== undefined ? AFFINE_ONE_WINDOW : 0) };
}

/**
 * Whether every code of f decodes to float32 bits code << (32 − K): binary32's top K bits (binary32Prefix) with its ∞
 * and NaNs too, signs and payloads kept (bfloat16).
 */
function decodesByShift(f: Format): boolean {
  return binary32Prefix(f) && ieeeSpecials(f)?.fraction === 0x7fffff;
}

/** decodeIeee16's constants for ∞ and NaN (assembly/decode.ts IEEE_INF_BELOW, IEEE_FRACTION, IEEE_NAN_*). */
interface IeeeSpecials {
  readonly infBelow: number;
  readonly fraction: number;
  readonly nanFrom: number;
  readonly nanCount: number;
  readonly nanBits: number;
}

/**
 * How decodeIeee16 produces f's zeros, ∞ and NaNs as decodeTable32 holds them, read off the parameters, or undefined
 * when it cannot: either binary16's (∞ at the start of the top binade, then NaNs keeping their trailing bits as
 * payload and their signs), or ∞ (if any) at the top finite magnitude + 1 and the NaNs one run of codes with one bit
 * pattern: an unsigned format's high NaNs, or a signed format's code in −0's place (P3109). Negative codes are their
 * magnitude's value with the sign bit set, so a signed format whose policy drops the signs of zeros and NaNs must
 * have neither a negative zero nor negative NaNs.
 */
function ieeeSpecials(f: Format): IeeeSpecials | undefined {
  const mags = 2 ** f.magnitudeBits;
  const signedZeros = f.policy.signedZeroAndNaN || (f.negativeZero === "nan" && f.subnormals === "gradual");
  if (f.signed && !signedZeros) return undefined;
  const payload = f.infinity && f.policy.signedZeroAndNaN && f.policy.nanPayload !== "drop";
  if (payload && f.highNaNs > 0) {
    const ieee = f.infMagnitude % 2 ** f.trailingBits === 0 && f.infMagnitude + 1 + f.highNaNs === mags && f.negativeZero === "zero";
    return ieee ? { infBelow: f.infMagnitude - 1, fraction: 0x7fffff, nanFrom: 0, nanCount: 0, nanBits: 0 } : undefined;
  }
  if (f.signed && f.highNaNs > 0) return undefined;
  const [nanFrom, nanCount] = !f.signed ? [f.highNaNStart, f.highNaNs] : f.negativeZero === "nan" ? [f.signBit, 1] : [0, 0];
  // ∞, if any, is the magnitude below the high NaNs (the model's layout).
  const infBelow = (f.infinity ? f.infMagnitude : f.highNaNStart) - 1;
  // One pattern for the run: NaNs keep payloads only above, so every high NaN is the quiet NaN (decodeTable32).
  return { infBelow, fraction: 0, nanFrom, nanCount, nanBits: nanCount ? nanEntry32(f, nanFrom) : 0 };
}

/** Bytes of decodeIeee16's parameter block: 14 splatted words (assembly/decode.ts); the word of IEEE_NAN_COUNT. */
const IEEE_BYTES = 224;
const IEEE_NAN_COUNT = 40;
/** The word of IEEE_PAYLOAD_FORM in decodeIeee16's parameter block. */
export const IEEE_PAYLOAD_WORD = 52;

/**
 * The parameter block of decodeIeee16 when its rule gives every code of f, derived from f's parameters (no table):
 * a 9…16-bit format with the IEEE layout and specials (ieeeSpecials), a zero, and every value a normal float32 times a
 * power of two the kernel multiplies exactly: normal binades within float32's normal range, subnormals (or flushed
 * ones) multiples of 2^minQ ≥ 2^−126. Else undefined. test/wasm-decode.test.ts checks every code of every format this
 * accepts among the registered ones, the P3109 ones, every cfloat16_shp bias and random custom formats.
 */
export function ieeeParams(f: Format): Int32Array | undefined {
  const { K, P, bias } = f;
  // 2^(127 − B) a float32 and every normal binade 2^(E − B) within float32's normal ones.
  const normalsFit = bias >= 0 && 1 - bias >= -126 && maxFiniteBinade(f) <= 127;
  const specials = ieeeSpecials(f);
  if (K <= 8 || K > 16 || !f.zero || f.magnitudeBits + 24 - P > 31 || f.minQuantumExponent < -126 || !normalsFit || !specials) return undefined;
  const scale = 2 ** (127 - bias);
  const subScale = f.subnormals === "flush" ? 0 : 2 ** f.minQuantumExponent;
  const { infBelow, fraction, nanFrom, nanCount, nanBits } = specials;
  const sign = f.signed ? 2 ** (32 - K) : 0;
  // The kernel's payload form: binary16's specials, gradual subnormals, and the top binade (∞ and the NaNs) finite
  // as float32 values before their exponent field is ORed full.
  const payloadForm = fraction === 0x7fffff && f.subnormals === "gradual" && f.infMagnitude / 2 ** f.trailingBits - bias <= 127;
  const words = [
    2 ** f.magnitudeBits - 1,
    2 ** (24 - P),
    float32Bits(scale),
    2 ** (P - 1),
    float32Bits(subScale),
    infBelow,
    fraction,
    sign,
    2 ** 23,
    nanFrom,
    nanCount,
    nanBits,
    float32Bits(2 ** (1 - bias)),
    payloadForm ? 1 : 0,
  ];
  const block = new Int32Array(IEEE_BYTES / 4);
  words.forEach((v, i) => block.fill(v | 0, 4 * i, 4 * i + 4));
  return block;
}

/**
 * Writes what the decode kernels need for f into memory at an address from `alloc` (`buffer` returns the memory's
 * current buffer): for 9…16-bit formats with a rule (bfloat16's shift, the IEEE rule) only its constants, else f's
 * float32 table from `decodeTable32` and its kernel-specific forms. Also used by minifloat/parallel for its shared
 * memory.
 */
export function uploadTable(
  k: Pick<Kernels, "nibblePlanes">,
  f: Format,
  decodeTable32: (f: Format) => Uint32Array,
  alloc: (bytes: number) => number,
  buffer: () => ArrayBufferLike,
): WasmTable {
  if (decodesByShift(f)) return { table: -1, bytes: 0, planes: -1, affine: -1, affineVariant: 0, ieee: -1, shift: 32 - f.K };
  const ieee = ieeeParams(f);
  if (ieee) {
    const at = alloc(IEEE_BYTES);
    new Int32Array(buffer(), at, ieee.length).set(ieee);
    return { table: at, bytes: IEEE_BYTES, planes: -1, affine: -1, affineVariant: 0, ieee: at, ieeeNaNs: ieee[IEEE_NAN_COUNT] !== 0 };
  }
  const values = decodeTable32(f);
  const entries = Math.max(16, values.length);
  const affine =
    f.K > 4 && f.K <= 8 && values.every((v) => (v & 0xffff) === 0)
      ? affineForm(
          Uint16Array.from(values, (v) => v >>> 16),
          f,
        )
      : undefined;
  const bytes = entries * 4 + (f.K <= 4 ? 64 : 0) + (affine ? AFFINE_BYTES : 0);
  const table = alloc(bytes);
  const words = new Uint32Array(buffer(), table, entries);
  words.fill(0);
  words.set(values);
  const planes = f.K <= 4 ? table + entries * 4 : -1;
  if (planes >= 0) k.nibblePlanes(table, planes);
  const affinePtr = affine ? table + entries * 4 : -1;
  if (affine) new Uint8Array(buffer(), affinePtr, AFFINE_BYTES).set(affine.bytes);
  return { table, bytes, planes, affine: affinePtr, affineVariant: affine?.variant ?? 0, ieee: -1 };
}

/** The decode kernel for codes of `bytesPerCode` bytes under table t, and its arguments after (src, dst, n). */
export function decodeCall(t: WasmTable, bytesPerCode: number): { name: DecodeKernel; args: number[] } {
  if (bytesPerCode === 2) {
    if (t.shift !== undefined) return { name: "decodeShift16", args: [t.shift] };
    if (t.ieee >= 0) return { name: t.ieeeNaNs ? "decodeIeee16NaNs" : "decodeIeee16", args: [t.ieee] };
    return { name: "decodeLut16", args: [t.table] };
  }
  if (t.planes >= 0) return { name: "decodeNibbles", args: [t.planes, t.table] };
  if (t.affine >= 0) return { name: "decodeAffine", args: [t.affine, t.table, t.affineVariant] };
  return { name: "decodeLut8", args: [t.table] };
}

type DecodeKernel =
  | "decodeShift16"
  | "decodeIeee16"
  | "decodeIeee16NaNs"
  | "decodeLut16"
  | "decodeNibbles"
  | "decodeLut8"
  | "decodeLut8To16"
  | "decodeLut16To16"
  | "decodeAffine"
  | "decodeAffineTo16";

/** The upload of `key`'s table, made by `upload` on first use; beyond MAX_TABLES the least recently used is freed. */
function cached<T extends { readonly table: number; readonly bytes: number }>(key: Format | Uint16Array, upload: () => T): T {
  let t = tables.get(key) as T | undefined;
  if (t) {
    tables.delete(key);
    tables.set(key, t);
    return t;
  }
  t = upload();
  tables.set(key, t);
  if (tables.size > MAX_TABLES) {
    const [oldKey, old] = tables.entries().next().value!;
    tables.delete(oldKey);
    if (old.bytes > 0) freeBytesRaw(old.table, old.bytes);
  }
  return t;
}

/** Uploads (once) the float32 bits of every code of f, a format of up to 16 bits; decodeTable32 supplies them. */
export function wasmTable(k: Kernels, f: Format, decodeTable32: (f: Format) => Uint32Array): WasmTable {
  return cached(f, () => uploadTable(k, f, decodeTable32, allocBytesRaw, memoryBuffer));
}

/** A conversion table of u16 entries in Wasm memory, and its affine form (as WasmTable's) or −1. */
export interface WasmTable16 {
  readonly table: number;
  readonly bytes: number;
  readonly affine: number;
  readonly affineVariant: number;
}

/**
 * Uploads (once) the conversion table `values` of f's codes into 16-bit codes of another format, with its affine
 * form when f has 5…8 bits and one exists.
 */
export function wasmTable16(f: Format, values: Uint16Array): WasmTable16 {
  return cached(values, () => uploadTable16(f, values, allocBytesRaw, memoryBuffer));
}

/** Writes the conversion table `values` and its affine form at an address from `alloc` (also minifloat/parallel's). */
export function uploadTable16(f: Format, values: Uint16Array, alloc: (bytes: number) => number, buffer: () => ArrayBufferLike): WasmTable16 {
  const affine = affineForm(values, f);
  const tableBytes = Math.ceil(values.byteLength / 16) * 16;
  const bytes = tableBytes + (affine ? AFFINE_BYTES : 0);
  const table = alloc(bytes);
  new Uint16Array(buffer(), table, values.length).set(values);
  const affinePtr = affine ? table + tableBytes : -1;
  if (affine) new Uint8Array(buffer(), affinePtr, AFFINE_BYTES).set(affine.bytes);
  return { table, bytes, affine: affinePtr, affineVariant: affine?.variant ?? 0 };
}

/** The kernel for codes of `bytesPerCode` bytes through a 16-bit conversion table, and its arguments after (src, dst, n). */
export function gatherCall16(t: WasmTable16, bytesPerCode: number): { name: DecodeKernel; args: number[] } {
  if (bytesPerCode === 2) return { name: "decodeLut16To16", args: [t.table] };
  if (t.affine >= 0) return { name: "decodeAffineTo16", args: [t.affine, t.table, t.affineVariant] };
  return { name: "decodeLut8To16", args: [t.table] };
}

/** Throws CodeRangeError naming the first element ≥ limit; a Wasm max-scan finds out whether there is one. */
export function requireBelow(k: Kernels, codes: Uint8Array | Uint16Array, limit: number, argument: string, allowed: string): void {
  if (limit >= 2 ** (codes.BYTES_PER_ELEMENT * 8)) return;
  let max = 0;
  const scan = codes.BYTES_PER_ELEMENT === 1 ? k.maxU8 : k.maxU16;
  stream(
    codes,
    null,
    (p, _d, count) => {
      max = Math.max(max, scan(p, count));
    },
    { whole: true },
  );
  if (max < limit) return;
  const i = codes.findIndex((c) => c >= limit);
  throw new CodeRangeError(`${argument}[${i}]`, `is ${codes[i]}; allowed: ${allowed}`);
}

/**
 * Decodes codes into out (validated by the caller for type and length) in Wasm: float32 bits through f's decode
 * table, or with `table16` 16-bit codes through that conversion table. Checks codes < 2^K before any write. Returns
 * the current view of out, or undefined when the kernels are unavailable (run the reference).
 */
export function dequantizeWasm<T extends Float32Array | Uint16Array>(
  codes: Uint8Array | Uint16Array | Uint32Array,
  f: Format,
  out: T,
  decodeTable32: (f: Format) => Uint32Array,
  table16?: Uint16Array,
): T | undefined {
  const k = kernels();
  if (!k || codes instanceof Uint32Array) return undefined;
  requireLive(codes, "codes");
  requireLive(out, "options.out");
  const codesNow = keep<WasmView>(codes);
  const outNow = keep<WasmView>(out) as () => T;
  requireBelow(k, codesNow() as Uint8Array | Uint16Array, f.codeCount, "codes", `a ${f.name} code in [0, ${f.codeCount - 1}]`);
  const { name, args } = table16
    ? gatherCall16(wasmTable16(f, table16), codes.BYTES_PER_ELEMENT)
    : decodeCall(wasmTable(k, f, decodeTable32), codes.BYTES_PER_ELEMENT);
  stream(codesNow(), outNow(), (s, d, n) => callKernel(k, name, [s, d, n, ...args]), { whole: true });
  return outNow();
}

/**
 * Decodes codes into float32 (f's values must all be float32s: exact) and rounds each into `target`'s 16-bit codes
 * under ρ with the encode kernel: per element what the conversion table holds per code (conversionTable's bulk
 * route runs the same two kernels over every code), without building it, for calls with fewer elements than f has
 * codes. Returns the current view of out, or undefined, out untouched, when a kernel does not run.
 */
export function dequantizeVia32(
  codes: Uint8Array | Uint16Array | Uint32Array,
  f: Format,
  out: Uint16Array,
  target: Format,
  rho: ResolvedProjection,
  decodeTable32: (f: Format) => Uint32Array,
): Uint16Array | undefined {
  const outNow = keep(out);
  const values = dequantizeWasm(codes, f, new Float32Array(codes.length), decodeTable32);
  return values && quantizeWasm(values, target, rho, outNow(), undefined);
}
