// The Wasm kernels: instantiated synchronously from the bytes inlined by scripts/build.mjs (no loader, no imports).
import { kernelsBase64 } from "../../build/wasm/kernels.js";
import { type Kernels, type WasmMemory, type WasmModule, base64Bytes } from "./abi.js";

export type { Kernels } from "./abi.js";

let instance: Kernels | null | undefined;
let enabled = true;
let failure: unknown;

/**
 * An instance of compiled kernels: on a memory of its own, or (the threads build) on an imported shared memory.
 * The one place the exports are cast to their typed ABI.
 */
export function instantiateKernels(module: WasmModule, memory?: WasmMemory): Kernels {
  const imports: WebAssembly.Imports = memory ? { env: { memory: memory as WebAssembly.Memory } } : {};
  const exports = new WebAssembly.Instance(module as WebAssembly.Module, imports).exports;
  return (memory ? { ...exports, memory } : exports) as unknown as Kernels;
}

/**
 * The kernels, or undefined when they are unavailable (no WebAssembly or no SIMD, a browser main thread refusing
 * synchronous compilation before initKernels() finished, or disabled by useKernels(false)): callers then run the
 * TypeScript reference.
 */
export function kernels(): Kernels | undefined {
  if (!enabled) return undefined;
  if (instance === undefined) {
    try {
      instance = instantiateKernels(new WebAssembly.Module(base64Bytes(kernelsBase64)));
    } catch (error) {
      failure = error;
      instance = null;
    }
  }
  return instance ?? undefined;
}

/** Compiles the kernels asynchronously (for browser main threads, where large synchronous compiles are refused). */
export async function initKernels(): Promise<boolean> {
  if (instance) return true;
  try {
    instance = instantiateKernels(await WebAssembly.compile(base64Bytes(kernelsBase64)));
  } catch (error) {
    failure = error;
    instance = null;
  }
  return instance !== null;
}

/** Switches the kernels off (true → on again): every bulk call then uses the TypeScript reference. */
export function useKernels(on: boolean): void {
  enabled = on;
}

/** Whether bulk calls run in Wasm, and why not when they do not. */
export function kernelStatus(): { available: boolean; enabled: boolean; error?: string } {
  const available = (enabled ? kernels() : (instance ?? undefined)) !== undefined;
  return failure === undefined ? { available, enabled } : { available, enabled, error: String(failure) };
}
