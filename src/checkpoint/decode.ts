// Exact values of a range of a logical tensor. Every element is code value × block scale (× or ÷ a global scalar):
// decoded codes are exact float64 values, and a product of significands of at most 2 (E2M1), 4 (E4M3) and 24
// (float32 scales) bits has at most 30 bits, so float64 holds every product exactly. compressed-tensors NVFP4
// divides by weight_global_scale instead: that quotient is rounded once to float64, and the argument in
// docs/checkpoints.md ("Exactness") shows that rounding it again to float32, float16 or bfloat16 gives the correctly
// rounded exact quotient. Only the scale rows covering the range are read, so memory follows the range asked for.
import { dequantize, quantize, quantizeReference, runQuantize } from "../api/bulk.js";
import { planQuantize } from "../api/plan.js";
import { beyondOdd32, roundToOddFloat32 } from "../exact/round-to-odd.js";
import type { Format } from "../format/model.js";
import { type BlockRowSpan, gatherCodedWasm, gatherScaledWasm, scaledTablesOddWasm } from "../wasm/scaled.js";
import { type ValuesForm, scaledValuesWasm } from "../wasm/scaled-values.js";
import { WasmArray, inWasm, keep } from "../wasm/memory.js";
import { kernels } from "../wasm/instance.js";
import { unpackCodes } from "../api/packed.js";
import { CheckpointError } from "./errors.js";
import type { Entry, Recipe } from "./recognize.js";
import type { GatherRoom } from "./room.js";

/** Exact values of elements [start, start + count) of a recipe's logical tensor (quotients: see above). */
export async function readRange(r: Recipe, start: number, count: number): Promise<Float64Array> {
  const out = new Float64Array(count);
  if (count === 0) return out;
  if (r.scale && r.kind !== "values" && r.table!.length <= 256) {
    // In Wasm when the kernels run: the same products (assembly/scaled-values.ts).
    const range = await blockScales(r, start, count);
    const codes = (await elementCodes(r, start, count)) as Uint8Array;
    if (scaledValues(r, start, range, codes, out, "float64") !== undefined) return out;
    for (let i = 0; i < count; i++) out[i] = r.table![codes[i]!]!;
    return scaleRange(start, out, range);
  }
  const el = await elementValues(r, start, count, out);
  if (!r.scale) {
    if (r.constant !== 1) for (let i = 0; i < count; i++) out[i] = el[i]! * r.constant;
    return out;
  }
  return scaleRange(start, el, await blockScales(r, start, count));
}

/** The scale grid of a range: row length, block shape, the scales of its block rows, and the recipe's factors. */
interface RangeScales {
  readonly K: number;
  readonly bh: number;
  readonly bw: number;
  readonly cols: number;
  /** Scale elements of the block rows the range touches, from the first. */
  readonly scales: Float64Array;
  readonly f: Factors;
}

async function blockScales(r: Recipe, start: number, count: number): Promise<RangeScales> {
  const K = rowLength(r);
  const [bh, bw] = r.scale!.block;
  const cols = Math.ceil(K / bw);
  const s0 = Math.floor(Math.floor(start / K) / bh);
  const s1 = Math.floor(Math.floor((start + count - 1) / K) / bh);
  return { K, bh, bw, cols, scales: await scaleValues(r, s0 * cols, (s1 - s0 + 1) * cols), f: await factorsOf(r) };
}

/** scaledValuesWasm over a range of r: its codes under their blocks' scales times m (÷ g where r divides). */
function scaledValues(r: Recipe, start: number, range: RangeScales, codes: Uint8Array, out: Float64Array | Float32Array, form: ValuesForm): number | undefined {
  const { K, bh, bw, scales, f } = range;
  // s · 1 is s: no second array of a scale per block (a divisor g, and schemes without a global scale, have m = 1).
  const factors = f.m === 1 ? scales : scales.map((s) => s * f.m);
  return scaledValuesWasm(codes, { start, K, width: bw, bh }, factors, r.table!, f.divide ? f.g : 0, out, form);
}

