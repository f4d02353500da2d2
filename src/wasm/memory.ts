// Wasm memory owned from JavaScript: an allocator, handles whose views survive memory growth, and the streaming
// driver that runs kernels over ordinary JS arrays through a fixed scratch region.
//
// Using the driver from a kernel wrapper (e.g. src/wasm/encode.ts):
//   const k = kernels(); if (!k) return undefined;             // TS reference fallback
//   allocate tables first (growth detaches views), then
//   stream(src, out, (srcPtr, dstPtr, count, first) => k.someKernel(srcPtr, dstPtr, count, tablePtr));
// Wrap caller arrays with keep() before allocating: a growth detaches Wasm views, keep() re-creates them.
// src/out may be any typed arrays: views into Wasm memory run zero-copy, others are copied through the scratch
// region in chunks of CHUNK elements, so Wasm memory does not grow with the input. `first` is the index of the
// chunk's first element (for counter-based random bits); options.extra streams more inputs (e.g. caller random
// bits), whose pointers arrive as the fifth argument. Packed sides set options.group and the byte counts per group.
import { ArgumentTypeError, CodeRangeError, describe } from "../errors.js";
import { ALIGN, Heap, type ViewType, type WasmView } from "./heap.js";
import { type Kernels, kernels } from "./instance.js";

export type { WasmView } from "./heap.js";
/** wasm32 memory ends at 4 GiB (65536 pages of 64 KiB). */
export const MAX_MEMORY_BYTES = 2 ** 32;
/** Elements per streamed chunk: 64K (≤ 384 KiB of scratch for float32 + 16-bit codes) fits L2; 32K…128K measured within ±10 %. */
export const CHUNK = 65536;

const VIEW_TYPES: unknown[] = [Uint8Array, Uint16Array, Uint32Array, Int32Array, Float32Array, Float64Array];

let heap: Heap | undefined;

function required(): Kernels {
  const k = kernels();
  if (!k) throw new ArgumentTypeError("wasm", "the WebAssembly kernels are unavailable on this platform (see kernelStatus())");
  return k;
}

/** The allocator of the kernels' own memory (created with the instance). */
export function runtimeHeap(): Heap {
  const k = required();
  if (heap?.memory !== k.memory) heap = new Heap(k.memory, k.heapBase(), MAX_MEMORY_BYTES, "Wasm memory", "4 GiB");
  return heap;
}

/** The current memory buffer (a new one after each growth, which detaches the previous one). */
export function memoryBuffer(): ArrayBuffer {
  return runtimeHeap().buffer as ArrayBuffer;
}

/** True when `a` is a live view into Wasm memory (then its byteOffset is its address). */
export function inWasm(a: ArrayBufferView): boolean {
  return kernels() !== undefined && runtimeHeap().owns(a);
}

/** Views handed out by WasmArray handles since freed: their memory may already hold another allocation's data. */
const freedViews = new WeakSet<ArrayBufferView>();

/**
 * Rejects a view of freed Wasm memory: one a handle gave out before free(), or any view of the kernels' memory whose
 * bytes no allocation holds. (Memory a later allocation reuses cannot be told apart from it by a subarray.)
 */
export function requireUnfreed(a: ArrayBufferView, argument: string): void {
  if (freedViews.has(a) || (heap?.owns(a) && heap.unallocated(a.byteOffset, a.byteLength))) {
    throw new ArgumentTypeError(argument, "is a view of Wasm memory that was freed (handle.free()); allowed: the array of a live handle");
  }
}

/** Rejects views of Wasm memory from before a growth (they are detached and read as empty). */
export function requireLive(a: ArrayBufferView, argument: string): void {
  requireUnfreed(a, argument);
  if (runtimeHeap().stale(a)) {
    throw new ArgumentTypeError(
      argument,
      `is a view of Wasm memory from before it grew (now detached); allowed: a current view, e.g. handle.array read after the last allocation`,
    );
  }
}

