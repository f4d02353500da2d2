// The Wasm path of dot/matvec/matmul (assembly/dot.ts): uploads the rounded-product table of a configuration
// once, brings the operands into Wasm memory (in place, streamed or copied; see dotKernel) and runs dotBatch.
// Returns undefined when the kernels are missing or the configuration is outside what the kernel proves exact;
// callers then run the reference.
import { kernels } from "../wasm/instance.js";
import { allocBytesRaw, freeBytesRaw, inWasm, keep, memoryBuffer } from "../wasm/memory.js";
import { modeIndex, projectPartial, type OverflowMode } from "./partials.js";
import { type DotContext, exactInFloat64 } from "./reference.js";

interface DotKernels {
  readonly memory: WebAssembly.Memory;
  dotBatch(a: number, b: number, k: number, m: number, n: number, table: number, blk: number, P: number, minQ: number, maxv: number, mode: number, sa: number, saStride: number, sb: number, sbStride: number, blocks: number, out: number, pairs: number, grid: number, carry: number, idx: number): void;
  dotScratch(): number;
}

export function dotKernels(): DotKernels | undefined {
  const k = kernels() as unknown as DotKernels | undefined;
  return k && typeof k.dotBatch === "function" ? k : undefined;
}

/** Product tables held in Wasm memory at once (256 KiB each: float32 entries); the least recently used one is freed beyond it. */
const MAX_TABLES = 6;
const TABLE_BYTES = 65536 * 4;
const tables = new Map<string, number>();

/** Table keys of format objects (formats are frozen; equal formats built separately share the key's text). */
const formatKeys = new WeakMap<object, string>();
function formatKey(f: object): string {
  let key = formatKeys.get(f);
  if (key === undefined) {
    key = JSON.stringify(f);
    formatKeys.set(f, key);
  }
  return key;
}

/** The key of a product table: the operand formats, the partials and the overflow mode. */
export function productKey(ctx: DotContext): string {
  return `${formatKey(ctx.fa)}|${formatKey(ctx.fb)}|${ctx.partials.name}|${ctx.mode}`;
}

/**
 * The float32 table of the (rounded, or exact for mode "exact") products of every code pair (index a·256 + b), or
 * undefined if a value is not a float32 (rounded products are partials values, so only an exact product of a very
 * wide format could be).
 */
export function productValues(ctx: DotContext): Float32Array | undefined {
  const values = new Float32Array(65536);
  const { va, vb } = ctx;
  for (let i = 0; i < va.length; i++) {
    for (let j = 0; j < vb.length; j++) {
      const p = va[i]! * vb[j]!;
      const v = ctx.mode === "exact" ? p : projectPartial(p, ctx.partials, ctx.mode);
      values[i * 256 + j] = v;
      if (values[i * 256 + j] !== v && v === v) return undefined;
    }
  }
  return values;
}

/** The product table of ctx in the kernels' memory (uploaded once, least recently used tables freed). */
function productTable(ctx: DotContext): number | undefined {
  const key = productKey(ctx);
  const hit = tables.get(key);
  if (hit !== undefined) {
    tables.delete(key);
    tables.set(key, hit);
    return hit;
  }
  const values = productValues(ctx);
  if (!values) return undefined;
  if (tables.size >= MAX_TABLES) {
    const [oldest, ptr] = tables.entries().next().value as [string, number];
    tables.delete(oldest);
    freeBytesRaw(ptr, TABLE_BYTES);
  }
  const ptr = allocBytesRaw(TABLE_BYTES);
  new Float32Array(memoryBuffer(), ptr, 65536).set(values);
  tables.set(key, ptr);
  return ptr;
}

/** dotBatch's arguments after the table: BLK, the partials' P, minQ and MaxFinite, the mode index and `grid`. */
export interface DotPlan {
  readonly blk: number;
  readonly P: number;
  readonly minQ: number;
  readonly max: number;
  readonly mode: number;
  readonly grid: number;
}

/**
 * How dotBatch runs dot products of k codes under ctx, or undefined when the kernel does not apply: float64 block
 * sums not proved exact, or mode "exact" with scales.
 */
export function dotPlan(ctx: DotContext, k: number, scaled: boolean): DotPlan | undefined {
  const exact = ctx.mode === "exact";
  const blk = exact ? Math.max(1, k) : ctx.block;
  if ((exact && scaled) || !exactInFloat64(blk, ctx.productBound, ctx.lowExp)) return undefined;
  // grid: the rounded products are partials values, so unscaled sums stay on the partials grid (assembly/dot.ts).
  return { blk, P: ctx.partials.P, minQ: ctx.partials.minQ, max: ctx.partials.max, mode: exact ? 1 : modeIndex(ctx.mode as OverflowMode), grid: exact ? 0 : 1 };
}

export interface KernelScales {
  readonly a?: Uint8Array;
  readonly b?: Uint8Array;
  readonly blocks: number;
}

/** Scale stride of dotBatch: 0 none, 1 one code per row, 2 one per row and block. */
export function stride(s: Uint8Array | undefined, rows: number): number {
  return s === undefined ? 0 : s.length === rows ? 1 : 2;
}

