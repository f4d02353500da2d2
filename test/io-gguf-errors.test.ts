// GgufReader refusals: files that are not GGUF, unknown versions, truncation, counts and lengths larger than the
// file could hold (refused before allocating), misaligned or out-of-file tensor data, unknown types.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GgufError, GgufReader, IoError } from "../src/io/index.js";
import { type RawTensor, expected, fixture, kv, rawGguf, str, u32, u64 } from "./io-gguf-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-gguf-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

function file(bytes: Uint8Array): string {
  const path = join(dir, `f-${counter++}.gguf`);
  writeFileSync(path, bytes);
  return path;
}

/** Opens the file, reads every tensor, closes; the error (if any) is returned. */
async function readAll(bytes: Uint8Array): Promise<{ path: string; error?: Error }> {
  const path = file(bytes);
  try {
    const r = await GgufReader.open(path);
    try {
      for (const t of r.tensors) await r.readValues(t);
    } finally {
      await r.close();
    }
    return { path };
  } catch (error) {
    return { path, error: error as Error };
  }
}

async function refused(bytes: Uint8Array, message: RegExp, type: typeof GgufError | typeof IoError = GgufError): Promise<void> {
  const { path, error } = await readAll(bytes);
  expect(error, `expected ${message}`).toBeInstanceOf(type);
  expect(error!.message).toContain(path);
  expect(error!.message).toMatch(message);
}

const F32: RawTensor = { name: "w", dims: [4, 2], type: 0, offset: 0 };

