// The Wasm path of dot/matvec/matmul (assembly/dot.ts): uploads the rounded-product table of a configuration
// once, brings the operands into Wasm memory (in place, streamed or copied; see dotKernel) and runs dotBatch.
// Returns undefined when the kernels are missing or the configuration is outside what the kernel proves exact;
// callers then run the reference.
import type { Format } from "../format/model.js";
import { kernels } from "../wasm/instance.js";
import type { Heap } from "../wasm/heap.js";
import { CHUNK, allocBytesRaw, freeBytesRaw, inWasm, keep, memoryBuffer, runtimeHeap, stream } from "../wasm/memory.js";
import { modeIndex, projectPartial, type OverflowMode } from "./partials.js";
import { type DotContext, exactInFloat64 } from "./reference.js";

/** Product tables held in Wasm memory at once (256 KiB each: float32 entries); the least recently used one is freed beyond it. */
const MAX_TABLES = 6;
const TABLE_BYTES = 65536 * 4;
const tables = new Map<string, number>();

/** Numbers naming Format objects by identity (equal parameters are one interned Format). */
const formatIds = new WeakMap<Format, number>();
let nextFormatId = 0;
function formatId(f: Format): number {
  let id = formatIds.get(f);
  if (id === undefined) formatIds.set(f, (id = nextFormatId++));
  return id;
}

/** The key of a product table: the operand formats, the partials and the overflow mode. */
export function productKey(ctx: DotContext): string {
  return `${formatId(ctx.fa)}|${formatId(ctx.fb)}|${ctx.partials.name}|${ctx.mode}`;
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
  // Repeated calls with one configuration skip the key and the LRU reordering (the last table is never the oldest).
  if (last && last.fa === ctx.fa && last.fb === ctx.fb && last.partials === ctx.partials && last.mode === ctx.mode) return last.ptr;
  const ptr = lookupTable(ctx);
  last = ptr === undefined ? undefined : { fa: ctx.fa, fb: ctx.fb, partials: ctx.partials, mode: ctx.mode, ptr };
  return ptr;
}
let last: (Pick<DotContext, "fa" | "fb" | "partials" | "mode"> & { ptr: number }) | undefined;