/**
 * A getter for the current view of `a`: Wasm views are re-created over the grown memory (same address), other
 * arrays are returned as they are. Take it before allocating, pass its result to stream() and return it.
 */
export function keep<T extends WasmView>(a: T): () => T {
  if (!inWasm(a)) return () => a;
  const { byteOffset, length } = a;
  const type = a.constructor as ViewType<T>;
  return () => (a.buffer === memoryBuffer() ? a : new type(memoryBuffer(), byteOffset, length));
}

/** Allocates `bytes` bytes (64-byte aligned) and returns the address; grows memory when needed. */
export function allocBytesRaw(bytes: number, argument = "n"): number {
  return runtimeHeap().alloc(bytes, argument);
}

/**
 * Returns a block from allocBytesRaw to the free list (coalescing neighbours and trimming the top). It reaches no
 * further than the heap, so bundles whose only use is a finalizer's free leave the kernels out.
 */
export function freeBytesRaw(ptr: number, bytes: number): void {
  heap?.free(ptr, bytes);
}

/**
 * Runs `call` with a copy of `small` (per-block factors, tables) in Wasm memory at the address it is given,
 * copied back into `small` afterwards when `back`; freed after. Views of Wasm memory the caller holds must be
 * re-made after it (take them with keep() before: the allocation may grow the memory).
 */
export function withUploaded<T>(small: WasmView, call: (ptr: number) => T, back = false): T {
  const ptr = allocBytesRaw(small.byteLength, "small");
  const bytes = new Uint8Array(small.buffer, small.byteOffset, small.byteLength);
  try {
    new Uint8Array(memoryBuffer(), ptr, bytes.length).set(bytes);
    const result = call(ptr);
    if (back) bytes.set(new Uint8Array(memoryBuffer(), ptr, bytes.length));
    return result;
  } finally {
    freeBytesRaw(ptr, bytes.length);
  }
}

/**
 * The library's Wasm memory: its size, the bytes live in allocations (handles, and the kernels' cached tables and
 * 64K-element scratch), the allocator's top and free blocks: to check that handles are freed.
 */
export function memoryStats(): ReturnType<Heap["stats"]> {
  return runtimeHeap().stats();
}

/**
 * A typed array living in Wasm memory (allocFloat32 and friends, or a pool's allocFloat32 / allocCodes): pass
 * `.array` to bulk calls to run them without copies.
 */
export class WasmArray<T extends WasmView> {
  #ptr: number;
  #view: T | undefined;
  /** Every view this handle gave out: refused once it is freed. */
  readonly #issued: T[] = [];
  readonly #type: ViewType<T>;
  readonly #heap: Heap;
  /** Number of elements. */
  readonly length: number;

  /** `heap`: the memory to allocate in (the kernels' own unless a pool passes its shared one). */
  constructor(type: ViewType<T>, length: number, argument = "n", heap: Heap = runtimeHeap()) {
    if (!VIEW_TYPES.includes(type))
      throw new ArgumentTypeError("type", `got ${describe(type)}; allowed: Uint8Array, Uint16Array, Uint32Array, Int32Array, Float32Array or Float64Array`);
    if (!Number.isSafeInteger(length) || length < 0) throw new CodeRangeError(argument, `got ${describe(length)}; allowed: a non-negative integer`);
    const bytes = length * type.BYTES_PER_ELEMENT;
    if (bytes > heap.maxBytes) throw new CodeRangeError(argument, `is ${length} elements (${bytes} bytes); allowed: at most ${heap.limit} of ${heap.name}`);
    this.#type = type;
    this.#heap = heap;
    this.length = length;
    this.#view = heap.view(type, length, argument);
    this.#issued.push(this.#view);
    this.#ptr = this.#view.byteOffset;
  }

