// The GGUF fixtures of test/fixtures/gguf (built by scripts/fixtures/gguf.py with the gguf Python package) and
// their expected values.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const FIXTURES = join(import.meta.dirname, "fixtures", "gguf");

export interface Expected {
  alignment: number;
  dataOffset: number;
  metadata: Record<string, { type: string; itemType?: string; value: unknown }>;
  tensors: { name: string; type: string; typeId: number; shape: number[]; offset: number; size: number; values?: string }[];
  q8_0_input?: string;
  q8_0_quantized?: string;
}

export function expected(name: string): Expected {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), "utf8"));
}

export function fixture(name: string): string {
  return join(FIXTURES, `${name}.gguf`);
}

/** float32 bit patterns of base64 little-endian float32 bytes. */
export function bitsOf(base64: string): Uint32Array {
  const b = Buffer.from(base64, "base64");
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}
