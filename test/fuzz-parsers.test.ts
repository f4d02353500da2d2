// Fuzzing the file parsers with random and mutated safetensors files (bytes built here from the format's rule: an
// 8-byte little-endian header length, a JSON header, the data). Every file is either read completely — each
// tensor's values within the bytes the file holds — or refused with a typed error naming the file; no crash, no
// hang, no allocation beyond the file's size, and the CLI leaves no output and no temporary file for a refused one.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { CodeRangeError } from "../src/errors.js";
import { IoError, SafetensorsError, SafetensorsReader } from "../src/io/index.js";
import { fuzzParameters } from "./fuzz-arbitraries.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-fuzz-parsers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DTYPES = ["F32", "F16", "BF16", "F64", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "U8", "I8", "U16", "I32", "F12", "", 7];
const BYTES: Record<string, number> = {
  F32: 4,
  F16: 2,
  BF16: 2,
  F64: 8,
  F8_E4M3: 1,
  F8_E5M2: 1,
  F8_E8M0: 1,
  F4: 0.5,
  F6_E2M3: 0.75,
  U8: 1,
  I8: 1,
  U16: 2,
  I32: 4,
};

/** Null most of the time: each mutation is rare, so many files stay valid and the reading path is fuzzed too. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: 5 }, { arbitrary, weight: 1 });
}

/** A header of consistent tensors (offsets laid end to end) that mutations then break. */
const tensors = fc.array(
  fc.record({
    name: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("w", "w.scales", "__metadata__")),
    dtype: fc.oneof({ arbitrary: fc.constantFrom(...DTYPES.slice(0, 11)), weight: 6 }, { arbitrary: fc.constantFrom(...DTYPES), weight: 1 }),
    shape: fc.oneof(
      { arbitrary: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }), weight: 6 },
      { arbitrary: fc.constantFrom([2 ** 40], [-1], [1.5], "3", [2 ** 53, 2 ** 53], null), weight: 1 },
    ),
  }),
  { maxLength: 4 },
);

const files = fc
  .record({
    tensors,
    metadata: rarely(
      fc.dictionary(
        fc.constantFrom("format", "minifloat.dtype.w", "minifloat.block.w", "x"),
        fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("Binary8p3se", "mxfp4", "nvfp4 tensor_scale=0.5", 3)),
      ),
    ),
    offsetShift: rarely(fc.integer({ min: -3, max: 3 })),
    lengthField: rarely(fc.oneof(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.integer({ min: -4, max: 4 }))),
    cut: rarely(fc.integer({ min: 0, max: 400 })),
    flips: fc.oneof({ arbitrary: fc.constant([]), weight: 3 }, { arbitrary: fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 3 }), weight: 1 }),
    extra: fc.oneof({ arbitrary: fc.constant(0), weight: 5 }, { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 1 }),
  })
  .map(({ tensors, metadata, offsetShift, lengthField, cut, flips, extra }) => {
    const header: Record<string, unknown> = {};
    let at = 0;
    for (const t of tensors) {
      const count = Array.isArray(t.shape) && t.shape.every((d) => Number.isSafeInteger(d) && d >= 0) ? t.shape.reduce((a, b) => a * b, 1) : 1;
      // Huge shapes keep a small data span: the header then claims more than the file holds.
      const size = Math.min(Math.ceil(count * (typeof t.dtype === "string" ? (BYTES[t.dtype] ?? 1) : 1)), 4096);
      header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + size + (offsetShift ?? 0)] };
      at += size;
    }
    if (metadata) header.__metadata__ = metadata;
    const json = Buffer.from(JSON.stringify(header), "utf8");
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(
      lengthField === null ? BigInt(json.length) : typeof lengthField === "bigint" ? lengthField : BigInt(Math.max(0, json.length + lengthField)),
    );
    let bytes = Buffer.concat([prefix, json, Buffer.alloc(at + extra, 0x3c)]);
    for (const [where, value] of flips) bytes[where % bytes.length] = value;
    if (cut !== null) bytes = bytes.subarray(0, Math.min(cut, bytes.length));
    return bytes;
  });

/** Opens and reads every tensor, or returns the typed error; bounded in time by a watchdog. */
async function readAll(path: string): Promise<{ ok: true; bytes: number } | { ok: false; error: unknown }> {
  let reader: SafetensorsReader | undefined;
  const watchdog = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within 20 s for ${path}`)), 20_000).unref());
  const work = (async () => {
    try {
      reader = await SafetensorsReader.open(path);
      let bytes = 0;
      for (const t of reader.tensors) {
        bytes += t.end - t.begin;
        if (t.format) expect((await reader.readValues(t)).length).toBe(t.length);
        else expect((await reader.readTensorBytes(t, 0, t.end - t.begin)).length).toBe(t.end - t.begin);
      }
      return { ok: true as const, bytes };
    } catch (error) {
      return { ok: false as const, error };
    } finally {
      await reader?.close();
    }
  })();
  return Promise.race([work, watchdog]);
}

let serial = 0;
describe("safetensors parser fuzzing", () => {
  it("reads a file completely or refuses it with a typed error naming it; the CLI then writes nothing", async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(files, async (bytes) => {
        const path = join(dir, `in-${serial++}.safetensors`);
        writeFileSync(path, bytes);
        const result = await readAll(path);
        if (result.ok) {
          accepted++;
          // Never more than the file holds: the tensors tile the data buffer exactly.
          expect(result.bytes).toBeLessThanOrEqual(statSync(path).size);
          return;
        }
        refused++;
        const e = result.error;
        expect(e instanceof SafetensorsError || e instanceof IoError || e instanceof CodeRangeError).toBe(true);
        expect((e as Error).message).toContain(path);
        const out = join(dir, `out-${serial}.safetensors`);
        const code = await main(["dequantize", path, "--to", "f32", "-o", out], { stdout: () => undefined, stderr: () => undefined, isTTY: false });
        expect(code).not.toBe(0);
        expect(readdirSync(dir).filter((f) => f.startsWith(`out-${serial}`) || f.startsWith(`.out-${serial}`))).toEqual([]);
        rmSync(path);
      }),
      fuzzParameters(150),
    );
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