/**
 * Small scale blocks of byte codes rounded once to `to` in Wasm with no float64 array between: nearest even into
 * float32, or (F16, BF16) rounded to odd into float32 and then by the float32 kernel, the same one rounding as
 * quantize of the exact values. Undefined (nothing written) when the kernels are off or a value is NaN or ≥ 2^128,
 * which the exact reference projects.
 */
async function roundSmallBlocks(
  r: Recipe,
  start: number,
  count: number,
  to: Target,
  target?: Float32Array | Uint16Array,
): Promise<Float32Array | Uint16Array | undefined> {
  if (!kernels()) return undefined;
  const range = await blockScales(r, start, count);
  const codes = (await elementCodes(r, start, count)) as Uint8Array;
  if (to === "F32") {
    // A target in Wasm memory is re-made after the kernel's allocations (a growth detaches it).
    const out = keep((target as Float32Array | undefined) ?? new Float32Array(count));
    return scaledValues(r, start, range, codes, out(), "float32") === undefined ? undefined : out();
  }
  const out = target && keep(target as Uint16Array);
  const odd = new WasmArray(Float32Array, count);
  try {
    if (scaledValues(r, start, range, codes, odd.array, "float32-odd") !== 0) return undefined;
    return quantize(odd.array, to === "F16" ? "binary16" : "bfloat16", out ? { out: out() } : {}) as Uint16Array;
  } finally {
    odd.free();
  }
}

/** Which path readRounded takes for small blocks whose scales are codes, when the kernels run (see roundCodedBlocks). */
export function codedBlocks(r: Recipe): boolean {
  const sc = r.scale;
  return sc?.table !== undefined && r.kind !== "values" && r.table!.length <= 256 && sc.block[0] * sc.block[1] < TABLE_MIN;
}

/** Per recipe and target: the result of every element code under every scale code, and which scale codes are valid. */
const codedCache = new WeakMap<Recipe, Map<Target, Promise<CodedTables>>>();

interface CodedTables {
  /** Entry s·n + c: the bits of element code c under scale code s rounded once to the target. */
  readonly bits: Uint16Array | Uint32Array;
  /** n: 16 for nibble codes, else 256 (a byte beyond the format's codes reads NaN, as the reference's lookup does). */
  readonly entries: number;
  /** 1 where a scale code's value passes checkScale. */
  readonly valid: Uint8Array;
}

/**
 * Small blocks whose scales are codes (NVFP4's E4M3, MX's E8M0): an element's result depends only on its code and its
 * block's scale code, so every pair is rounded once per tensor (scaledTable's arithmetic, roundInto's one rounding)
 * and the elements are gathered by code pair in Wasm: nibbles straight from their bytes when the range starts at an
 * even element. A scale code whose value checkScale refuses is an error when a block of the range uses it. Undefined
 * (nothing read) when the kernels are off or the recipe has no coded scales.
 */
async function roundCodedBlocks(
  r: Recipe,
  start: number,
  count: number,
  to: Target,
  target: Float32Array | Uint16Array | undefined,
  room: GatherRoom | undefined,
): Promise<Float32Array | Uint16Array | undefined> {
  if (!kernels() || !codedBlocks(r)) return undefined;
  const s = r.scale!;
  const K = rowLength(r);
  const [bh, bw] = s.block;
  const read = async (first: number, count: number) => (await s.entry.reader.readElementBytes(s.entry.t, first, count)).bytes;
  const lent = lendable(room, target);
  const [first, scaleCodes] = rangeScales(r, s, start, count, read, lent);
  const nibbles = r.kind === "nibbles" && start % 2 === 0;
  const codes = await coded(r, start, count, nibbles, lent);
  const tables = await codedTables(r, to);
  const scales = await scaleCodes;
  for (let i = 0; i < scales.length; i++) if (tables.valid[scales[i]!] === 0) checkScale(s.table![scales[i]!] ?? Number.NaN, s.entry, first + i, s.pow2);
  const out = target ?? (to === "F32" ? new Float32Array(count) : new Uint16Array(count));
  gatherCodedWasm(codes, nibbles, { start, K, width: bw, bh }, scales, tables.bits, tables.entries, bitsOf(out));
  return out;
}

