// The Wasm kernels: instantiated synchronously from the bytes inlined by scripts/build.mjs (no loader, no imports).
import { kernelsBase64 } from "../../build/wasm/kernels.js";

/** Kernel exports (raw pointer ABI: byte addresses and element counts; see assembly/index.ts). */
export interface Kernels {
  readonly memory: WebAssembly.Memory;
  heapBase(): number;
  decodeLut8(src: number, dst: number, n: number, table: number): void;
  decodeLut16(src: number, dst: number, n: number, table: number): void;
  decodeLinear16(src: number, dst: number, n: number, shift: number, offset: number): void;
  decodeIeee16(src: number, dst: number, n: number, params: number, table: number): void;
  nibblePlanes(table: number, planes: number): void;
  decodeNibbles(src: number, dst: number, n: number, planes: number, table: number): void;
  decodePacked4(src: number, dst: number, n: number, planes: number, table: number): void;
  decodePacked6(src: number, dst: number, n: number, table: number): void;
  decodeSplit2(src: number, dst: number, n: number, split: number, table: number): void;
  decodeSplit3(src: number, dst: number, n: number, split: number, table: number): void;
  decodePacked6Split2(src: number, dst: number, n: number, split: number, table: number): void;
  decodePacked6Split3(src: number, dst: number, n: number, split: number, table: number): void;
  maxU8(src: number, n: number): number;
  maxU16(src: number, n: number): number;
  pack4(src: number, dst: number, n: number): void;
  unpack4(src: number, dst: number, n: number): void;
  pack6(src: number, dst: number, n: number): void;
  unpack6(src: number, dst: number, n: number): void;
}

let instance: Kernels | null | undefined;
let enabled = true;
let failure: unknown;

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function instantiate(module: WebAssembly.Module): Kernels {
  return new WebAssembly.Instance(module, {}).exports as unknown as Kernels;
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
      instance = instantiate(new WebAssembly.Module(decodeBase64(kernelsBase64)));
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
    instance = instantiate(await WebAssembly.compile(decodeBase64(kernelsBase64)));
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
