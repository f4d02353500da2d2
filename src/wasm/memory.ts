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
import { type Kernels, kernels } from "./instance.js";

const PAGE = 65536;
/** wasm32 memory ends at 4 GiB (65536 pages on Node 20; docs/wasm-kernels.md §2). */
export const MAX_MEMORY_BYTES = 2 ** 32;
/** Cache-line alignment of every block (v128 loads need 16). */
const ALIGN = 64;
/** Elements per streamed chunk: 64K (≤ 384 KiB of scratch for float32 + 16-bit codes) fits L2; 32K…128K measured within ±10 %. */
export const CHUNK = 65536;

export type WasmView = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
type ViewType<T extends WasmView> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number };

interface Block {
  ptr: number;
  size: number;
}

/** Buffers of Wasm memory that a growth detached: views over them are stale and are rejected by name. */
const staleBuffers = new WeakSet<ArrayBufferLike>();
const freeBlocks: Block[] = [];
let top = -1;
let lastBuffer: ArrayBuffer | undefined;
let liveBytes = 0;

function required(): Kernels {
  const k = kernels();
  if (!k) throw new ArgumentTypeError("wasm", "the WebAssembly kernels are unavailable on this platform (see kernelStatus())");
  return k;
}

/** The current memory buffer; remembers the previous one as stale when memory grew. */
export function memoryBuffer(k: Kernels = required()): ArrayBuffer {
  const buffer = k.memory.buffer;
  if (buffer !== lastBuffer) {
    if (lastBuffer) staleBuffers.add(lastBuffer);
    lastBuffer = buffer;
  }
  return buffer;
}

/** True when `a` is a live view into Wasm memory (then its byteOffset is its address). */
export function inWasm(a: ArrayBufferView): boolean {
  const k = kernels();
  return k !== undefined && a.buffer === memoryBuffer(k);
}

