// The Wasm path of dot/matvec/matmul (assembly/dot.ts): uploads the rounded-product table of a configuration
// once, copies the operands into Wasm memory and runs dotBatch. Returns undefined when the kernels are missing or
// the configuration is outside what the kernel proves exact; callers then run the reference.
import { kernels } from "../wasm/instance.js";
import { allocBytesRaw, freeBytesRaw, keep, memoryBuffer } from "../wasm/memory.js";
import { modeIndex, projectPartial, type OverflowMode } from "./partials.js";
import { type DotContext, exactInFloat64 } from "./reference.js";

interface DotKernels {
  readonly memory: WebAssembly.Memory;
  dotBatch(a: number, b: number, k: number, m: number, n: number, table: number, blk: number, P: number, minQ: number, maxv: number, mode: number, sa: number, saStride: number, sb: number, sbStride: number, blocks: number, out: number, pairs: number, grid: number): void;
}

export function dotKernels(): DotKernels | undefined {
  const k = kernels() as unknown as DotKernels | undefined;
  return k && typeof k.dotBatch === "function" ? k : undefined;
}

/**
 * Product tables held in Wasm memory at once (512 KiB each: float64 entries, so the kernel adds them without a
 * conversion; the entries a dot product touches stay in L2); the least recently used one is freed beyond it.
 */
const MAX_TABLES = 6;
const TABLE_BYTES = 65536 * 8;
const tables = new Map<string, number>();

/** The float64 table of the (rounded, or exact for mode "exact") products of every code pair (all exact float64 values). */
function productTable(ctx: DotContext): number {
  const key = `${JSON.stringify(ctx.fa)}|${JSON.stringify(ctx.fb)}|${ctx.partials.name}|${ctx.mode}`;
  const hit = tables.get(key);
  if (hit !== undefined) {
    tables.delete(key);
    tables.set(key, hit);
    return hit;
  }
  const values = new Float64Array(65536);
  const { va, vb } = ctx;
  for (let i = 0; i < va.length; i++) {
    for (let j = 0; j < vb.length; j++) {
      const p = va[i]! * vb[j]!;
      values[i * 256 + j] = ctx.mode === "exact" ? p : projectPartial(p, ctx.partials, ctx.mode);
    }
  }
  if (tables.size >= MAX_TABLES) {
    const [oldest, ptr] = tables.entries().next().value as [string, number];
    tables.delete(oldest);
    freeBytesRaw(ptr, TABLE_BYTES);
  }
  const ptr = allocBytesRaw(TABLE_BYTES);
  new Float64Array(memoryBuffer(), ptr, 65536).set(values);
  tables.set(key, ptr);
  return ptr;
}

export interface KernelScales {
  readonly a?: Uint8Array;
  readonly b?: Uint8Array;
  readonly blocks: number;
}

function stride(s: Uint8Array | undefined, rows: number): number {
  return s === undefined ? 0 : s.length === rows ? 1 : 2;
}

/**
 * out[i·n + j] = dot of row i of a and row j of b (k codes each); with `pairs`, out[i] = dot of row i of a and of b. Returns undefined (nothing written) when the
 * kernel does not apply: no kernels, float64 block sums not proved exact, or mode "exact" with scales.
 */
export function dotKernel(a: Uint8Array, b: Uint8Array, k: number, m: number, n: number, ctx: DotContext, scales: KernelScales | undefined, out?: Float32Array, pairs = false): Float32Array | undefined {
  const K = dotKernels();
  if (!K || m * n === 0) return undefined;
  const results = pairs ? m : m * n;
  const exact = ctx.mode === "exact";
  const blk = exact ? Math.max(1, k) : ctx.block;
  if (exact && scales && (scales.a || scales.b)) return undefined;
  if (!exactInFloat64(blk, ctx.productBound, ctx.lowExp)) return undefined;
  // Operands may be views of Wasm memory: re-create them after the allocations below (a growth detaches views).
  const bytesA = a.length;
  const bytesB = b.length;
  const la = scales?.a?.length ?? 0;
  const lb = scales?.b?.length ?? 0;
  const strideA = stride(scales?.a, m);
  const strideB = stride(scales?.b, n);
  const getOut = out ? keep(out) : undefined;
  const getA = keep(a);
  const getB = keep(b);
  const getSa = scales?.a ? keep(scales.a) : undefined;
  const getSb = scales?.b ? keep(scales.b) : undefined;
  const table = productTable(ctx);
  const p = ctx.partials;
  const outBytes = results * 4;
  const pa = allocBytesRaw(bytesA + 8, "a");
  const pb = allocBytesRaw(bytesB + 8, "b");
  const po = allocBytesRaw(outBytes, "out");
  const ps = allocBytesRaw(la + lb, "options.scales");
  try {
    const buf = memoryBuffer();
    new Uint8Array(buf, pa, bytesA).set(getA());
    new Uint8Array(buf, pb, bytesB).set(getB());
    if (getSa) new Uint8Array(buf, ps, la).set(getSa());
    if (getSb) new Uint8Array(buf, ps + la, lb).set(getSb());
    const mode = exact ? 1 : modeIndex(ctx.mode as OverflowMode);
    // grid: the rounded products are partials values, so unscaled sums stay on the partials grid (assembly/dot.ts).
    K.dotBatch(pa, pb, k, m, n, table, blk, p.P, p.minQ, p.max, mode, ps, strideA, ps + la, strideB, scales?.blocks ?? 1, po, pairs ? 1 : 0, exact ? 0 : 1);
    const result = getOut ? getOut() : new Float32Array(results);
    result.set(new Float32Array(memoryBuffer(), po, results));
    return result;
  } finally {
    freeBytesRaw(ps, la + lb);
    freeBytesRaw(po, outBytes);
    freeBytesRaw(pb, bytesB + 8);
    freeBytesRaw(pa, bytesA + 8);
  }
}
