// A safetensors file for the remote-reading tests, written by SafetensorsWriter: a 1 MiB tensor (several body
// chunks, for progress), small float tensors of different widths, codes of a recorded format, packed FP4 and an
// empty tensor.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { format } from "../../src/index.js";
import { SafetensorsWriter, type TensorSpec } from "../../src/io/index.js";

export const SPECS: readonly TensorSpec[] = [
  { name: "big", dtype: "F32", shape: [512, 512] },
  { name: "w", dtype: "F32", shape: [4, 8] },
  { name: "h", dtype: "BF16", shape: [10] },
  { name: "q", dtype: "U8", shape: [33], format: format("float8_e4m3fn") },
  { name: "p", dtype: "F4", shape: [7] },
  { name: "e", dtype: "F32", shape: [0] },
];

/** Deterministic values spread over several binades, signs and a few exact small integers. */
export function valuesOf(n: number, seed: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => (i % 3 === 0 ? (i % 7) - 3 : Math.sin(i * 0.37 + seed) * 2 ** ((i % 9) - 4)));
}

/** Writes the fixture into `dir` and returns its path and bytes. */
export async function writeFixture(dir: string): Promise<{ path: string; bytes: Uint8Array }> {
  const path = join(dir, "model.safetensors");
  const w = await SafetensorsWriter.create(path, SPECS, { metadata: { source: "io-remote tests" } });
  for (const [i, spec] of SPECS.entries()) {
    const n = spec.shape.reduce((p, d) => p * d, 1);
    if (n > 0) await w.writeValues(valuesOf(n, i), { saturation: "SatFinite" });
  }
  await w.commit();
  return { path, bytes: new Uint8Array(readFileSync(path)) };
}