/** The element codes of a range as gatherCodedWasm takes them: nibble bytes from an even start, else one per byte. */
async function coded(r: Recipe, start: number, count: number, nibbles: boolean, room: GatherRoom | undefined): Promise<Uint8Array> {
  const { reader, t } = r.elements;
  const [offset, length] = nibbles ? [start / 2, Math.ceil(count / 2)] : [start, count];
  if (room && (nibbles || (r.kind === "codes" && t.info.bits === 8)) && length <= room.codeBytes) {
    const stored = nibbles ? Math.ceil(r.tensor.length / 2) : r.tensor.length;
    const ahead = Math.min(length, stored - offset - length);
    return room.codes(reader, t, offset, length, ahead);
  }
  if (nibbles) return reader.readTensorBytes(t, offset, length);
  return (await elementCodes(r, start, count)) as Uint8Array;
}

function codedTables(r: Recipe, to: Target): Promise<CodedTables> {
  let byTarget = codedCache.get(r);
  if (!byTarget) codedCache.set(r, (byTarget = new Map()));
  let tables = byTarget.get(to);
  if (!tables) {
    tables = buildCodedTables(r, to);
    tables.catch(() => byTarget.delete(to));
    byTarget.set(to, tables);
  }
  return tables;
}

async function buildCodedTables(r: Recipe, to: Target): Promise<CodedTables> {
  const s = r.scale!;
  const f = await factorsOf(r);
  const table = r.table!;
  const n = r.kind === "nibbles" ? 16 : 256;
  const valid = new Uint8Array(256);
  const exact = new Float64Array(256 * n);
  for (let k = 0; k < 256; k++) {
    const v = s.table![k] ?? Number.NaN;
    // minifloat's NaN blocks: every entry NaN (entryValue of a NaN scale), rounded as NaN.
    valid[k] = Number(scaleAllowed(v, s.pow2) || (s.nanBlocks === true && v !== v));
    // An invalid scale code is refused before any gather reads its table; its entries are left at 0.
    if (valid[k] === 0) continue;
    for (let c = 0; c < n; c++) {
      const value = table[c] ?? Number.NaN;
      exact[k * n + c] = value === value ? entryValue(value, v, f) : value;
    }
  }
  const out = to === "F32" ? new Float32Array(exact.length) : new Uint16Array(exact.length);
  roundInto(exact, to, out, new Float32Array(exact.length));
  return { bits: bitsOf(out), entries: n, valid };
}

/** el (element values of the range, overwritten) under their block scales: the reference of scaledValuesWasm. */
function scaleRange(start: number, el: Float64Array, { K, bh, bw, cols, scales, f }: RangeScales): Float64Array {
  const count = el.length;
  const s0 = Math.floor(Math.floor(start / K) / bh);
  for (let i = 0, at = start; i < count; ) {
    const row = Math.floor(at / K);
    const rowEnd = Math.min(count, i + (row + 1) * K - at);
    const base = (Math.floor(row / bh) - s0) * cols;
    let j = at - row * K;
    for (; i < rowEnd; i++, j++) el[i] = entryValue(el[i]!, scales[base + Math.floor(j / bw)]!, f);
    at = start + i;
  }
  return el;
}

export type Target = "F32" | "F16" | "BF16";

/** Values (float64, or float32 already exact) rounded once to `to`: float32 values, or binary16 / bfloat16 bit patterns. */
export function roundTo(values: Float64Array | Float32Array, to: Target): Float32Array | Uint16Array {
  if (to === "F32") return values instanceof Float32Array ? values : new Float32Array(values);
  // quantize rounds float64 once (on the float32 kernel through rounding to odd: src/exact/round-to-odd.ts).
  return quantize(values, to === "F16" ? "binary16" : "bfloat16") as Uint16Array;
}

/**
 * roundTo into `out`, for tables: the same one rounding as quantize of float64 (src/api/bulk.ts), through float32
 * rounded to odd (into `odd`) and the float32 kernel, but the values rounding to odd does not carry (NaN, |x| ≥ 2^128:
 * a table's NaN codes under every scale) go through the exact reference once per bit pattern, not once per entry.
 */
