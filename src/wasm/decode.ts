// Dequantize in Wasm: each format's decode table (from the exact core) is uploaded once and applied by a kernel; so
// are the 16-bit conversion tables of dequantize to binary16/bfloat16 and convert.
import { float32Bits, float32FromBits } from "../exact/value.js";
import { CodeRangeError } from "../errors.js";
import type { Format } from "../format/model.js";
import { callKernel } from "./abi.js";
import { type Kernels, kernels } from "./instance.js";
import { allocBytesRaw, freeBytesRaw, keep, memoryBuffer, requireLive, stream, type WasmView } from "./memory.js";

/** A format's float32 table, and the kernel-specific forms of it that apply, in Wasm memory. */
export interface WasmTable {
  readonly table: number;
  readonly bytes: number;
  /** ≤ 4-bit formats: 64 bytes, byte b of the 16 entries at planes + 16·b; else −1. */
  readonly planes: number;
  /** 5…8-bit formats with a split form (see splitTable); else −1. */
  readonly split: number;
  /** Residual rows of the split form: 2 or fewer run the cheaper kernel. */
  readonly splitRows: number;
  /** 9…16-bit formats whose table is (code << shift) + offset for every code (bfloat16); else undefined. */
  readonly linear?: { readonly shift: number; readonly offset: number };
  /** 9…16-bit formats whose table follows the IEEE rule of decodeIeee16 (binary16): its parameter block; else −1. */
  readonly ieee: number;
}

/** Tables held at once (16-bit formats take 256 KiB each); the least recently used one is freed beyond it. */
const MAX_TABLES = 32;
/**
 * Uploaded tables, least recently used first: float32 tables by Format identity (equal parameters are one interned
 * Format), conversion tables by the table array (the exact core caches one per formats and projection).
 */
const tables = new Map<Format | Uint16Array, { readonly table: number; readonly bytes: number }>();
/** Bytes of a split table: A, B, X and 3 residual rows of 16-bit values as byte planes (assembly/decode.ts). */
const SPLIT_BYTES = 176;
const SPLIT_ROWS = 3;

