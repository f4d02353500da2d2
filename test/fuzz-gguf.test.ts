// Fuzzing the GGUF parser with random and mutated files (bytes built here from the format's rules, see
// rawGguf): every file is either read completely — each tensor's data within the file, decoded to its element
// count — or refused with a typed error naming the file; no crash, no hang, no allocation beyond the file's size.
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { CodeRangeError } from "../src/errors.js";
import { GgufError, GgufReader, IoError } from "../src/io/index.js";
import { fuzzParameters } from "./fuzz-arbitraries.js";
import { kv, rawGguf, str, u32, u64 } from "./io-gguf-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-fuzz-gguf-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Null most of the time: each mutation is rare, so many files stay valid and the reading path is fuzzed too. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: 5 }, { arbitrary, weight: 1 });
}

/** ggml type id → [elements per block, bytes per block] for the decodable types, Q4_K, and an unknown id. */
const TYPES: Record<number, [number, number]> = { 0: [1, 4], 1: [1, 2], 30: [1, 2], 8: [32, 34], 39: [32, 17], 40: [64, 36], 12: [256, 144], 99: [1, 1] };

/** A metadata value of a random type (arrays of scalars or strings included) as type id and bytes. */
const values: fc.Arbitrary<[number, Uint8Array]> = fc.oneof(
  fc.tuple(fc.constantFrom(0, 1, 7), fc.uint8Array({ minLength: 1, maxLength: 1 })),
  fc.tuple(fc.constantFrom(2, 3), fc.uint8Array({ minLength: 2, maxLength: 2 })),
  fc.tuple(fc.constantFrom(4, 5, 6), fc.uint8Array({ minLength: 4, maxLength: 4 })),
  fc.tuple(fc.constantFrom(10, 11, 12), fc.uint8Array({ minLength: 8, maxLength: 8 })),
  fc.string({ maxLength: 8 }).map((s) => [8, str(s)] as [number, Uint8Array]),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 }).map((a) => [9, Buffer.concat([u32(8), u64(a.length), ...a.map(str)])] as [number, Uint8Array]),
  fc.uint8Array({ maxLength: 12 }).map((a) => [9, Buffer.concat([u32(0), u64(a.length), a])] as [number, Uint8Array]),
);

const files = fc
  .record({
    kvs: fc.array(fc.tuple(fc.constantFrom("general.architecture", "a", "b.c", ""), values), { maxLength: 4 }),
    alignment: rarely(fc.constantFrom(1, 8, 64, 48, 0)),
    tensors: fc.array(
      fc.record({
        name: fc.constantFrom("w", "x", "y.weight", ""),
        type: fc.constantFrom(...Object.keys(TYPES).map(Number)),
        rows: fc.nat(3),
        blocks: fc.nat(3),
        extraDim: fc.boolean(),
      }),
      { maxLength: 4 },
    ),
    countField: rarely(fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }))),
    dimsField: rarely(fc.constantFrom(1n << 62n, (1n << 64n) - 1n, 3n, 0n)),
    offsetShift: rarely(fc.constantFrom(-32, 1, 4, 4096)),
    cut: rarely(fc.nat(600)),
    flips: fc.oneof({ arbitrary: fc.constant([]), weight: 3 }, { arbitrary: fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 3 }), weight: 1 }),
  })
  .map(({ kvs, alignment, tensors, countField, dimsField, offsetShift, cut, flips }) => {
    const pairs = kvs.map(([key, [type, bytes]]) => kv(key, type, bytes));
    if (alignment !== null) pairs.push(kv("general.alignment", 4, u32(alignment)));
    const align = alignment !== null && alignment > 0 && (alignment & (alignment - 1)) === 0 ? alignment : 32;
    let at = 0;
    const infos = tensors.map((t, i) => {
      const [block, size] = TYPES[t.type]!;
      const inner = t.blocks * block;
      const dims: bigint[] = t.extraDim ? [BigInt(inner), BigInt(t.rows), 1n] : [BigInt(inner), BigInt(t.rows)];
      if (i === 0 && dimsField !== null) dims[1] = dimsField;
      const info = { name: t.name, dims, type: t.type, offset: BigInt(Math.max(0, at + (i === 0 ? (offsetShift ?? 0) : 0))) };
      at += Math.ceil((t.blocks * t.rows * size) / align) * align;
      return info;
    });
    const data = Uint8Array.from({ length: at }, (_, i) => (i * 37) & 255);
    const [isTensors, count] = countField ?? [false, null];
    let bytes = rawGguf({
      kvs: pairs,
      tensors: infos,
      alignment: align,
      data,
      ...(count === null ? {} : isTensors ? { tensorCount: count } : { kvCount: count }),
    });
    for (const [where, value] of flips) bytes[where % bytes.length] = value;
    if (cut !== null) bytes = bytes.subarray(0, Math.min(cut, bytes.length));
    return bytes;
  });

/** Bytes of tensor data read, or the error; a watchdog bounds the time. */
async function readAll(path: string): Promise<number | Error> {
  const watchdog = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within 20 s for ${path}`)), 20_000).unref());
  return Promise.race([readTensors(path).catch((e: Error) => e), watchdog]);
}

async function readTensors(path: string): Promise<number> {
  const reader = await GgufReader.open(path);
  let bytes = 0;
  try {
    for (const t of reader.tensors) {
      expect((await reader.readValues(t)).length).toBe(t.length);
      bytes += t.byteSize!;
    }
  } finally {
    await reader.close();
  }
  return bytes;
}

let serial = 0;
describe("GGUF parser fuzzing", () => {
  it("reads a file completely or refuses it with a typed error naming it", async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: files, weight: 9 },
          { arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.concat([Buffer.from("GGUF"), u32(3), b])), weight: 1 },
        ),
        async (bytes) => {
          const path = join(dir, `in-${serial++}.gguf`);
          writeFileSync(path, bytes);
          const result = await readAll(path);
          if (typeof result === "number") {
            accepted++;
            expect(result).toBeLessThanOrEqual(statSync(path).size);
          } else {
            refused++;
            expect(result instanceof GgufError || result instanceof IoError || result instanceof CodeRangeError, String(result)).toBe(true);
            expect(result.message).toContain(path);
          }
          rmSync(path);
        },
      ),
      fuzzParameters(300),
    );
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