function lookupTable(ctx: DotContext): number | undefined {
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

/** How dotBatch rounds: BLK, the partials' P, minQ and MaxFinite, the mode index and `grid` (assembly/dot.ts). */
export interface DotPlan {
  readonly blk: number;
  readonly P: number;
  readonly minQ: number;
  readonly max: number;
  readonly mode: number;
  readonly grid: number;
}

/** A dotBatch configuration: the plan, k codes per row, the product table, the scale layout, pairs and carry. */
export interface DotCall extends DotPlan {
  readonly k: number;
  readonly table: number;
  readonly strideA: number;
  readonly strideB: number;
  readonly blocks: number;
  readonly pairs: boolean;
  readonly carry: boolean;
}

/** Writes dotBatch's parameter block at `ptr` (layout in assembly/dot.ts); `k` and `carry` override the call's. */
export function writeDotParams(heap: Heap, ptr: number, c: DotCall, k = c.k, carry = c.carry): void {
  const { i32, f64 } = heap.views;
  const at = ptr >>> 2; // addresses reach 2^32: unsigned shifts
  i32[at] = k;
  i32[at + 1] = c.table;
  i32[at + 2] = c.blk;
  i32[at + 3] = c.P;
  i32[at + 4] = c.minQ;
  i32[at + 5] = c.mode;
  i32[at + 6] = c.strideA;
  i32[at + 7] = c.strideB;
  i32[at + 8] = c.blocks;
  i32[at + 9] = c.pairs ? 1 : 0;
  i32[at + 10] = c.grid;
  i32[at + 11] = carry ? 1 : 0;
  f64[(ptr + 48) >>> 3] = c.max;
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

/** Codes per streamed part: two operand parts of 64 KiB stay in L2 while the kernel reads them (stream()'s chunk). */
const PART = CHUNK;

/**
 * out[i·n + j] = dot of row i of a and row j of b (k codes each); with `pairs`, out[i] = dot of row i of a and of
 * b. Returns undefined (nothing written) when the kernel does not apply: no kernels, float64 block sums not proved
 * exact, or mode "exact" with scales or with products that are not float32 values. Operands that are views of Wasm
 * memory are read in place. Others: dot and dotRows (no scales) are streamed (stream()) in parts of whole rows, or
 * of whole blocks of a long row (the kernel carries the running total from part to part), so the kernel reads them
 * from cache and memory does not grow with the input; matmul and scaled products copy them whole.
 */
export function dotKernel(
  a: Uint8Array,
  b: Uint8Array,
  k: number,
  m: number,
  n: number,
  ctx: DotContext,
  scales: KernelScales | undefined,
  out?: Float32Array,
  pairs = false,
): Float32Array | undefined {
  const K = kernels();
  if (!K || m * n === 0) return undefined;
  const results = pairs ? m : m * n;
  const plan = dotPlan(ctx, k, scales?.a !== undefined || scales?.b !== undefined);
  if (!plan) return undefined;
  const strideA = stride(scales?.a, m);
  const strideB = stride(scales?.b, n);
  // Row pairs (dotRows) or one dot without scales: rows of a and b go together, so both can be streamed.
  const streamed = strideA === 0 && strideB === 0 && (pairs || (m === 1 && n === 1));
  // Operands may be views of Wasm memory: re-create them after the allocations below (a growth detaches views).
  const [getA, getB, getOut] = [keep(a), keep(b), out ? keep(out) : undefined];
  const getScales = [scales?.a, scales?.b].map((x) => (x ? keep(x) : undefined));
  const table = productTable(ctx);
  if (table === undefined) return undefined;
  // Spelled out: an object spread of the plan here cost more than the kernel on short operands (V8 CloneObjectIC).
  const { blk, P, minQ, max, mode, grid } = plan;
  const call: DotCall = { blk, P, minQ, max, mode, grid, k, table, strideA, strideB, blocks: scales?.blocks ?? 1, pairs: pairs || streamed, carry: false };
  // The static block: in static data, so writing it cannot grow memory.
  const params = K.dotParams();
  const po = allocBytesRaw(results * 4, "out");
  const staged: Array<[number, number]> = [];
  /** The address of an operand: in place, or a copy in a block freed after the call. */
  const stage = (get: () => Uint8Array, argument: string): number => {
    const view = get();
    if (inWasm(view)) return view.byteOffset;
    const ptr = allocBytesRaw(view.length, argument);
    staged.push([ptr, view.length]);
    new Uint8Array(memoryBuffer(), ptr, view.length).set(get());
    return ptr;
  };
  const run = (pa: number, pb: number, kPart: number, rows: number, cols: number, sa: number, sb: number, at: number, carry: boolean) => {
    writeDotParams(runtimeHeap(), params, call, kPart, carry);
    K.dotBatch(params, pa, pb, rows, cols, sa, sb, po + 4 * at);
  };
  try {
    if (!streamed || k === 0) {
      const [pa, pb] = [stage(getA, "a"), stage(getB, "b")];
      const [sa, sb] = getScales.map((get) => (get ? stage(get, "options.scales") : 0));
      run(pa, pb, k, m, streamed ? m : n, sa!, sb!, 0, false);
    } else if (k <= PART || ctx.mode === "exact") {
      // Parts of whole rows (one row per part when a row is longer than a part).
      stream(getA(), null, (pa, _, count, first, [pb]) => run(pa, pb!, k, count / k, count / k, 0, 0, first / k, false), {
        n: m * k,
        group: k,
        extra: [getB()],
      });
    } else {
      // Each long row in parts of whole blocks, its running total carried from part to part.
      for (let r = 0; r < m; r++) {
        const row = (get: () => Uint8Array) => get().subarray(r * k, (r + 1) * k);
        stream(row(getA), null, (pa, _, count, first, [pb]) => run(pa, pb!, count, 1, 1, 0, 0, r, first > 0), { group: plan.blk, extra: [row(getB)] });
      }
    }
    const result = getOut ? getOut() : new Float32Array(results);
    result.set(new Float32Array(memoryBuffer(), po, results));
    return result;
  } finally {
    for (const [ptr, bytes] of staged.reverse()) freeBytesRaw(ptr, bytes);
    freeBytesRaw(po, results * 4);
  }
}
