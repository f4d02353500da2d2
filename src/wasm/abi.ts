// The kernels' exports (assembly/index.ts) as typed groups: raw pointer ABI, byte addresses and element counts.
// instance.ts casts an instance's exports to Kernels once; everything else reaches the kernels through these types.
// The memory and module types are structural so the shipped declarations need no WebAssembly namespace (a Node-only
// TypeScript project without the DOM library type-checks them).

/** The part of a WebAssembly.Memory the runtime uses. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

/** A compiled WebAssembly.Module, passed through to workers without being looked into. */
export type WasmModule = object;

export interface CoreExports {
  readonly memory: WasmMemory;
  /** First byte the host allocator may use (after the kernels' static data). */
  heapBase(): number;
}

export interface DecodeExports {
  decodeLut8(src: number, dst: number, n: number, table: number): void;
  decodeLut16(src: number, dst: number, n: number, table: number): void;
  /** 8-bit codes → 16-bit codes through a table of u16 (convert, dequantize to binary16/bfloat16). */
  decodeLut8To16(src: number, dst: number, n: number, table: number): void;
  decodeLut16To16(src: number, dst: number, n: number, table: number): void;
  decodeShift16(src: number, dst: number, n: number, shift: number): void;
  decodeIeee16(src: number, dst: number, n: number, params: number): void;
  decodeIeee16NaNs(src: number, dst: number, n: number, params: number): void;
  nibblePlanes(table: number, planes: number): void;
  decodeNibbles(src: number, dst: number, n: number, planes: number, table: number): void;
  decodePacked4(src: number, dst: number, n: number, planes: number, table: number): void;
  decodePacked6(src: number, dst: number, n: number, table: number): void;
  decodeAffine(src: number, dst: number, n: number, form: number, table: number, variant: number): void;
  decodeAffineTo16(src: number, dst: number, n: number, form: number, table: number, variant: number): void;
  decodePacked6Affine(src: number, dst: number, n: number, form: number, table: number, variant: number): void;
  maxU8(src: number, n: number): number;
  maxU16(src: number, n: number): number;
}

export interface PackExports {
  pack4(src: number, dst: number, n: number): void;
  unpack4(src: number, dst: number, n: number): void;
  pack6(src: number, dst: number, n: number): void;
  unpack6(src: number, dst: number, n: number): void;
}

export interface EncodeExports {
  /** The static parameter block of a host whose instance has a memory of its own. */
  encodeParams(): number;
  /** Bytes of one parameter block (hosts sharing a memory allocate one per thread). */
  encodeParamsBytes(): number;
  encodeF32(params: number, src: number, dst: number, n: number, first: number, random: number): void;
}

export interface DotExports {
  /** The static parameter block of a host whose instance has a memory of its own. */
  dotParams(): number;
  /** Bytes of one dotBatch parameter block (its configuration and the kernel's index scratch). */
  dotParamsBytes(): number;
  dotBatch(params: number, a: number, b: number, m: number, n: number, sa: number, sb: number, out: number): void;
}

export interface BlockExports {
  /** Bytes of one mxQuantize parameter block. */
  mxParamsBytes(): number;
  mxQuantize(params: number, src: number, n: number, scales: number, elems: number): void;
  /** max(acc, largest finite |x| of n float32 at src) as float32 bits. */
  amaxFinite(src: number, n: number, acc: number): number;
}

export interface LutExports {
  lutApply2x8(a: number, b: number, dst: number, n: number, table: number, nb: number): void;
  lutApply1x8(a: number, dst: number, n: number, table: number): void;
}

/** Signature of the gatherCoded kernels (ScaledExports). */
type GatherCoded = (
  codes: number,
  nibbles: boolean,
  n: number,
  column: number,
  phase: number,
  K: number,
  width: number,
  bh: number,
  scaleCodes: number,
  tables: number,
  entries: number,
  dst: number,
) => void;

export interface ScaledExports {
  /**
   * Byte codes → 16-bit (or 32-bit) results through per-block tables: n elements of one row of blocks, starting at
   * `column` of a row of `rowLength` elements; block b (columns of `width`) reads the table at tables + b·tableBytes.
   */
  gatherScaled8To16(src: number, dst: number, n: number, column: number, rowLength: number, width: number, tables: number, tableBytes: number): void;
  gatherScaled8To32(src: number, dst: number, n: number, column: number, rowLength: number, width: number, tables: number, tableBytes: number): void;
  /**
   * Byte (or, with `nibbles`, 4-bit) codes under coded scales → 16-bit (or 32-bit) results through one table of
   * `entries` per scale code: n elements from `column` of row `phase` of a block row, rows of K,
   * blocks of bh rows × width columns, the block row's ⌈K / width⌉ scale codes first at scaleCodes.
   */
  gatherCodedTo16: GatherCoded;
  gatherCodedTo32: GatherCoded;
  scaledTablesOdd(values: number, n: number, scales: number, count: number, m: number, g: number, divide: boolean, out: number): number;
}