export function roundInto(values: Float64Array, to: Target, out: Float32Array | Uint16Array, odd: Float32Array): void {
  if (to === "F32") out.set(values);
  else {
    const beyond: number[] = [];
    for (let i = 0; i < values.length; i++) if (beyondOdd32(values[i]!)) beyond.push(i);
    finishOdd(roundToOddFloat32(values, odd), to, out as Uint16Array, beyond, (i) => values[i]!);
  }
}

/**
 * 16-bit results from values rounded to float32 to odd (`odd`) through the float32 kernel; then the entries whose
 * values rounding to odd does not carry (`beyond`, with their exact values) by the exact reference, once per bit
 * pattern.
 */
function finishOdd(odd: Float32Array, to: "F16" | "BF16", out: Uint16Array, beyond: readonly number[], exact: (i: number) => number): void {
  const plan = planQuantize(odd, to === "F16" ? "binary16" : "bfloat16", { out });
  runQuantize(plan);
  const one = new Float64Array(1);
  const bits = new BigUint64Array(one.buffer);
  const done = new Map<bigint, number>();
  for (const i of beyond) {
    one[0] = exact(i);
    const code = done.get(bits[0]!);
    if (code !== undefined) out[i] = code;
    else {
      quantizeReference(one, plan.f, plan.rho, out.subarray(i, i + 1));
      done.set(bits[0]!, out[i]!);
    }
  }
}

/** The factors of a scaled recipe's elements besides code and scale: × m, then ÷ g when divide (see readRange). */
interface Factors {
  readonly m: number;
  readonly g: number;
  readonly divide: boolean;
}

async function factorsOf(r: Recipe): Promise<Factors> {
  const g = r.global ? await globalValue(r) : 1;
  const divide = r.global?.divide === true;
  return { m: divide ? 1 : g * r.constant, g, divide };
}

/**
 * The exact value of a code of value `value` under scale s (readRange's arithmetic): code × scale has ≤ 28 significant
 * bits (E4M3 × float32) or ≤ 6 (E2M1 × E4M3); times m (ModelOpt's weight_scale_2 or minifloat's tensor scale, a
 * float32) ≤ 30, exact in any order; a divisor g rounds once.
 */
function entryValue(value: number, s: number, f: Factors): number {
  const x = s * f.m;
  return f.divide ? (value * x) / f.g : value * x;
}

/** The exact value of every code under each of `scales` (scale elements of r): entry k·n + c is code c under scale k (n codes). */
function scaledTable(r: Recipe, scales: Float64Array, f: Factors): Float64Array {
  const table = r.table!;
  const n = table.length;
  const exact = new Float64Array(scales.length * n);
  for (let k = 0; k < scales.length; k++) for (let c = 0; c < n; c++) exact[k * n + c] = entryValue(table[c]!, scales[k]!, f);
  return exact;
}

/** Every code of an unscaled format decoded (float32 holds every value of formats up to 8 bits), rounded once to `to`. */
function roundCodes(f: Format, to: Target): Float32Array | Uint16Array {
  const values = dequantize(
    Uint8Array.from({ length: f.codeCount }, (_, c) => c),
    f,
  );
  return to === "F32" ? values : (quantize(values, to === "F16" ? "binary16" : "bfloat16") as Uint16Array);
}

/** `values` copied into `out` (of the same type and length) when given. */
export function into(values: Float32Array | Uint16Array, out: Float32Array | Uint16Array | undefined): Float32Array | Uint16Array {
  if (out === undefined) return values;
  (out as Uint16Array).set(values as Uint16Array);
  return out;
}

/** A scale block of at least this many elements gets a table of every code's rounded result. */
export const TABLE_MIN = 1024;