  /** Byte address in Wasm memory. */
  get ptr(): number {
    if (this.#ptr < 0) throw new ArgumentTypeError("handle", "was freed; allowed: a handle before free()");
    return this.#ptr;
  }

  /** The current view (re-created after a growth of the kernels' memory, which detaches earlier views). */
  get array(): T {
    const buffer = this.#heap.buffer;
    if (!this.#view || this.#view.buffer !== buffer) {
      this.#view = new this.#type(buffer, this.ptr, this.length);
      this.#issued.push(this.#view);
    }
    return this.#view;
  }

  get freed(): boolean {
    return this.#ptr < 0;
  }

  /** Releases the memory; later use of the handle throws, a second free() does nothing. */
  free(): void {
    if (this.#ptr < 0) return;
    this.#heap.free(this.#ptr, this.length * this.#type.BYTES_PER_ELEMENT);
    this.#ptr = -1;
    this.#view = undefined;
    for (const v of this.#issued) freedViews.add(v);
    this.#issued.length = 0;
  }
}

export interface StreamOptions {
  /** Number of elements (default: src.length). */
  n?: number;
  /** Elements per indivisible group (2 for packed FP4 bytes, 4 for FP6 triples, a block); chunks hold whole groups. */
  group?: number;
  /** Bytes of src per group (default group × src.BYTES_PER_ELEMENT); the last group may be partial. */
  srcGroupBytes?: number;
  /** Bytes of out per group (default group × out.BYTES_PER_ELEMENT). */
  outGroupBytes?: number;
  /** Extra inputs with one element per element (e.g. caller random bits). */
  extra?: readonly WasmView[];
  /** Extra outputs with their bytes per group (e.g. one scale code per block). */
  outputs?: ReadonlyArray<{ readonly array: WasmView; readonly groupBytes: number }>;
  /**
   * The run takes any count (no scratch of its own sized by CHUNK, no cache blocking): when every array is in Wasm
   * memory, one call covers the whole range. Measured for fp8 → binary16 at 16M codes in one process: the 256 chunk
   * calls through this loop cost 7–8 % against one kernel call.
   */
  whole?: boolean;
}

/** A kernel call on one chunk: pointers of src and out, its count and first index, then extra and outputs pointers. */
export type StreamRun = (srcPtr: number, dstPtr: number, count: number, first: number, extraPtrs: readonly number[]) => void;

interface Side {
  array: WasmView | null;
  /** byteOffset captured before any allocation (a growth would detach a Wasm view and zero it). */
  byteOffset: number;
  groupBytes: number;
  totalBytes: number;
  input: boolean;
  direct: boolean;
  scratch: number;
}

let scratchPtr = -1;
let scratchBytes = 0;
let streaming = false;

function overlaps(a: Side, b: Side): boolean {
  if (!a.array || !b.array || a.array.buffer !== b.array.buffer) return false;
  const a0 = a.byteOffset;
  const b0 = b.byteOffset;
  return a0 < b0 + b.totalBytes && b0 < a0 + a.totalBytes && a.totalBytes > 0 && b.totalBytes > 0;
}

/** Scratch of `need` bytes: the shared region, or (for a run that streams again) a block of its own. */
function scratchBase(need: number, nested: boolean): number {
  if (need === 0) return -1;
  if (nested) return allocBytesRaw(need);
  if (scratchBytes < need) {
    if (scratchPtr >= 0) freeBytesRaw(scratchPtr, scratchBytes);
    // Forgotten before allocating: a refused allocation must leave no freed block behind as the scratch.
    scratchPtr = -1;
    scratchBytes = 0;
    scratchPtr = allocBytesRaw(need);
    scratchBytes = need;
  }
  return scratchPtr;
}

/**
 * Runs `run` over src → out chunk by chunk: the only chunker of the kernels' wrappers. Sides in Wasm memory are
 * passed by address; others are copied through a reusable scratch region. out may be null (a read-only pass, e.g.
 * validation). Outputs overlapping an input or each other are rejected.
 */
export function stream(src: WasmView, out: WasmView | null, run: StreamRun, options: StreamOptions = {}): void {
  const h = runtimeHeap();
  const n = options.n ?? src.length;
  const group = options.group ?? 1;
  const groups = Math.ceil(n / group);
  const side = (array: WasmView | null, groupBytes: number, input: boolean, argument: string): Side => {
    if (array) requireLive(array, argument);
    const totalBytes = array ? Math.ceil((n * groupBytes) / group) : 0;
    if (array && array.byteLength < totalBytes)
      throw new CodeRangeError(argument, `has ${array.byteLength} bytes; allowed: at least ${totalBytes} for ${n} elements`);
    return { array, byteOffset: array ? array.byteOffset : 0, groupBytes, totalBytes, input, direct: array !== null && h.owns(array), scratch: -1 };
  };
  const extra = options.extra ?? [];
  const sides = [
    side(src, options.srcGroupBytes ?? group * src.BYTES_PER_ELEMENT, true, "src"),
    side(out, out ? (options.outGroupBytes ?? group * out.BYTES_PER_ELEMENT) : 0, false, "out"),
    ...extra.map((a, i) => side(a, group * a.BYTES_PER_ELEMENT, true, `extra[${i}]`)),
    ...(options.outputs ?? []).map((o, i) => side(o.array, o.groupBytes, false, `outputs[${i}]`)),
  ];
  const name = (i: number) => (i === 0 ? "the input" : i === 1 ? "out" : i < 2 + extra.length ? `extra[${i - 2}]` : `outputs[${i - 2 - extra.length}]`);
  for (let i = 0; i < sides.length; i++) {
    for (let j = i + 1; j < sides.length; j++) {
      const [o, other] = sides[j]!.input ? [i, j] : [j, i];
      if ((!sides[i]!.input || !sides[j]!.input) && overlaps(sides[i]!, sides[j]!))
        throw new ArgumentTypeError(name(o), `overlaps ${name(other)}; allowed: a separate array`);
    }
  }
  if (n === 0) return;
  const inPlace = sides.every((s) => s.direct || !s.array);
  const chunkGroups = options.whole && inPlace ? groups : Math.min(groups, Math.max(1, Math.floor(CHUNK / group)));
  // Each staged side gets a slice of the scratch region, rounded to 64 bytes.
  let need = 0;
  for (const s of sides) {
    if (s.direct || !s.array) continue;
    s.scratch = need;
    need += Math.ceil((chunkGroups * s.groupBytes) / ALIGN) * ALIGN;
  }
  const nested = streaming;
  const base = scratchBase(need, nested);
  streaming = true;
  try {
    const ptrs = sides.map(() => 0);
    const extraPtrs = ptrs.slice(2);
    const bytesAt = (s: Side, g: number) => Math.min(chunkGroups * s.groupBytes, s.totalBytes - g * s.groupBytes);
    for (let g = 0; g < groups; g += chunkGroups) {
      const count = Math.min(chunkGroups * group, n - g * group);
      for (let i = 0; i < sides.length; i++) {
        const s = sides[i]!;
        if (!s.array) continue;
        const offset = g * s.groupBytes;
        ptrs[i] = s.direct ? s.byteOffset + offset : base + s.scratch;
        if (i >= 2) extraPtrs[i - 2] = ptrs[i]!;
        if (s.input && !s.direct) h.views.u8.set(new Uint8Array(s.array.buffer, s.byteOffset + offset, bytesAt(s, g)), ptrs[i]);
      }
      run(ptrs[0]!, ptrs[1]!, count, g * group, extraPtrs);
      for (let i = 1; i < sides.length; i++) {
        const s = sides[i]!;
        if (!s.array || s.input || s.direct) continue;
        const bytes = bytesAt(s, g);
        new Uint8Array(s.array.buffer, s.byteOffset + g * s.groupBytes, bytes).set(h.views.u8.subarray(ptrs[i]!, ptrs[i]! + bytes));
      }
    }
  } finally {
    streaming = nested;
    if (nested && base >= 0) freeBytesRaw(base, need);
  }
}
