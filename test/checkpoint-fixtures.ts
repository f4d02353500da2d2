// The checkpoint fixtures of test/fixtures/checkpoints (built by scripts/fixtures/checkpoints.py with NumPy and
// ml_dtypes) and their expected values: once-rounded float32 / float16 / bfloat16 bits of the exact results.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const CHECKPOINTS = join(import.meta.dirname, "fixtures", "checkpoints");

export const GOOD = [
  "deepseek-fp8",
  "deepseek-fp8-ue8m0",
  "ct-fp8-tensor",
  "ct-fp8-channel",
  "ct-fp8-block",
  "ct-nvfp4",
  "ct-mxfp4",
  "modelopt-fp8",
  "modelopt-fp8-scale-1",
  "modelopt-nvfp4",
  "gpt-oss-mxfp4",
  "sharded",
] as const;

export interface ExpectedTensor {
  scheme: string;
  shape: number[];
  blockShape?: [number, number];
  parts: string[];
  f32: string;
  f16: string;
  bf16: string;
}

export function checkpoint(name: string): string {
  return join(CHECKPOINTS, name);
}

export function expectedTensors(name: string): Record<string, ExpectedTensor> {
  return JSON.parse(readFileSync(join(CHECKPOINTS, name, "expected.json"), "utf8")).tensors;
}

/** Little-endian 32- or 16-bit patterns of base64 bytes. */
export function bits(base64: string, width: 16 | 32): number[] {
  const b = Buffer.from(base64, "base64");
  const copy = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
  return [...(width === 32 ? new Uint32Array(copy) : new Uint16Array(copy))];
}