/** The most frequent element of a list. */
function mode<T>(xs: T[]): T {
  const counts = new Map<T, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

/**
 * The split form of a ≤ 8-bit table for decodeSplit2/3: with h = code >> 4 and l = code & 15, the top 16 bits of the
 * float32 are A[h] + B[l] + R[code] (mod 2^16). B is the most common row shape (exponent and trailing bits advance
 * linearly inside a run of binades), A[h] the most common offset of row h, and R is nonzero only for zero,
 * subnormals, Inf and NaN; rows with equal residuals (a sign-symmetric pair) share one of the kernel's 3 residual
 * rows. Undefined when the values are not bfloat16-exact or need more residual rows (the scalar LUT runs then).
 */
export function splitTable(values: Uint32Array): { bytes: Uint8Array; rows: number } | undefined {
  if (values.length > 256 || values.some((v) => (v & 0xffff) !== 0)) return undefined;
  const rows = values.length >> 4;
  const hi = (c: number) => values[c]! >>> 16;
  const lanes = Array.from({ length: 16 }, (_, l) => l);
  const B = mode(Array.from({ length: rows }, (_, h) => lanes.map((l) => (hi(16 * h + l) - hi(16 * h)) & 0xffff).join()))
    .split(",")
    .map(Number);
  const A = lanes.map((h) => (h < rows ? mode(lanes.map((l) => (hi(16 * h + l) - B[l]!) & 0xffff)) : 0));
  const residual = (h: number) => lanes.map((l) => (hi(16 * h + l) - A[h]! - B[l]!) & 0xffff);
  const patterns: string[] = [];
  const out = new Uint8Array(SPLIT_BYTES);
  for (let h = 0; h < 16; h++) {
    out[h] = A[h]! & 255;
    out[16 + h] = A[h]! >> 8;
    out[32 + h] = B[h]! & 255;
    out[48 + h] = B[h]! >> 8;
    const r = h < rows ? residual(h) : [];
    if (r.every((x) => x === 0)) {
      out[64 + h] = 0x80;
      continue;
    }
    let j = patterns.indexOf(r.join());
    if (j < 0) {
      j = patterns.push(r.join()) - 1;
      if (j >= SPLIT_ROWS) return undefined;
      r.forEach((x, l) => {
        out[80 + 32 * j + l] = x & 255;
        out[80 + 32 * j + 16 + l] = x >> 8;
      });
    }
    out[64 + h] = 16 * j;
  }
  return { bytes: out, rows: patterns.length };
}

/** The shift and offset when every entry is (code << shift) + offset (mod 2^32), as for bfloat16. */
export function linearForm(values: Uint32Array): { shift: number; offset: number } | undefined {
  const shift = Math.log2((values[1]! - values[0]!) >>> 0);
  if (!Number.isInteger(shift) || shift > 31) return undefined;
  const offset = values[0]!;
  for (let c = 0; c < values.length; c++) if (values[c] !== ((c << shift) + offset) >>> 0) return undefined;
  return { shift, offset };
}

/** Bytes of decodeIeee16's parameter block: 9 splatted words (assembly/decode.ts). */
const IEEE_BYTES = 144;

/**
 * The parameter block of decodeIeee16 when every entry of a 9…16-bit signed table is what that kernel computes (the
 * IEEE layout: binary16), else undefined. The rule is evaluated here in float32 arithmetic step by step, as the
 * kernel does it, so a format is accepted only if the kernel reproduces its table bit for bit.
 */
export function ieeeForm(values: Uint32Array, f: Format): Int32Array | undefined {
  const K = f.K;
  const P = f.P;
  const half = 2 ** (K - 1);
  if (K <= 8 || !f.signed || values.length !== 2 * half || K - 1 + 24 - P > 31 || f.minQuantumExponent < -126 || Math.abs(127 - f.bias) > 126) return undefined;
  const up = 2 ** (24 - P);
  const scale = Math.fround(2 ** (127 - f.bias));
  const subScale = 2 ** f.minQuantumExponent;
  // The magnitudes at the top whose values have float32's exponent 255 (∞ and NaNs), if any.
  let infMag = half;
  while (infMag > 0 && (values[infMag - 1]! & 0x7f800000) === 0x7f800000) infMag--;
  for (let m = 0; m < half; m++) {
    const t = m * up;
    let bits: number;
    if (m >= infMag) bits = (0x7f800000 | (t & 0x7fffff)) >>> 0;
    else if (m < 2 ** (P - 1)) bits = float32Bits(Math.fround(m * subScale));
    else bits = float32Bits(Math.fround(float32FromBits(t) * scale));
    if (bits !== values[m] || (bits | 0x80000000) >>> 0 !== values[m + half]) return undefined;
  }
  const block = new Int32Array(IEEE_BYTES / 4);
  [half - 1, up, float32Bits(scale), 2 ** (P - 1), float32Bits(subScale), infMag - 1, 0x7fffff, 2 ** (32 - K), 2 ** 23].forEach((v, i) =>
    block.fill(v | 0, 4 * i, 4 * i + 4),
  );
  return block;
}

/**
 * Writes the table of f (its float32 bits `values`) and its kernel-specific forms into memory at an address from
 * `alloc`; `buffer` returns the memory's current buffer. Also used by minifloat/parallel for its shared memory.
 */
export function uploadTable(
  k: Pick<Kernels, "nibblePlanes">,
  f: Format,
  values: Uint32Array,
  alloc: (bytes: number) => number,
  buffer: () => ArrayBufferLike,
): WasmTable {
  const entries = Math.max(16, values.length);
  const split = f.K > 4 && f.K <= 8 ? splitTable(values) : undefined;
  const linear = f.K > 8 ? linearForm(values) : undefined;
  const ieee = f.K > 8 && !linear ? ieeeForm(values, f) : undefined;
  const bytes = entries * 4 + (f.K <= 4 ? 64 : 0) + (split ? SPLIT_BYTES : 0) + (ieee ? IEEE_BYTES : 0);
  const table = alloc(bytes);
  const words = new Uint32Array(buffer(), table, entries);
  words.fill(0);
  words.set(values);
  const planes = f.K <= 4 ? table + entries * 4 : -1;
  if (planes >= 0) k.nibblePlanes(table, planes);
  const splitPtr = split ? table + entries * 4 : -1;
  if (split) new Uint8Array(buffer(), splitPtr, SPLIT_BYTES).set(split.bytes);
  const ieeePtr = ieee ? table + entries * 4 : -1;
  if (ieee) new Int32Array(buffer(), ieeePtr, ieee.length).set(ieee);
  return { table, bytes, planes, split: splitPtr, splitRows: split?.rows ?? 0, ieee: ieeePtr, ...(linear && { linear }) };
}

/** The decode kernel for codes of `bytesPerCode` bytes under table t, and its arguments after (src, dst, n). */
export function decodeCall(t: WasmTable, bytesPerCode: number): { name: DecodeKernel; args: number[] } {
  if (bytesPerCode === 2) {
    if (t.linear) return { name: "decodeLinear16", args: [t.linear.shift, t.linear.offset] };
    return t.ieee >= 0 ? { name: "decodeIeee16", args: [t.ieee, t.table] } : { name: "decodeLut16", args: [t.table] };
  }
  if (t.planes >= 0) return { name: "decodeNibbles", args: [t.planes, t.table] };
  if (t.split >= 0) return { name: t.splitRows <= 2 ? "decodeSplit2" : "decodeSplit3", args: [t.split, t.table] };
  return { name: "decodeLut8", args: [t.table] };
}

type DecodeKernel =
  | "decodeLinear16"
  | "decodeIeee16"
  | "decodeLut16"
  | "decodeNibbles"
  | "decodeSplit2"
  | "decodeSplit3"
  | "decodeLut8"
  | "decodeLut8To16"
  | "decodeLut16To16"
  | "decodeSplit2To16"
  | "decodeSplit3To16";

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
    freeBytesRaw(old.table, old.bytes);
  }
  return t;
}