/**
 * Elements [start, start + count) rounded once to `to`. The result of an element depends only on its code and its
 * block's scale, so for large blocks of codes up to 8 bits (DeepSeek's 128×128, per-channel and per-tensor scales,
 * unscaled narrow tensors) each scale gets a table of the rounded value of every code, built with the same
 * arithmetic as readRange, and elements are looked up (in Wasm; gatherRows below is the reference); small blocks are
 * computed element by element. The result goes into `target` when given. With a `room` (a converter's buffers in Wasm
 * memory, room.ts) and a `target` in Wasm memory, byte codes are read into the room and the tables rounded there, so
 * nothing is copied in or out of Wasm memory.
 */
export async function readRounded(
  r: Recipe,
  start: number,
  count: number,
  to: Target,
  target?: Float32Array | Uint16Array,
  room?: GatherRoom,
): Promise<Float32Array | Uint16Array> {
  const sc = r.scale;
  // Plain float tensors: their stored values are exact as read (float32 holds F16/BF16/F32), rounded once from there.
  if (r.kind === "values" && !sc && r.constant === 1) {
    const { reader, t } = r.elements;
    // Float32 targets are the values themselves (F16/BF16/F32 fit float32): read straight into the caller's array.
    if (to === "F32" && target !== undefined && t.dtype !== "F64") return reader.readValues(t, start, count, target as Float32Array) as Promise<Float32Array>;
    return into(roundTo(await reader.readValues(t, start, count), to), target);
  }
  if (sc && r.kind !== "values" && r.table!.length <= 256 && sc.block[0] * sc.block[1] < TABLE_MIN && count > 0) {
    const rounded = (await roundCodedBlocks(r, start, count, to, target, room)) ?? (await roundSmallBlocks(r, start, count, to, target));
    if (rounded) return rounded;
  }
  if (r.kind === "values" || r.table!.length > 256 || (sc && sc.block[0] * sc.block[1] < TABLE_MIN))
    return into(roundTo(await readRange(r, start, count), to), target);
  const out = target ?? (to === "F32" ? new Float32Array(count) : new Uint16Array(count));
  if (count === 0) return out;
  const lent = lendable(room, target);
  const { reader, t } = r.elements;
  const direct = lent !== undefined && r.kind === "codes" && t.info.bits === 8 && count <= lent.codeBytes;
  const codes = direct
    ? await lent.codes(reader, t, start, count, Math.min(count, t.length - start - count))
    : ((await elementCodes(r, start, count)) as Uint8Array);
  const K = rowLength(r);
  // Without scale tensors (narrow plain tensors) the whole tensor is one block: its table is every code decoded.
  const [bh, bw] = sc ? sc.block : [Number.POSITIVE_INFINITY, K];
  const cols = Math.ceil(K / bw);
  const s0 = sc ? Math.floor(Math.floor(start / K) / bh) : 0;
  const n = r.table!.length;
  let rounded: Float32Array | Uint16Array;
  if (sc) {
    const [, scales] = rangeScales(r, r, start, count, (first, count) => scaleValues(r, first, count), lent);
    rounded = await roundTables(r, await scales, to, lent);
  } else rounded = roundCodes(r.format!, to);
  // One gather per row of blocks (bh rows of K elements), each with that row's cols tables.
  for (let i = 0; i < count; ) {
    const at = start + i;
    const row = Math.floor(at / K);
    const blockRow = sc ? Math.floor(row / bh) : 0;
    const end = sc ? Math.min(count, (blockRow + 1) * bh * K - start) : count;
    const span = { column: at - row * K, rowLength: K, width: bw };
    const tables = bitsOf(rounded).subarray((blockRow - s0) * cols * n, (blockRow - s0 + 1) * cols * n);
    const [c, o] = [codes.subarray(i, end), bitsOf(out).subarray(i, end)];
    if (!gatherScaledWasm(c, o, span, tables, n)) gatherRows(c, o, span, tables, n);
    i = end;
  }
  return out;
}

/**
 * r's tables under `scales` rounded to `to`. In the room (Wasm memory), for 16-bit targets, by the table kernel
 * (assembly/scaled.ts scaledTablesOdd: the exact entries rounded to float32 to odd, as roundInto rounds scaledTable's)
 * and the float32 kernel; else by scaledTable and roundInto, in the room when it has space or in new arrays.
 */