export interface BandExports {
  /**
   * Per block of bh rows × width columns of `rows` rows of K float32 at x: amax[block] = max(amax[block], |x|) as
   * float32 bits; returns the index of the first ±∞ or NaN element, or −1 (assembly/bands.ts).
   */
  amaxBlocks(x: number, rows: number, K: number, width: number, bh: number, amax: number): number;
  /** y = x / factor[block] (or · with mode bit 1), then + 0 with mode bit 2 (−0 → +0); 0 (nothing written) when a factor is 0, ±∞ or NaN, else 1. */
  scaleBlocks(x: number, y: number, rows: number, K: number, width: number, bh: number, factor: number, mode: number): number;
}

export interface GgmlExports {
  /** Q8_0 int8 elements of `blocks` blocks of 32 float32 at src into 34-byte blocks at out (assembly/ggml.ts). */
  q8Elements(src: number, blocks: number, ids: number, out: number): void;
  /** E2M1 nibbles of sub-blocks of `width` float32 under half-scales d, laid out as GGUF MXFP4/NVFP4 blocks. */
  e2m1Nearest(src: number, subBlocks: number, width: number, d: number, out: number, per: number, stride: number, head: number): void;
  /** E2M1 codes (one byte each, or two per byte low nibble first with paired = 1) packed into that layout. */
  e2m1Pack(src: number, subBlocks: number, width: number, out: number, per: number, stride: number, head: number, paired: number): void;
  /** MXFP4/NVFP4 blocks in that layout → float32, each sub-block's half-scale from a 256-entry float32 table. */
  e2m1Decode(src: number, subBlocks: number, width: number, halfScales: number, dst: number, per: number, stride: number, head: number): void;
  /** Q8_0 blocks → float32 with the host's float32 scales. */
  q8Decode(src: number, blocks: number, d: number, dst: number): void;
  /** ggml_fp32_to_ue4m3(fl32(amax[i] / divisor)) of n float32, one byte each. */
  ue4m3Scales(amax: number, n: number, divisor: number, out: number): void;
}

export interface OddExports {
  /** n float64 at src rounded to float32 to odd into dst; returns how many are NaN or ≥ 2^128 in magnitude (assembly/odd.ts). */
  roundToOdd32(src: number, dst: number, n: number): number;
}

export interface ScaledValuesExports {
  /**
   * Exact values of byte codes under per-block factors (÷ g when g ≠ 0) as float64, float32 (nearest even) or float32
   * rounded to odd (form 0, 1, 2); returns how many are NaN or ≥ 2^128 in magnitude (assembly/scaled-values.ts).
   */
  scaledValues(
    codes: number,
    n: number,
    column: number,
    phase: number,
    K: number,
    width: number,
    bh: number,
    factors: number,
    table: number,
    g: number,
    dst: number,
    form: number,
  ): number;
}

export interface TransposeExports {
  /** [K, N] float32 at src → [N, K] at dst (assembly/transpose.ts). */
  transpose32(src: number, K: number, N: number, dst: number): void;
}

export interface StatsExports {
  /**
   * Accumulates the quantization error sums of n float32 x against y, and the overflow count (x beyond pos or −neg;
   * equal to them too by bits 0 and 1 of `inclusive`), into the 12 float64 of `state` (layout: assembly/stats.ts).
   */
  errorSumsF32(x: number, y: number, n: number, state: number, above: number, below: number): void;
}

/** Every export of the kernels module. */
export type Kernels = CoreExports &
  DecodeExports &
  PackExports &
  EncodeExports &
  DotExports &
  BlockExports &
  LutExports &
  ScaledExports &
  BandExports &
  GgmlExports &
  OddExports &
  ScaledValuesExports &
  TransposeExports &
  StatsExports;

/** The exports a pool worker calls by name on its instance of the threads build (protocol.ts WasmJob). */
export type KernelCall = "encodeF32" | "dotBatch" | "maxU8" | "maxU16" | DecodeCall;
type DecodeCall = Exclude<keyof DecodeExports, "nibblePlanes" | "maxU8" | "maxU16">;

/** Calls the export `fn` with numeric arguments (a pool job's calls); returns its result, if any. */
export function callKernel(k: Kernels, fn: KernelCall, args: readonly number[]): number | undefined {
  const f = k[fn] as (...a: readonly number[]) => number | undefined;
  return f(...args);
}

/** The runtime's native base64 decoders, where it has one (Uint8Array.fromBase64: recent browsers; Buffer: Node). */
const native = globalThis as {
  Uint8Array: { fromBase64?: (text: string) => Uint8Array<ArrayBuffer> };
  Buffer?: { from(text: string, encoding: "base64"): Uint8Array };
};

/**
 * The bytes of a base64 text (the kernels inlined by scripts/build.mjs): natively where the runtime can (Node's atob
 * and a charCodeAt loop take tens of milliseconds for the kernels, a native decoder one), else with atob.
 */
export function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  if (native.Uint8Array.fromBase64) return native.Uint8Array.fromBase64(text);
  if (native.Buffer) return new Uint8Array(native.Buffer.from(text, "base64"));
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