/** Codes per streamed part: two operand parts of 64 KiB stay in L2 while the kernel reads them. */
const PART = 65536;

/**
 * out[i·n + j] = dot of row i of a and row j of b (k codes each); with `pairs`, out[i] = dot of row i of a and of
 * b. Returns undefined (nothing written) when the kernel does not apply: no kernels, float64 block sums not proved
 * exact, or mode "exact" with scales or with products that are not float32 values. Operands that are views of Wasm memory are read in place. Others are copied:
 * dot and dotRows (no scales) stream them through a scratch region in parts of whole rows, or of whole blocks of a
 * long row (the kernel carries the running total from part to part), so the kernel reads them from cache and
 * memory does not grow with the input; matmul and scaled products copy them whole.
 */
export function dotKernel(a: Uint8Array, b: Uint8Array, k: number, m: number, n: number, ctx: DotContext, scales: KernelScales | undefined, out?: Float32Array, pairs = false): Float32Array | undefined {
  const K = dotKernels();
  if (!K || m * n === 0) return undefined;
  const results = pairs ? m : m * n;
  const plan = dotPlan(ctx, k, scales?.a !== undefined || scales?.b !== undefined);
  if (!plan) return undefined;
  const { blk, grid, mode } = plan;
  const exact = ctx.mode === "exact";
  const la = scales?.a?.length ?? 0;
  const lb = scales?.b?.length ?? 0;
  const strideA = stride(scales?.a, m);
  const strideB = stride(scales?.b, n);
  // Row pairs (dotRows) or one dot without scales: rows of a and b go together, so both can be streamed.
  const streamed = strideA === 0 && strideB === 0 && (pairs || (m === 1 && n === 1));
  // Rows per part and codes per part (a long row is cut at block boundaries, except in mode "exact": one block).
  const rowsPerPart = streamed ? Math.max(1, Math.min(m, Math.floor(PART / Math.max(k, 1)))) : m;
  const codesPerPart = streamed && k > PART && !exact ? Math.max(blk, Math.floor(PART / blk) * blk) : Math.max(k, 1);
  const inA = inWasm(a);
  const inB = inWasm(b);
  const scratchA = inA ? 0 : streamed ? rowsPerPart * codesPerPart : a.length;
  const scratchB = inB ? 0 : streamed ? rowsPerPart * codesPerPart : b.length;
  // Operands may be views of Wasm memory: re-create them after the allocations below (a growth detaches views).
  const getOut = out ? keep(out) : undefined;
  const getA = keep(a);
  const getB = keep(b);
  const getSa = scales?.a ? keep(scales.a) : undefined;
  const getSb = scales?.b ? keep(scales.b) : undefined;
  const table = productTable(ctx);
  if (table === undefined) return undefined;
  const outBytes = results * 4;
  const pa = allocBytesRaw(scratchA, "a");
  const pb = allocBytesRaw(scratchB, "b");
  const po = allocBytesRaw(outBytes, "out");
  const ps = allocBytesRaw(la + lb, "options.scales");
  try {
    const buf = memoryBuffer();
    const va = getA();
    const vb = getB();
    if (getSa) new Uint8Array(buf, ps, la).set(getSa());
    if (getSb) new Uint8Array(buf, ps + la, lb).set(getSb());
    const idx = K.dotScratch();
    if (!streamed) {
      if (!inA) new Uint8Array(buf, pa, a.length).set(va);
      if (!inB) new Uint8Array(buf, pb, b.length).set(vb);
      K.dotBatch(inA ? va.byteOffset : pa, inB ? vb.byteOffset : pb, k, m, n, table, blk, plan.P, plan.minQ, plan.max, mode, ps, strideA, ps + la, strideB, scales?.blocks ?? 1, po, pairs ? 1 : 0, grid, 0, idx);
    } else {
      for (let r = 0; r < m; r += rowsPerPart) {
        const rows = Math.min(rowsPerPart, m - r);
        // At least one call per row group (k = 0 writes zeros).
        for (let c = 0; c === 0 || c < k; c += codesPerPart) {
          const len = Math.min(codesPerPart, k - c);
          // One row: its part [c, c + len); several rows: whole rows (then len = k).
          const from = r * k + c;
          const bytes = rows === 1 ? len : rows * k;
          let srcA = va.byteOffset + from;
          let srcB = vb.byteOffset + from;
          if (!inA) {
            new Uint8Array(buf, pa, bytes).set(va.subarray(from, from + bytes));
            srcA = pa;
          }
          if (!inB) {
            new Uint8Array(buf, pb, bytes).set(vb.subarray(from, from + bytes));
            srcB = pb;
          }
          K.dotBatch(srcA, srcB, len, rows, rows, table, blk, plan.P, plan.minQ, plan.max, mode, ps, 0, ps, 0, 1, po + r * 4, 1, grid, c > 0 ? 1 : 0, idx);
        }
      }
    }
    const result = getOut ? getOut() : new Float32Array(results);
    result.set(new Float32Array(memoryBuffer(), po, results));
    return result;
  } finally {
    freeBytesRaw(ps, la + lb);
    freeBytesRaw(po, outBytes);
    freeBytesRaw(pb, scratchB);
    freeBytesRaw(pa, scratchA);
  }
}
