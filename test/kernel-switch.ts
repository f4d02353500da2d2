// Runs a call on the TypeScript reference: the one kernel switch (useKernels) off for the call, on again after.
import { useKernels } from "../src/wasm/instance.js";

export function onReference<T>(call: () => T): T {
  useKernels(false);
  try {
    return call();
  } finally {
    useKernels(true);
  }
}

/** The affine decode kernels' variant bits (src/wasm/decode.ts AFFINE_*) as a name the tests list. */
export function affineKind(variant: number): string {
  return `affine${variant & 1 ? "Odd" : ""}${variant & 2 ? "Window" : ""}`;
}