/** Uploads (once) the float32 bits of every code of f, a format of up to 16 bits; decodeTable32 supplies them. */
export function wasmTable(k: Kernels, f: Format, decodeTable32: (f: Format) => Uint32Array): WasmTable {
  return cached(f, () => uploadTable(k, f, decodeTable32(f), allocBytesRaw, memoryBuffer));
}

/** A conversion table of u16 entries in Wasm memory, and its split form (as WasmTable's) or −1. */
export interface WasmTable16 {
  readonly table: number;
  readonly bytes: number;
  readonly split: number;
  readonly splitRows: number;
}

/**
 * Uploads (once) the conversion table `values` of f's codes into 16-bit codes of another format, with its split form
 * when f has 5…8 bits and one exists (splitTable of the entries as the top halves of 32-bit words).
 */
export function wasmTable16(f: Format, values: Uint16Array): WasmTable16 {
  return cached(values, () => {
    const split = f.K > 4 && f.K <= 8 ? splitTable(Uint32Array.from(values, (v) => v << 16)) : undefined;
    const tableBytes = Math.ceil(values.byteLength / 16) * 16;
    const bytes = tableBytes + (split ? SPLIT_BYTES : 0);
    const table = allocBytesRaw(bytes);
    new Uint16Array(memoryBuffer(), table, values.length).set(values);
    if (split) new Uint8Array(memoryBuffer(), table + tableBytes, SPLIT_BYTES).set(split.bytes);
    return { table, bytes, split: split ? table + tableBytes : -1, splitRows: split?.rows ?? 0 };
  });
}

/** The kernel for codes of `bytesPerCode` bytes through a 16-bit conversion table, and its arguments after (src, dst, n). */
function gatherCall16(t: WasmTable16, bytesPerCode: number): { name: DecodeKernel; args: number[] } {
  if (bytesPerCode === 2) return { name: "decodeLut16To16", args: [t.table] };
  if (t.split >= 0) return { name: t.splitRows <= 2 ? "decodeSplit2To16" : "decodeSplit3To16", args: [t.split, t.table] };
  return { name: "decodeLut8To16", args: [t.table] };
}

/** Throws CodeRangeError naming the first element ≥ limit; a Wasm max-scan finds out whether there is one. */
export function requireBelow(k: Kernels, codes: Uint8Array | Uint16Array, limit: number, argument: string, allowed: string): void {
  if (limit >= 2 ** (codes.BYTES_PER_ELEMENT * 8)) return;
  let max = 0;
  const scan = codes.BYTES_PER_ELEMENT === 1 ? k.maxU8 : k.maxU16;
  stream(codes, null, (p, _d, count) => {
    max = Math.max(max, scan(p, count));
  });
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
  stream(codesNow(), outNow(), (s, d, n) => callKernel(k, name, [s, d, n, ...args]));
  return outNow();
}
