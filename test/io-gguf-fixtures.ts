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

/** Little-endian bytes of a u32 / u64 (GGUF's integer fields). */
export function u32(n: number): Uint8Array {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

export function u64(n: number | bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(n)));
  return b;
}

/** A GGUF string: u64 byte length, UTF-8 bytes. */
export function str(s: string): Uint8Array {
  const text = Buffer.from(s, "utf8");
  return Buffer.concat([u64(text.length), text]);
}

/** One metadata pair: key, value type id, value bytes. */
export function kv(key: string, type: number, value: Uint8Array): Uint8Array {
  return Buffer.concat([str(key), u32(type), value]);
}

export interface RawTensor {
  name: string;
  /** Dimensions as stored: innermost first. */
  dims: readonly (number | bigint)[];
  type: number;
  offset: number | bigint;
}

/**
 * A GGUF file built byte by byte from the format's rules (independently of GgufWriter): header, metadata pairs,
 * tensor infos, zero padding to `alignment`, then `data`. Counts default to the lists' lengths.
 */
export function rawGguf(o: {
  magic?: string;
  version?: number;
  kvs?: Uint8Array[];
  tensors?: RawTensor[];
  tensorCount?: bigint;
  kvCount?: bigint;
  alignment?: number;
  data?: Uint8Array;
}): Buffer {
  const kvs = o.kvs ?? [];
  const tensors = o.tensors ?? [];
  const parts: Uint8Array[] = [
    Buffer.from(o.magic ?? "GGUF", "latin1"),
    u32(o.version ?? 3),
    u64(o.tensorCount ?? BigInt(tensors.length)),
    u64(o.kvCount ?? BigInt(kvs.length)),
    ...kvs,
  ];
  for (const t of tensors) parts.push(str(t.name), u32(t.dims.length), ...t.dims.map(u64), u32(t.type), u64(t.offset));
  const header = Buffer.concat(parts);
  const alignment = o.alignment ?? 32;
  const padding = Buffer.alloc((alignment - (header.length % alignment)) % alignment);
  return Buffer.concat([header, padding, o.data ?? new Uint8Array(0)]);
}