async function roundTables(r: Recipe, scales: Float64Array, to: Target, room: GatherRoom | undefined): Promise<Float32Array | Uint16Array> {
  const f = await factorsOf(r);
  const table = r.table!;
  const n = scales.length * table.length;
  const lent = room && n <= room.entries ? room.tables(to === "F32" ? 32 : 16, n, table.length, scales.length) : undefined;
  if (lent?.values && lent.scales && to !== "F32") {
    lent.values.set(table);
    lent.scales.set(scales);
    const beyond = scaledTablesOddWasm(lent.values, lent.scales, f.m, f.g, f.divide, lent.odd);
    if (beyond !== undefined) {
      // The kernel marks the entries it leaves to the reference with NaN; their exact values as scaledTable's.
      const exact = (i: number) => entryValue(table[i % table.length]!, scales[Math.floor(i / table.length)]!, f);
      const marked: number[] = [];
      const odd = lent.odd;
      for (let i = 0; beyond > 0 && i < odd.length; i++) if (odd[i] !== odd[i]) marked.push(i);
      finishOdd(odd, to, lent.out as Uint16Array, marked, exact);
      return lent.out;
    }
  }
  const out = lent?.out ?? (to === "F32" ? new Float32Array(n) : new Uint16Array(n));
  roundInto(scaledTable(r, scales, f), to, out, lent?.odd ?? new Float32Array(n));
  return out;
}

/** Bit patterns of float32 results (copied as bits, so NaN payloads stay), or the 16-bit patterns themselves. */
function bitsOf(a: Float32Array | Uint16Array): Uint32Array | Uint16Array {
  return a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a;
}

/** The reference of gatherScaledWasm: out[i] = tables[b·n + codes[i]], b the block of element i's column. */
export function gatherRows(codes: Uint8Array, out: Uint16Array | Uint32Array, span: BlockRowSpan, tables: Uint16Array | Uint32Array, n: number): void {
  const { rowLength: K, width: bw } = span;
  let j = span.column;
  for (let i = 0; i < codes.length; j = 0) {
    const rowEnd = Math.min(codes.length, i + K - j);
    while (i < rowEnd) {
      const block = Math.floor(j / bw);
      const end = Math.min(rowEnd, i + (block + 1) * bw - j);
      const offset = block * n;
      j += end - i;
      for (; i < end; i++) out[i] = tables[offset + codes[i]!]!;
    }
  }
}

/** Decoded element values (exact float64) of the range, written into `out` (which is returned). */
async function elementValues(r: Recipe, start: number, count: number, out: Float64Array): Promise<Float64Array> {
  if (r.kind === "values") {
    out.set(await r.elements.reader.readValues(r.elements.t, start, count));
    return out;
  }
  const table = r.table!;
  const codes = await elementCodes(r, start, count);
  for (let i = 0; i < count; i++) out[i] = table[codes[i]!]!;
  return out;
}

/** Element codes of the range (kinds "codes" and "nibbles"). */
async function elementCodes(r: Recipe, start: number, count: number): Promise<Uint8Array | Uint16Array> {
  const { reader, t } = r.elements;
  if (r.kind === "codes") return (await reader.readCodes(t, start, count)) as Uint8Array | Uint16Array;
  // Two 4-bit codes per byte along the row, the even element in the low nibble.
  const first = Math.floor(start / 2);
  const bytes = await reader.readTensorBytes(t, first, Math.ceil((start + count) / 2) - first);
  return unpackCodes(bytes, 4, count + (start & 1)).subarray(start & 1);
}

