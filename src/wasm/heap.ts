// One allocator for Wasm memory owned from JavaScript, instantiated for the library's private memory (memory.ts) and
// for a pool's shared memory (parallel/heap.ts).
import { CodeRangeError, describe } from "../errors.js";
import type { WasmMemory } from "./abi.js";

const PAGE = 65536;
/** Cache-line alignment of every block (v128 loads need 16). */
export const ALIGN = 64;

export type WasmView = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
export type ViewType<T extends WasmView> = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number };

export interface HeapViews {
  readonly u8: Uint8Array;
  readonly i32: Int32Array;
  readonly f64: Float64Array;
}

interface Block {
  ptr: number;
  size: number;
}

/** Bytes of a block holding `bytes` (at least one aligned unit). */
function blockSize(bytes: number): number {
  return Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
}

/**
 * A first-fit allocator above the module's heap base: 64-byte aligned blocks, a coalescing free list, the top
 * trimmed on free, geometric growth up to `maxBytes`. A private memory detaches its buffer on growth (views of old
 * buffers are stale); a shared memory keeps old buffers valid (views of any of them are views of this memory).
 */
export class Heap {
  readonly memory: WasmMemory;
  /** What errors call this memory, e.g. "Wasm memory". */
  readonly name: string;
  /** Bytes the memory may grow to, and how errors state that cap. */
  readonly maxBytes: number;
  readonly limit: string;
  /** A shared memory keeps its old buffers valid across growth; a private one detaches them. */
  readonly shared: boolean;
  readonly #free: Block[] = [];
  /** Every buffer the memory handed out. */
  readonly #buffers = new WeakSet<ArrayBufferLike>();
  #current: ArrayBufferLike | undefined;
  #top: number;
  #live = 0;
  /** Private memory: bytes from here up were never in a block, so still hold the zeros the memory grew with. */
  #untouched: number;

  constructor(memory: WasmMemory, heapBase: number, maxBytes: number, name: string, limit: string) {
    this.memory = memory;
    this.name = name;
    this.maxBytes = maxBytes;
    this.limit = limit;
    this.#top = Math.ceil(heapBase / ALIGN) * ALIGN;
    this.shared = typeof SharedArrayBuffer !== "undefined" && this.buffer instanceof SharedArrayBuffer;
    // A shared memory may be written by instances that allocate elsewhere: nothing is assumed zero there.
    this.#untouched = this.shared ? Number.POSITIVE_INFINITY : this.#top;
  }

  /** The current buffer (a new object after each growth). */
  get buffer(): ArrayBufferLike {
    // A private memory's growth detaches the buffer it replaces (its byteLength reads 0): until then the one in hand
    // is current, and reading a property is far cheaper than the memory.buffer getter (~40 ns, several per call).
    if (!this.shared && this.#current !== undefined && this.#current.byteLength !== 0) return this.#current;
    const buffer = this.memory.buffer;
    if (buffer !== this.#current) {
      this.#buffers.add(buffer);
      this.#current = buffer;
      this.#views = undefined;
    }
    return buffer;
  }

  /**
   * Views of the whole current memory, made once per buffer: per-call parameter blocks and staged copies index
   * them instead of constructing a typed array per write.
   */
  get views(): HeapViews {
    const buffer = this.buffer;
    this.#views ??= {
      u8: new Uint8Array(buffer),
      // Unsigned shifts: memory may exceed 2 GiB (wasm32 allows 4), where a signed shift of the length turns negative.
      i32: new Int32Array(buffer, 0, buffer.byteLength >>> 2),
      f64: new Float64Array(buffer, 0, buffer.byteLength >>> 3),
    };
    return this.#views;
  }
  #views: HeapViews | undefined;

  /** True when `a` is a usable view of this memory (then its byteOffset is its address). */
  owns(a: ArrayBufferView): boolean {
    return a.buffer === this.buffer || (this.shared && this.#buffers.has(a.buffer));
  }

  /** True when `a` views a buffer of this private memory from before a growth (detached, reads as empty). */
  stale(a: ArrayBufferView): boolean {
    return a.buffer !== this.buffer && !this.shared && this.#buffers.has(a.buffer);
  }

  /** True when bytes [ptr, ptr + bytes) of a non-empty range lie in no allocated block (freed, or above the top). */
  unallocated(ptr: number, bytes: number): boolean {
    if (bytes === 0) return false;
    if (ptr + bytes > this.#top) return true;
    return this.#free.some((b) => ptr < b.ptr + b.size && b.ptr < ptr + bytes);
  }

  /** Allocates `bytes` bytes (64-byte aligned) and returns the address; grows memory when needed. */
  alloc(bytes: number, argument = "n"): number {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new CodeRangeError(argument, `needs ${describe(bytes)} bytes; allowed: a non-negative integer`);
    const size = blockSize(bytes);
    const list = this.#free;
    for (let i = 0; i < list.length; i++) {
      const b = list[i]!;
      if (b.size < size) continue;
      if (b.size === size) list.splice(i, 1);
      else list[i] = { ptr: b.ptr + size, size: b.size - size };
      this.#live += size;
      return b.ptr;
    }
    const end = this.#top + size;
    if (end > this.maxBytes) {
      throw new CodeRangeError(
        argument,
        `needs ${bytes} bytes of ${this.name} with ${this.#live} in use; allowed: at most ${this.limit} in all, so process the data in parts`,
      );
    }
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      void this.buffer; // remembered, so views of it are known stale once it detaches
      // Grow at least geometrically (few detaching growths) but never past the cap.
      const want = Math.min(this.maxBytes, Math.max(end, Math.min(2 * have, have + 256 * 2 ** 20)));
      try {
        this.memory.grow(Math.ceil((want - have) / PAGE));
      } catch {
        try {
          this.memory.grow(Math.ceil((end - have) / PAGE));
        } catch (error) {
          throw new CodeRangeError(
            argument,
            `needs ${bytes} bytes, but ${this.name} cannot grow to ${end} bytes (${String(error)}); allowed: what the host grants`,
          );
        }
      }
    }
    this.#top = end;
    this.#live += size;
    if (!this.shared) this.#untouched = Math.max(this.#untouched, end);
    return end - size;
  }

  /** Returns a block from alloc() to the free list (coalescing neighbours and trimming the top). */
  free(ptr: number, bytes: number): void {
    const size = blockSize(bytes);
    const list = this.#free;
    this.#live -= size;
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
  view<T extends WasmView>(type: ViewType<T>, n: number, argument = "n"): T {
    const untouched = this.#untouched;
    const ptr = this.alloc(n * type.BYTES_PER_ELEMENT, argument);
    const view = new type(this.buffer, ptr, n);
    // Zeroed like a new typed array where a block was before (it holds old data); memory never handed out is zero
    // already, and writing it would only fault its pages in (a conversion's buffers: tens of ms).
    const used = Math.min(n, Math.max(0, (untouched - ptr) / type.BYTES_PER_ELEMENT));
    if (used > 0) view.fill(0, 0, Math.ceil(used));
    return view;
  }

  /** Allocator state, for tests and diagnostics. */
  stats(): { memoryBytes: number; liveBytes: number; topBytes: number; freeBlocks: number; largestFreeBlock: number } {
    const largestFreeBlock = Math.max(0, ...this.#free.map((b) => b.size));
    return { memoryBytes: this.memory.buffer.byteLength, liveBytes: this.#live, topBytes: this.#top, freeBlocks: this.#free.length, largestFreeBlock };
  }
}
