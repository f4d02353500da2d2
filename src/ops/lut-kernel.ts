// Applies a byte-result table of a specialization with the Wasm gather kernels (assembly/lut.ts) when they are
// available; callers fall back to their TypeScript loop when this returns false.
import { kernels } from "../wasm/instance.js";
import { allocBytesRaw, freeBytesRaw, keep, stream } from "../wasm/memory.js";

interface LutKernels {
  lutApply2x8(a: number, b: number, dst: number, n: number, table: number, nb: number): void;
  lutApply1x8(a: number, dst: number, n: number, table: number): void;
}

/** Below this many elements the copy through the streaming scratch costs more than the JS loop saves. */
const MIN_ELEMENTS = 4096;

/** Tables uploaded into Wasm memory, freed when the JS table is collected. */
const uploaded = new WeakMap<Uint8Array, number>();
const release = new FinalizationRegistry<{ ptr: number; bytes: number }>(({ ptr, bytes }) => freeBytesRaw(ptr, bytes));

/**
 * out[i] = table[a[i] · nb + b[i]] (b given) or table[a[i]], with the codes already validated. Returns false when the
 * kernels are unavailable or the array is too short to benefit.
 */
export function applyTableWasm(table: Uint8Array, a: Uint8Array, b: Uint8Array | undefined, nb: number, out: Uint8Array): boolean {
  if (a.length < MIN_ELEMENTS) return false;
  const k = kernels() as unknown as (LutKernels & ReturnType<typeof kernels>) | undefined;
  if (!k || typeof k.lutApply2x8 !== "function") return false;
  // Uploading may grow memory and detach views into it: keep() re-creates the caller's views afterwards.
  const views = [keep(a), b ? keep(b) : undefined, keep(out)] as const;
  let ptr = uploaded.get(table);
  if (ptr === undefined) {
    ptr = allocBytesRaw(table.length, "table");
    new Uint8Array(k.memory.buffer, ptr, table.length).set(table);
    uploaded.set(table, ptr);
    release.register(table, { ptr, bytes: table.length });
  }
  const tablePtr = ptr;
  const [src, second, dst] = [views[0](), views[1]?.(), views[2]()];
  if (second) stream(src, dst, (x, d, count, _first, [y]) => k.lutApply2x8(x, y!, d, count, tablePtr, nb), { extra: [second] });
  else stream(src, dst, (x, d, count) => k.lutApply1x8(x, d, count, tablePtr));
  return true;
}
