// The Wasm kernels: instantiated synchronously from the bytes inlined by scripts/build.mjs (no loader, no imports),
// the relaxed-SIMD build where the engine validates relaxed SIMD (same sources and results), else the baseline.
import { kernelsBase64 } from "../../build/wasm/kernels.js";
import { relaxedKernelsBase64 } from "../../build/wasm/kernels-relaxed.js";
import { type Kernels, type WasmMemory, type WasmModule, base64Bytes } from "./abi.js";
import { hasRelaxedSimd } from "./relaxed-probe.js";

export type { Kernels } from "./abi.js";

let instance: Kernels | null | undefined;
let enabled = true;
let failure: unknown;

/** Which build of the kernels runs: "relaxed" (relaxed SIMD) or "baseline" (SIMD only). */
export type KernelTier = "relaxed" | "baseline";
let tier: KernelTier | undefined;

/**
 * The build to load: the relaxed one where the engine validates relaxed SIMD (nothing compiled), unless the environment
 * variable MINIFLOAT_SIMD is "baseline" (Node; for tests and benchmarks that compare the two builds).
 */
function pickTier(): KernelTier {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  if (env?.MINIFLOAT_SIMD === "baseline") return "baseline";
  return hasRelaxedSimd() ? "relaxed" : "baseline";
}

/** The build this runtime loads, picked once: minifloat/parallel loads the same tier of its threads build. */
export function kernelTier(): KernelTier {
  tier ??= pickTier();
  return tier;
}

/** The bytes of the build this runtime loads. */
function kernelBytes(): Uint8Array<ArrayBuffer> {
  return base64Bytes(kernelTier() === "relaxed" ? relaxedKernelsBase64 : kernelsBase64);
}

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
      instance = instantiateKernels(new WebAssembly.Module(kernelBytes()));
    } catch (error) {
      failure = error;
      instance = null;
    }
  }
  return instance ?? undefined;
}

/** Compiles the kernels asynchronously (for browser main threads, where large synchronous compiles are refused). */
export async function compileKernels(): Promise<boolean> {
  if (instance) return true;
  try {
    instance = instantiateKernels(await WebAssembly.compile(kernelBytes()));
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

/**
 * Whether bulk calls run in Wasm, and why not when they do not; `tier` names the build loaded ("relaxed": relaxed
 * SIMD, "baseline": SIMD only; same results), once one is.
 */
export function kernelStatus(): { available: boolean; enabled: boolean; tier?: KernelTier; error?: string } {
  const available = (enabled ? kernels() : (instance ?? undefined)) !== undefined;
  const status = { available, enabled, ...(instance ? { tier } : {}) };
  return failure === undefined ? status : { ...status, error: String(failure) };
}