/** Values of scale elements [start, start + count), each checked: finite, not negative (a power of two for ue8m0). */
async function scaleValues(r: Recipe, start: number, count: number): Promise<Float64Array> {
  const s = r.scale!;
  const { reader, t } = s.entry;
  let values: Float64Array;
  if (s.table) {
    const codes = await reader.readElementBytes(t, start, count);
    values = new Float64Array(count);
    for (let i = 0; i < count; i++) values[i] = s.table[codes.bytes[i]!]!;
  } else values = Float64Array.from(await reader.readValues(t, start, count));
  for (let i = 0; i < count; i++) {
    const v = values[i]!;
    // The common case without a call: positive, finite, and for ue8m0 a power of two (zero float64 fraction bits).
    if (!(v > 0 && v < Number.POSITIVE_INFINITY) || (s.pow2 && !fractionZero(v))) {
      if (!(s.nanBlocks && v !== v)) checkScale(v, s.entry, start + i, s.pow2);
    }
  }
  return values;
}

const f64 = new Float64Array(1);
const words = new Uint32Array(f64.buffer);

/** Whether a positive normal float64 has no fraction bits (a power of two). */
function fractionZero(v: number): boolean {
  f64[0] = v;
  return words[0] === 0 && (words[1]! & 0xfffff) === 0;
}

async function globalValue(r: Recipe): Promise<number> {
  const g = r.global!;
  const v = (await g.entry.reader.readValues(g.entry.t, 0, 1))[0]!;
  checkScale(v, g.entry, 0, false);
  if (v === 0 && g.divide) throw new CheckpointError(`tensor "${g.entry.t.name}"`, "is 0; a divisor must be positive");
  return v;
}

/** Refuses a scale value that is NaN, ±∞, negative or −0 (or, `pow2`, not a power of two), naming its tensor. */
export function checkScale(v: number, e: Entry, index: number, pow2: boolean): void {
  if (scaleAllowed(v, pow2)) return;
  const allowed = pow2 ? "a power of two (config scale_fmt ue8m0)" : "a finite non-negative scale";
  throw new CheckpointError(`tensor "${e.t.name}" in ${e.file}`, `element ${index} is ${Object.is(v, -0) ? "-0" : v}; allowed: ${allowed}`);
}

/** Whether a scale value is allowed: finite, not negative, not −0, and a power of two for ue8m0. */
function scaleAllowed(v: number, pow2: boolean): boolean {
  return Number.isFinite(v) && v >= 0 && !Object.is(v, -0) && (!pow2 || (v > 0 && 2 ** Math.floor(Math.log2(v)) === v));
}

/**
 * The room, lent only for an output in Wasm memory: then nothing on the way allocates in Wasm memory (a first chunk,
 * into a JavaScript array, made the kernels' allocations), so no view made there is detached by a growth.
 */
function lendable(room: GatherRoom | undefined, target: Float32Array | Uint16Array | undefined): GatherRoom | undefined {
  return room !== undefined && target !== undefined && inWasm(target) ? room : undefined;
}

/**
 * The scale elements of the block rows of elements [start, start + count) of r, read by `read`: the index of the
 * first, and its promise. With the room, the next chunk's (a chunk of the same size after this one) is read
 * meanwhile; `owner` tells reads of one kind from another's.
 */
function rangeScales<T>(
  r: Recipe,
  owner: object,
  start: number,
  count: number,
  read: (first: number, count: number) => Promise<T>,
  lent: GatherRoom | undefined,
): [number, Promise<T>] {
  const [first, length] = scaleSpan(r, start, count);
  if (!lent) return [first, read(first, length)];
  const following = Math.min(count, r.tensor.length - start - count);
  return [first, lent.scales(owner, first, length, read, following > 0 ? scaleSpan(r, start + count, following) : undefined)];
}

/** Scale elements [first, first + length) covering the block rows of elements [at, at + count) of r. */
function scaleSpan(r: Recipe, at: number, count: number): [number, number] {
  const K = rowLength(r);
  const [bh, bw] = r.scale!.block;
  const cols = Math.ceil(K / bw);
  const [s0, s1] = [Math.floor(Math.floor(at / K) / bh), Math.floor(Math.floor((at + count - 1) / K) / bh)];
  return [s0 * cols, (s1 - s0 + 1) * cols];
}

/** Elements per row of a recipe's scale grid (see Recipe.rowLength). */
function rowLength(r: Recipe): number {
  const shape = r.tensor.shape;
  return r.rowLength ?? (shape.length === 0 ? 1 : shape[shape.length - 1]!);
}
