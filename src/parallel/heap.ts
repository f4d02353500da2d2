// The pool's shared Wasm memory: the threads build of the kernels (scripts/build.mjs) instantiated on one shared
// WebAssembly.Memory, a JS-side allocator above the module's heap base, and handles of arrays living there.
import { threadKernelsBase64 } from "../../build/wasm/kernels-threads.js";
import { ArgumentTypeError, CodeRangeError, describe } from "../errors.js";

const PAGE = 65536;
/** Pages the shared memory may grow to (1 GiB; shared memories reserve their maximum up front). */
export const MAX_SHARED_PAGES = 16384;
const ALIGN = 64;

export type HeapView = Uint8Array | Uint16Array | Float32Array | Uint32Array;
type ViewType<T extends HeapView> = { new (buffer: SharedArrayBuffer, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number };

/** The exports of the threads build that the pool's calling thread uses (the workers call the kernels). */
export interface HeapKernels {
  heapBase(): number;
  encodeParamsBytes(): number;
  nibblePlanes(table: number, planes: number): void;
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

interface Block {
  ptr: number;
  size: number;
}

/** One shared memory with a first-fit allocator (64-byte aligned blocks, coalescing free list, trimmed top). */
export class SharedHeap {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly kernels: HeapKernels;
  /** Every buffer object the memory handed out: views over any of them are views of this memory. */
  readonly #buffers = new WeakSet<ArrayBufferLike>();
  readonly #free: Block[] = [];
  #top: number;

  constructor() {
    this.module = new WebAssembly.Module(decodeBase64(threadKernelsBase64));
    this.memory = new WebAssembly.Memory({ initial: 1, maximum: MAX_SHARED_PAGES, shared: true });
    this.kernels = new WebAssembly.Instance(this.module, { env: { memory: this.memory } }).exports as unknown as HeapKernels;
    this.#top = Math.ceil(this.kernels.heapBase() / ALIGN) * ALIGN;
  }

  /** The current buffer (a new SharedArrayBuffer object after each growth; earlier views stay valid). */
  get buffer(): SharedArrayBuffer {
    const buffer = this.memory.buffer as unknown as SharedArrayBuffer;
    this.#buffers.add(buffer);
    return buffer;
  }

  /** True when `a` is a view of this memory (then its byteOffset is its address). */
  owns(a: ArrayBufferView): boolean {
    return this.#buffers.has(a.buffer);
  }

  alloc(bytes: number, argument = "n"): number {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new CodeRangeError(argument, `needs ${describe(bytes)} bytes; allowed: a non-negative integer`);
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    for (let i = 0; i < this.#free.length; i++) {
      const b = this.#free[i]!;
      if (b.size < size) continue;
      const ptr = b.ptr;
      if (b.size === size) this.#free.splice(i, 1);
      else this.#free[i] = { ptr: b.ptr + size, size: b.size - size };
      return ptr;
    }
    const end = this.#top + size;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      if (end > MAX_SHARED_PAGES * PAGE) {
        throw new CodeRangeError(argument, `needs ${bytes} bytes of the pool's shared memory; allowed: at most ${MAX_SHARED_PAGES * PAGE} bytes in all, so process the data in parts`);
      }
      const want = Math.min(MAX_SHARED_PAGES * PAGE, Math.max(end, Math.min(2 * have, have + 256 * 2 ** 20)));
      try {
        this.memory.grow(Math.ceil((want - have) / PAGE));
      } catch {
        try {
          this.memory.grow(Math.ceil((end - have) / PAGE));
        } catch (error) {
          throw new CodeRangeError(argument, `needs ${bytes} bytes, but the pool's shared memory cannot grow to ${end} bytes (${String(error)}); allowed: what the host grants`);
        }
      }
    }
    this.#top = end;
    return end - size;
  }

  free(ptr: number, bytes: number): void {
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    const list = this.#free;
    let i = 0;
    while (i < list.length && list[i]!.ptr < ptr) i++;
    list.splice(i, 0, { ptr, size });
    if (i + 1 < list.length && list[i]!.ptr + list[i]!.size === list[i + 1]!.ptr) {
      list[i]!.size += list[i + 1]!.size;
      list.splice(i + 1, 1);
    }
    if (i > 0 && list[i - 1]!.ptr + list[i - 1]!.size === list[i]!.ptr) {
      list[i - 1]!.size += list[i]!.size;
      list.splice(i, 1);
    }
    const last = list[list.length - 1];
    if (last && last.ptr + last.size === this.#top) {
      this.#top = last.ptr;
      list.pop();
    }
  }

  /** A zeroed view of n elements at a new block (free it with free(view.byteOffset, view.byteLength)). */
  view<T extends HeapView>(type: ViewType<T>, n: number, argument = "n"): T {
    const ptr = this.alloc(n * type.BYTES_PER_ELEMENT, argument);
    const view = new type(this.buffer, ptr, n);
    view.fill(0);
    return view;
  }
}

/**
 * A typed array in a pool's shared Wasm memory (pool.allocFloat32 / pool.allocCodes): pool calls on it run without
 * copies. Views of shared memory never detach, so `.array` stays valid until free().
 */
export class PoolArray<T extends HeapView> {
  #array: T | undefined;
  readonly #heap: SharedHeap;
  /** Number of elements. */
  readonly length: number;

  constructor(heap: SharedHeap, type: ViewType<T>, length: number) {
    if (!Number.isSafeInteger(length) || length < 0) throw new CodeRangeError("n", `got ${describe(length)}; allowed: a non-negative integer`);
    this.#heap = heap;
    this.length = length;
    this.#array = heap.view(type, length);
  }

  /** The elements (a view of the pool's SharedArrayBuffer). */
  get array(): T {
    if (!this.#array) throw new ArgumentTypeError("handle", "was freed; allowed: a handle before free()");
    return this.#array;
  }

  /** Byte address in the pool's memory. */
  get ptr(): number {
    return this.array.byteOffset;
  }

  get freed(): boolean {
    return this.#array === undefined;
  }

  /** Releases the memory; later use of the handle throws, a second free() does nothing. */
  free(): void {
    if (!this.#array) return;
    this.#heap.free(this.#array.byteOffset, this.#array.byteLength);
    this.#array = undefined;
  }
}