/** Rejects views of Wasm memory from before a growth (they are detached and read as empty). */
export function requireLive(a: ArrayBufferView, argument: string): void {
  memoryBuffer();
  if (staleBuffers.has(a.buffer)) {
    throw new ArgumentTypeError(argument, `is a view of Wasm memory from before it grew (now detached); allowed: a current view, e.g. handle.array read after the last allocation`);
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
  const k = required();
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new CodeRangeError(argument, `needs ${describe(bytes)} bytes; allowed: a non-negative integer`);
  if (top < 0) top = Math.ceil(k.heapBase() / ALIGN) * ALIGN;
  const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
  for (let i = 0; i < freeBlocks.length; i++) {
    const b = freeBlocks[i]!;
    if (b.size < size) continue;
    const ptr = b.ptr;
    if (b.size === size) freeBlocks.splice(i, 1);
    else freeBlocks[i] = { ptr: b.ptr + size, size: b.size - size };
    liveBytes += size;
    return ptr;
  }
  const end = top + size;
  if (end > MAX_MEMORY_BYTES) {
    throw new CodeRangeError(argument, `needs ${bytes} bytes of Wasm memory with ${liveBytes} in use; allowed: at most 4 GiB in all (wasm32), so process the data in parts`);
  }
  const have = k.memory.buffer.byteLength;
  if (end > have) {
    // Grow at least geometrically (few detaching growths) but never past the 4 GiB cap.
    const want = Math.min(MAX_MEMORY_BYTES, Math.max(end, Math.min(2 * have, have + 256 * 2 ** 20)));
    try {
      k.memory.grow(Math.ceil((want - have) / PAGE));
    } catch {
      try {
        k.memory.grow(Math.ceil((end - have) / PAGE));
      } catch (error) {
        throw new CodeRangeError(argument, `needs ${bytes} bytes, but Wasm memory cannot grow to ${end} bytes (${String(error)}); allowed: what the host grants`);
      }
    }
    memoryBuffer(k);
  }
  top = end;
  liveBytes += size;
  return end - size;
}

/** Returns a block from allocBytesRaw to the free list (coalescing neighbours and trimming the top). */
export function freeBytesRaw(ptr: number, bytes: number): void {
  const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
  liveBytes -= size;
  let i = 0;
  while (i < freeBlocks.length && freeBlocks[i]!.ptr < ptr) i++;
  freeBlocks.splice(i, 0, { ptr, size });
  if (i + 1 < freeBlocks.length && freeBlocks[i]!.ptr + freeBlocks[i]!.size === freeBlocks[i + 1]!.ptr) {
    freeBlocks[i]!.size += freeBlocks[i + 1]!.size;
    freeBlocks.splice(i + 1, 1);
  }
  if (i > 0 && freeBlocks[i - 1]!.ptr + freeBlocks[i - 1]!.size === freeBlocks[i]!.ptr) {
    freeBlocks[i - 1]!.size += freeBlocks[i]!.size;
    freeBlocks.splice(i, 1);
  }
  const last = freeBlocks[freeBlocks.length - 1];
  if (last && last.ptr + last.size === top) {
    top = last.ptr;
    freeBlocks.pop();
  }
}

/** Allocator state, for tests and diagnostics. */
export function memoryStats(): { memoryBytes: number; liveBytes: number; topBytes: number; freeBlocks: number; largestFreeBlock: number } {
  const k = required();
  const largestFreeBlock = Math.max(0, ...freeBlocks.map((b) => b.size));
  return { memoryBytes: k.memory.buffer.byteLength, liveBytes, topBytes: Math.max(top, 0), freeBlocks: freeBlocks.length, largestFreeBlock };
}

/** A typed array living in Wasm memory: pass `.array` to bulk calls to run them without copies. */
export class WasmArray<T extends WasmView> {
  #ptr: number;
  #view: T | undefined;
  readonly #type: ViewType<T>;
  /** Number of elements. */
  readonly length: number;

  constructor(type: ViewType<T>, length: number, argument = "n") {
    const types: unknown[] = [Uint8Array, Uint16Array, Uint32Array, Int32Array, Float32Array, Float64Array];
    if (!types.includes(type)) throw new ArgumentTypeError("type", `got ${describe(type)}; allowed: Uint8Array, Uint16Array, Uint32Array, Int32Array, Float32Array or Float64Array`);
    if (!Number.isSafeInteger(length) || length < 0) throw new CodeRangeError(argument, `got ${describe(length)}; allowed: a non-negative integer`);
    if (length * type.BYTES_PER_ELEMENT > MAX_MEMORY_BYTES) {
      throw new CodeRangeError(argument, `is ${length} elements (${length * type.BYTES_PER_ELEMENT} bytes); allowed: at most 4 GiB of Wasm memory`);
    }
    this.#type = type;
    this.length = length;
    this.#ptr = allocBytesRaw(length * type.BYTES_PER_ELEMENT, argument);
    // Zeroed like a new typed array (a reused block holds old data).
    new Uint8Array(memoryBuffer(), this.#ptr, length * type.BYTES_PER_ELEMENT).fill(0);
  }

  /** Byte address in Wasm memory. */
  get ptr(): number {
    if (this.#ptr < 0) throw new ArgumentTypeError("handle", "was freed; allowed: a handle before free()");
    return this.#ptr;
  }

  /** The current view (re-created after memory growth, which detaches earlier views). */
  get array(): T {
    const buffer = memoryBuffer();
    if (!this.#view || this.#view.buffer !== buffer) this.#view = new this.#type(buffer, this.ptr, this.length);
    return this.#view;
  }

  get freed(): boolean {
    return this.#ptr < 0;
  }

  /** Releases the memory; later use of the handle throws, a second free() does nothing. */
  free(): void {
    if (this.#ptr < 0) return;
    freeBytesRaw(this.#ptr, this.length * this.#type.BYTES_PER_ELEMENT);
    this.#ptr = -1;
    this.#view = undefined;
  }
}

export interface StreamOptions {
  /** Number of elements (default: src.length). */
  n?: number;
  /** Elements per indivisible group (2 for packed FP4 bytes, 4 for FP6 triples); chunks hold whole groups. */
  group?: number;
  /** Bytes of src per group (default group × src.BYTES_PER_ELEMENT); the last group may be partial. */
  srcGroupBytes?: number;
  /** Bytes of out per group (default group × out.BYTES_PER_ELEMENT). */
  outGroupBytes?: number;
  /** Extra inputs with one element per element (e.g. caller random bits). */
  extra?: readonly WasmView[];
}

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

/**
 * Runs `run` over src → out chunk by chunk. Sides in Wasm memory are passed by address; others are copied through
 * a reusable scratch region. out may be null (a read-only pass, e.g. validation). Overlapping src/out is rejected.
 */
export function stream(src: WasmView, out: WasmView | null, run: StreamRun, options: StreamOptions = {}): void {
  const k = required();
  const n = options.n ?? src.length;
  const group = options.group ?? 1;
  const groups = Math.ceil(n / group);
  const side = (array: WasmView | null, groupBytes: number, input: boolean, argument: string): Side => {
    if (array) requireLive(array, argument);
    const totalBytes = array ? Math.ceil((n * groupBytes) / group) : 0;
    if (array && array.byteLength < totalBytes) throw new CodeRangeError(argument, `has ${array.byteLength} bytes; allowed: at least ${totalBytes} for ${n} elements`);
    return { array, byteOffset: array ? array.byteOffset : 0, groupBytes, totalBytes, input, direct: array !== null && array.buffer === memoryBuffer(k), scratch: -1 };
  };
  const sides = [
    side(src, options.srcGroupBytes ?? group * src.BYTES_PER_ELEMENT, true, "src"),
    side(out, out ? (options.outGroupBytes ?? group * out.BYTES_PER_ELEMENT) : 0, false, "out"),
    ...(options.extra ?? []).map((a, i) => side(a, group * a.BYTES_PER_ELEMENT, true, `extra[${i}]`)),
  ];
  for (let i = 2; i < sides.length; i++) if (overlaps(sides[1]!, sides[i]!)) throw new ArgumentTypeError("out", `overlaps extra[${i - 2}]; allowed: a separate array`);
  if (overlaps(sides[0]!, sides[1]!)) throw new ArgumentTypeError("out", "overlaps the input; allowed: a separate array");
  if (n === 0) return;
  const chunkGroups = Math.min(groups, Math.max(1, Math.floor(CHUNK / group)));
  // Each staged side gets a slice of the scratch region, rounded to 64 bytes.
  let need = 0;
  for (const s of sides) {
    if (s.direct || !s.array) continue;
    s.scratch = need;
    need += Math.ceil((chunkGroups * s.groupBytes) / ALIGN) * ALIGN;
  }
  // A nested call (a run that streams) gets its own scratch instead of the shared one.
  const nested = streaming;
  let base = -1;
  if (need > 0) {
    if (nested) base = allocBytesRaw(need);
    else {
      if (scratchBytes < need) {
        if (scratchPtr >= 0) freeBytesRaw(scratchPtr, scratchBytes);
        scratchPtr = -1;
        scratchPtr = allocBytesRaw(need);
        scratchBytes = need;
      }
      base = scratchPtr;
    }
  }
  streaming = true;
  try {
    const ptrs = sides.map(() => 0);
    for (let g = 0; g < groups; g += chunkGroups) {
      const count = Math.min(chunkGroups * group, n - g * group);
      const memory = new Uint8Array(memoryBuffer(k));
      for (let i = 0; i < sides.length; i++) {
        const s = sides[i]!;
        if (!s.array) continue;
        const offset = g * s.groupBytes;
        const bytes = Math.min(chunkGroups * s.groupBytes, s.totalBytes - offset);
        if (s.direct) ptrs[i] = s.byteOffset + offset;
        else {
          ptrs[i] = base + s.scratch;
          if (s.input) memory.set(new Uint8Array(s.array.buffer, s.byteOffset + offset, bytes), ptrs[i]);
        }
      }
      run(ptrs[0]!, ptrs[1]!, count, g * group, ptrs.slice(2));
      const out = sides[1]!;
      if (out.array && !out.direct) {
        const offset = g * out.groupBytes;
        const bytes = Math.min(chunkGroups * out.groupBytes, out.totalBytes - offset);
        new Uint8Array(out.array.buffer, out.byteOffset + offset, bytes).set(new Uint8Array(memoryBuffer(k), ptrs[1]!, bytes));
      }
    }
  } finally {
    streaming = nested;
    if (nested && base >= 0) freeBytesRaw(base, need);
  }
}