describe("GgufReader refuses", () => {
  it("files that are not GGUF, naming what they start with", async () => {
    await refused(Buffer.from("GGU"), /is not a GGUF file: it has 3 bytes/);
    await refused(Buffer.from("PK\x03\x04 a zip archive"), /is not a GGUF file: it starts with "PK\\u0003\\u0004"/);
    await refused(rawGguf({ magic: "FUGG" }), /is not a GGUF file: it starts with "FUGG"; a GGUF file starts with the bytes "GGUF"/);
  });

  it("unknown and big-endian versions; accepts version 2", async () => {
    await refused(rawGguf({ version: 1 }), /unknown GGUF version 1; allowed: 2, 3/);
    await refused(rawGguf({ version: 0x03000000 }), /is a big-endian GGUF file \(version 3\); allowed: little-endian GGUF files/);
    const v2 = Buffer.from(readFileSync(fixture("types")));
    v2.writeUInt32LE(2, 4);
    const r = await GgufReader.open(file(v2));
    expect(r.version).toBe(2);
    expect(r.tensors.length).toBe(expected("types").tensors.length);
    await r.close();
  });

  it("every truncation of a valid file, within the header or the tensor data", async () => {
    const bytes = readFileSync(fixture("types"));
    const want = expected("types");
    const last = want.tensors.at(-1)!;
    const end = want.dataOffset + last.offset + last.size;
    for (let cut = 0; cut < end; cut += 13) {
      await refused(bytes.subarray(0, cut), /not a GGUF file|truncated/);
    }
    // Only the padding after the last tensor may go.
    expect((await readAll(bytes.subarray(0, end))).error?.message).toMatch(/unsupported ggml type Q4_K \(12\)/);
  });

  it("counts and lengths larger than the file could hold, before allocating", async () => {
    await refused(rawGguf({ kvCount: 1n << 62n }), /the metadata count is 4611686018427387904 but only 8 bytes follow at byte 24, room for at most 0/);
    await refused(rawGguf({ tensorCount: (1n << 64n) - 1n }), /the tensor count is 18446744073709551615/);
    await refused(rawGguf({ kvs: [Buffer.concat([u64(1n << 60n), Buffer.from("key")])] }), /length of metadata key 0 is 1152921504606846976/);
    await refused(rawGguf({ kvs: [kv("k", 8, u64(1e15))] }), /length of the string of metadata "k" is 1000000000000000/);
    await refused(
      rawGguf({ kvs: [kv("k", 9, Buffer.concat([u32(10), u64(1n << 40n)]))] }),
      /item count of metadata "k" is 1099511627776 but only 15 bytes follow at byte 49, room for at most 1/,
    );
    await refused(rawGguf({ kvs: [kv("k", 9, Buffer.concat([u32(8), u64(3), str("a")]))] }), /the length of metadata "k"\[1\]|truncated/);
  });

  it("bad metadata: value types, duplicate keys, alignment", async () => {
    await refused(rawGguf({ kvs: [kv("k", 13, u32(0))] }), /metadata "k": has value type 13; allowed: 0…12/);
    await refused(rawGguf({ kvs: [kv("k", 9, Buffer.concat([u32(77), u64(0)]))] }), /the items of metadata "k": has value type 77/);
    await refused(rawGguf({ kvs: [kv("k", 4, u32(1)), kv("k", 4, u32(2))] }), /metadata key "k" appears twice/);
    await refused(rawGguf({ kvs: [kv("general.alignment", 4, u32(48))] }), /metadata "general.alignment" is UINT32 48; allowed: a UINT32 power of two/);
    await refused(rawGguf({ kvs: [kv("general.alignment", 8, str("64"))] }), /is STRING 64; allowed: a UINT32 power of two/);
    let nested = Buffer.concat([u32(4), u64(0)]);
    for (let i = 0; i < 9; i++) nested = Buffer.concat([u32(9), u64(1), nested]);
    await refused(rawGguf({ kvs: [kv("k", 9, nested)] }), /nests arrays 9 deep; allowed: at most 8/);
  });

  it("bad tensor infos: dimensions, overflow, misaligned or out-of-file data, duplicate names, partial blocks", async () => {
    const data = new Uint8Array(64);
    await refused(rawGguf({ tensors: [{ ...F32, dims: [1, 1, 1, 1, 1] }], data }), /tensor "w" has 5 dimensions; allowed: at most 4/);
    await refused(
      rawGguf({ tensors: [{ ...F32, dims: [1n << 32n, 1n << 32n] }], data }),
      /tensor "w" has dimensions 4294967296 × 4294967296 = 18446744073709551616 elements; allowed: at most 2\^53 − 1/,
    );
    await refused(rawGguf({ tensors: [{ ...F32, dims: [0, 1n << 60n] }], data }), /allowed: at most 2\^53 − 1/);
    await refused(rawGguf({ tensors: [{ ...F32, offset: 4 }], data }), /tensor "w" has data offset 4; allowed: a multiple of the alignment 32/);
    await refused(rawGguf({ tensors: [{ ...F32, offset: 1n << 63n }], data }), /has data offset 9223372036854775808/);
    await refused(
      rawGguf({ tensors: [{ ...F32, dims: [4, 3] }], data: new Uint8Array(40) }),
      /tensor "w" ends at byte 144 but the file has 136: tensor data beyond the file/,
    );
    await refused(rawGguf({ tensors: [F32, F32], data }), /tensor name "w" appears twice/);
    // Data where ggml reads it: the next aligned offset after the previous tensor, no overlap, no gap, in order.
    const v = { ...F32, name: "v" };
    await refused(rawGguf({ tensors: [F32, v], data }), /tensor "v" has data offset 0, expected 32; allowed: each tensor's data right after/);
    await refused(rawGguf({ tensors: [F32, { ...v, offset: 64 }], data: new Uint8Array(96) }), /tensor "v" has data offset 64, expected 32/);
    await refused(
      rawGguf({
        tensors: [
          { ...F32, offset: 32 },
          { ...v, offset: 0 },
        ],
        data,
      }),
      /tensor "w" has data offset 32, expected 0/,
    );
    await refused(
      rawGguf({ tensors: [{ ...F32, dims: [33], type: 8 }], data }),
      /tensor "w" has rows of 33 Q8_0 elements; allowed: a multiple of the block size 32/,
    );
  });

  it("keeps a string's leading U+FEFF (the default UTF-8 decoder drops it) in values, keys and tensor names", async () => {
    const bom = "\ufeff";
    const path = file(rawGguf({ kvs: [kv(`${bom}key`, 8, str(`${bom}value`))], tensors: [{ ...F32, name: `${bom}w` }], data: new Uint8Array(32) }));
    const r = await GgufReader.open(path);
    expect([...r.metadata.entries()].find(([k]) => k.endsWith("key"))).toEqual([`${bom}key`, { type: "STRING", value: `${bom}value` }]);
    expect(r.tensors[0]!.name).toBe(`${bom}w`);
    await r.close();
  });

  it("decoding a tensor of an unknown type id, naming the tensor and the id (opening succeeds)", async () => {
    const path = file(rawGguf({ tensors: [{ ...F32, type: 99 }], data: new Uint8Array(32) }));
    const r = await GgufReader.open(path);
    expect(r.tensors[0]!.typeName).toBe("type 99");
    expect(r.tensors[0]!.byteSize).toBeUndefined();
    await expect(r.readValues(r.tensors[0]!)).rejects.toThrow(`${path}: tensor "w": has unknown ggml type 99`);
    await r.close();
  });

  it("directories and missing files as IoError", async () => {
    await expect(GgufReader.open(dir)).rejects.toThrow(IoError);
    await expect(GgufReader.open(join(dir, "missing.gguf"))).rejects.toThrow(/missing.gguf: not found/);
  });
});
