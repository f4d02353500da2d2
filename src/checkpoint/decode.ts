// Exact values of a range of a logical tensor. Every element is code value × block scale (× or ÷ a global scalar):
// decoded codes are exact float64 values, and a product of significands of at most 2 (E2M1), 4 (E4M3) and 24
// (float32 scales) bits has at most 30 bits, so float64 holds every product exactly. compressed-tensors NVFP4
// divides by weight_global_scale instead: that quotient is rounded once to float64, and the argument in
// docs/checkpoints.md ("Exactness") shows that rounding it again to float32, float16 or bfloat16 gives the correctly
// rounded exact quotient. Only the scale rows covering the range are read, so memory follows the range asked for.
import { CheckpointError } from "./errors.js";
import type { Entry, Recipe } from "./recognize.js";

/** Exact values of elements [start, start + count) of a recipe's logical tensor (quotients: see above). */
export async function readRange(r: Recipe, start: number, count: number): Promise<Float64Array> {
  const out = new Float64Array(count);
  if (count === 0) return out;
  const el = await elementValues(r, start, count, out);
  if (!r.scale) {
    if (r.constant !== 1) for (let i = 0; i < count; i++) out[i] = el[i]! * r.constant;
    return out;
  }
  const shape = r.tensor.shape;
  const K = shape.length === 0 ? 1 : shape[shape.length - 1]!;
  const [bh, bw] = r.scale.block;
  const cols = Math.ceil(K / bw);
  const firstRow = Math.floor(start / K);
  const lastRow = Math.floor((start + count - 1) / K);
  const s0 = Math.floor(firstRow / bh);
  const scales = await scaleValues(r, s0 * cols, (Math.floor(lastRow / bh) - s0 + 1) * cols);
  const g = r.global ? await globalValue(r) : 1;
  const m = r.global?.divide ? 1 : g * r.constant;
  for (let i = 0, at = start; i < count; ) {
    const row = Math.floor(at / K);
    const rowEnd = Math.min(count, i + (row + 1) * K - at);
    const base = (Math.floor(row / bh) - s0) * cols;
    let j = at - row * K;
    for (; i < rowEnd; i++, j++) {
      // ≤ 30 significant bits: exact; times m (a power of two or 1 unless minifloat's tensor scale, ≤ 30 bits
      // in all) also exact.
      const v = el[i]! * scales[base + Math.floor(j / bw)]! * m;
      out[i] = r.global?.divide ? v / g : v;
    }
    at = start + i;
  }
  return out;
}

/** Decoded element values (exact float64) of the range, written into `out` (which is returned). */
async function elementValues(r: Recipe, start: number, count: number, out: Float64Array): Promise<Float64Array> {
  const { reader, t } = r.elements;
  if (r.kind === "values") {
    out.set(await reader.readValues(t, start, count));
    return out;
  }
  const table = r.table!;
  if (r.kind === "codes") {
    const codes = await reader.readCodes(t, start, count);
    for (let i = 0; i < count; i++) out[i] = table[codes[i]!]!;
    return out;
  }
  // Two 4-bit codes per byte along the row, the even element in the low nibble.
  const first = Math.floor(start / 2);
  const bytes = await reader.readTensorBytes(t, first, Math.ceil((start + count) / 2) - first);
  for (let i = 0, e = start; i < count; i++, e++) {
    const b = bytes[(e >> 1) - first]!;
    out[i] = table[e & 1 ? b >> 4 : b & 15]!;
  }
  return out;
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
  for (let i = 0; i < count; i++) checkScale(values[i]!, s.entry, start + i, s.pow2);
  return values;
}

async function globalValue(r: Recipe): Promise<number> {
  const g = r.global!;
  const v = (await g.entry.reader.readValues(g.entry.t, 0, 1))[0]!;
  checkScale(v, g.entry, 0, false);
  if (v === 0 && g.divide) throw new CheckpointError(`tensor "${g.entry.t.name}"`, "is 0; a divisor must be positive");
  return v;
}

function checkScale(v: number, e: Entry, index: number, pow2: boolean): void {
  const power = v > 0 && 2 ** Math.floor(Math.log2(v)) === v;
  if (Number.isFinite(v) && v >= 0 && !Object.is(v, -0) && (!pow2 || power)) return;
  const allowed = pow2 ? "a power of two (config scale_fmt ue8m0)" : "a finite non-negative scale";
  throw new CheckpointError(`tensor "${e.t.name}" in ${e.file}`, `element ${index} is ${Object.is(v, -0) ? "-0" : v}; allowed: ${allowed}`);
}
