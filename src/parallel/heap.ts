// The pool's shared Wasm memory: the threads build of the kernels (scripts/build.mjs; its relaxed-SIMD build where the
// library's own kernels are the relaxed one) instantiated on one shared memory, with the library's allocator
// (src/wasm/heap.ts) above the module's heap base.
import { threadKernelsBase64 } from "../../build/wasm/kernels-threads.js";
import { relaxedThreadKernelsBase64 } from "../../build/wasm/kernels-threads-relaxed.js";
import { type Kernels, type WasmMemory, type WasmModule, base64Bytes } from "../wasm/abi.js";
import { Heap, type WasmView } from "../wasm/heap.js";
import { type KernelTier, instantiateKernels, kernelTier } from "../wasm/instance.js";
import type { WasmArray } from "../wasm/memory.js";

const PAGE = 65536;
/** Pages the shared memory may grow to (1 GiB; shared memories reserve their maximum up front). */
export const MAX_SHARED_PAGES = 16384;

export type HeapView = Uint8Array | Uint16Array | Float32Array | Uint32Array;

/**
 * A typed array in a pool's shared Wasm memory (pool.allocFloat32 / pool.allocCodes): pool calls on it run without
 * copies. Views of shared memory never detach, so `.array` stays valid until free().
 */
export type PoolArray<T extends WasmView> = WasmArray<T>;

/** One shared memory, the threads build instantiated on it (the calling thread's instance) and its allocator. */
export class SharedHeap extends Heap {
  /** The compiled threads build, which every worker instantiates on the same memory. */
  readonly module: WasmModule;
  readonly kernels: Kernels;
  /** The build: the tier of the library's own kernels (relaxed SIMD where the engine has it). */
  readonly tier: KernelTier;

  constructor() {
    const tier = kernelTier();
    const module = new WebAssembly.Module(base64Bytes(tier === "relaxed" ? relaxedThreadKernelsBase64 : threadKernelsBase64));
    const memory: WasmMemory = new WebAssembly.Memory({ initial: 1, maximum: MAX_SHARED_PAGES, shared: true });
    const kernels = instantiateKernels(module, memory);
    super(memory, kernels.heapBase(), MAX_SHARED_PAGES * PAGE, "the pool's shared memory", `${MAX_SHARED_PAGES * PAGE} bytes`);
    this.module = module;
    this.kernels = kernels;
    this.tier = tier;
  }

  /** The current buffer (a new SharedArrayBuffer object after each growth; earlier views stay valid). */
  override get buffer(): SharedArrayBuffer {
    return super.buffer as SharedArrayBuffer;
  }
}
