// GgufWriter round trips (GgufReader reads back exactly what was written), the encoders against the gguf Python
// package's Q8_0 quantizer and against the block formulas, and atomic writing.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decode, dequantize, quantize, useKernels } from "../src/index.js";
import {
  GgufError,
  GgufReader,
  type GgufTensorSpec,
  type GgufValue,
  GgufWriter,
  IoError,
  mxfp4Blocks,
  mxfp4BlocksFromPairs,
  nvfp4Blocks,
  nvfp4BlocksFromPairs,
  quantizeQ8_0,
} from "../src/io/index.js";
import { expected } from "./io-gguf-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-gguf-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const tmp = () => join(dir, `t-${counter++}.gguf`);

function bits(a: Float32Array): number[] {
  return [...new Uint32Array(a.buffer, a.byteOffset, a.length)];
}

async function write(
  path: string,
  specs: GgufTensorSpec[],
  data: (Uint8Array | Float32Array)[],
  metadata?: Record<string, GgufValue>,
  alignment?: number,
): Promise<void> {
  const w = await GgufWriter.create(path, specs, { metadata, alignment });
  for (const d of data) await (d instanceof Float32Array ? w.writeValues(d) : w.writeBytes(d));
  await w.commit();
}

async function readValues(path: string, name: string, start?: number, count?: number): Promise<Float32Array> {
  const r = await GgufReader.open(path);
  try {
    return await r.readValues(r.tensor(name), start, count);
  } finally {
    await r.close();
  }
}

const E2M1 = Array.from({ length: 16 }, (_, n) => decode(n, "float4_e2m1fn"));

const METADATA: Record<string, GgufValue> = {
  "general.architecture": { type: "STRING", value: "llama" },
  u8: { type: "UINT8", value: 255 },
  i8: { type: "INT8", value: -128 },
  u16: { type: "UINT16", value: 65535 },
  i16: { type: "INT16", value: -32768 },
  u32: { type: "UINT32", value: 4294967295 },
  i32: { type: "INT32", value: -2147483648 },
  f32: { type: "FLOAT32", value: -0 },
  bool: { type: "BOOL", value: false },
  string: { type: "STRING", value: "" },
  u64: { type: "UINT64", value: (1n << 64n) - 1n },
  i64: { type: "INT64", value: -(1n << 63n) },
  f64: { type: "FLOAT64", value: Number.MIN_VALUE },
  tokens: { type: "ARRAY", itemType: "STRING", value: ["<s>", "▁the", ""] },
  empty: { type: "ARRAY", itemType: "INT32", value: [] },
  big: { type: "ARRAY", itemType: "UINT64", value: [0n, 1n << 63n] },
  nested: {
    type: "ARRAY",
    itemType: "ARRAY",
    value: [
      { type: "ARRAY", itemType: "BOOL", value: [true] },
      { type: "ARRAY", itemType: "FLOAT32", value: [1.5, Infinity] },
    ],
  },
};

describe("GgufWriter round trip", () => {
  it("reads back metadata of every type, the alignment, shapes and every tensor type exactly", async () => {
    const path = tmp();
    const f32 = Float32Array.of(0, -0, NaN, Infinity, 1e-45, -3.5, 7, 8, 9, 10, 11, 12);
    const wide = Float32Array.from({ length: 64 }, (_, i) => (i - 31.5) * 1000.25 + (i % 3) * 1e-3);
    const mxScales = Uint8Array.of(0, 127, 255);
    const mxCodes = Uint8Array.from({ length: 96 }, (_, i) => (i * 5) % 16);
    const nvScales = Uint8Array.from({ length: 8 }, (_, i) => [0, 1, 0x38, 0x7e, 0x40, 0x08, 0x30, 0x77][i]!);
    const nvCodes = Uint8Array.from({ length: 128 }, (_, i) => (i * 7 + 3) % 16);
    const specs: GgufTensorSpec[] = [
      { name: "f32", type: "F32", shape: [3, 4] },
      { name: "f16", type: "F16", shape: [2, 1, 32] },
      { name: "bf16", type: "BF16", shape: [64] },
      { name: "q8", type: "Q8_0", shape: [2, 32] },
      { name: "empty", type: "Q8_0", shape: [0, 32] },
      { name: "mx", type: "MXFP4", shape: [3, 32] },
      { name: "nv", type: "NVFP4", shape: [2, 1, 1, 64] },
    ];
    const w = await GgufWriter.create(path, specs, { metadata: METADATA, alignment: 128 });
    await w.writeValues(f32.subarray(0, 5));
    await w.writeValues(f32.subarray(5));
    await w.writeValues(wide);
    await w.writeValues(new Float64Array(wide).map((x) => x * 1e30));
    await w.writeValues(wide.subarray(0, 32));
    await w.writeValues(wide.subarray(32));
    await w.writeBytes(mxfp4Blocks(mxScales, mxCodes));
    const nv = nvfp4Blocks(nvScales, nvCodes);
    await w.writeBytes(nv.subarray(0, 5));
    await w.writeBytes(nv.subarray(5));
    await w.commit();
    expect(readFileSync(path).length % 128).toBe(0);

    const r = await GgufReader.open(path);
    try {
      expect(r.version).toBe(3);
      expect(r.alignment).toBe(128);
      expect(Object.fromEntries(r.metadata)).toEqual({ ...METADATA, "general.alignment": { type: "UINT32", value: 128 } });
      expect(Object.is(r.metadata.get("f32")!.value as number, -0)).toBe(true);
      expect(r.tensors.map((t) => [t.name, t.typeName, t.shape, t.offset % 128])).toEqual(specs.map((s) => [s.name, s.type, s.shape, 0]));
      const values = async (name: string) => r.readValues(r.tensor(name));
      expect(bits(await values("f32"))).toEqual(bits(f32));
      expect(bits(await values("f16"))).toEqual(bits(dequantize(quantize(wide, "binary16"), "binary16")));
      expect(bits(await values("bf16"))).toEqual(
        bits(
          dequantize(
            quantize(
              Float32Array.from(wide, (x) => x * 1e30),
              "bfloat16",
            ),
            "bfloat16",
          ),
        ),
      );
      expect(await r.readTensorBytes(r.tensor("q8"))).toEqual(quantizeQ8_0(wide));
      expect((await values("empty")).length).toBe(0);
      // MXFP4: E2M1(code) · 2^(e − 127), code 8 as +0; e = 255 is 2^128 in ggml (overflowing float32 from |E2M1| ≥ 1).
      const mx = await values("mx");
      const mxWant = Float32Array.from(mxCodes, (c, i) => (c === 8 ? 0 : E2M1[c]! * 2 ** (mxScales[i >> 5]! - 127)));
      expect(bits(mx)).toEqual(bits(mxWant));
      // NVFP4: E2M1(code) · E4M3(scale) for every scale the encoder accepts.
      const nvWant = Float32Array.from(nvCodes, (c, i) => (c === 8 ? 0 : E2M1[c]! * decode(nvScales[i >> 4]!, "float8_e4m3fn")));
      expect(bits(await values("nv"))).toEqual(bits(nvWant));
      expect(bits(await r.readValues(r.tensor("nv"), 70, 20))).toEqual(bits(nvWant.subarray(70, 90)));
    } finally {
      await r.close();
    }
  });

  it("writes a file without tensors, and one of empty tensors only", async () => {
    for (const specs of [[], [{ name: "e", type: "F32", shape: [0] } as GgufTensorSpec]]) {
      const path = tmp();
      await write(path, specs, []);
      const r = await GgufReader.open(path);
      expect(r.tensors.length).toBe(specs.length);
      expect(r.metadata.size).toBe(0);
      await r.close();
    }
  });
});

describe("encoders", () => {
  it("quantizeQ8_0 gives the gguf package's (ggml's reference) bytes for the same float32 input", () => {
    const want = expected("quantized");
    const input = Buffer.from(want.q8_0_input!, "base64");
    const x = new Float32Array(input.buffer.slice(input.byteOffset, input.byteOffset + input.length));
    expect([...quantizeQ8_0(x)]).toEqual([...Buffer.from(want.q8_0_quantized!, "base64")]);
  });

  it("quantizeQ8_0 rounds ties away from zero and stores d = amax/127 as binary16", () => {
    const x = new Float32Array(32);
    x.set([127, 0.5, -0.5, 1.5, -2.5, 126.5]);
    const b = quantizeQ8_0(x);
    expect(b[0]! | (b[1]! << 8)).toBe(0x3c00);
    expect([...new Int8Array(b.buffer, 2, 6)]).toEqual([127, 1, -1, 2, -3, 127]);
    expect(() => quantizeQ8_0(new Float32Array(31))).toThrow(/multiple of the Q8_0 block size 32/);
    expect(() => quantizeQ8_0(Float32Array.from({ length: 32 }, (_, i) => (i === 3 ? NaN : 1)))).toThrow(/values\[3\]: is NaN/);
  });

  it("MXFP4 puts element j in the low nibble of qs[j] and j + 16 in its high nibble; gpt-oss pairs are adjacent", () => {
    const codes = Uint8Array.from({ length: 32 }, (_, i) => i % 16);
    const block = mxfp4Blocks(Uint8Array.of(130), codes);
    expect(block.length).toBe(17);
    expect(block[0]).toBe(130);
    expect([...block.subarray(1)]).toEqual(Array.from({ length: 16 }, (_, j) => j | (j << 4)));
    const pairs = Uint8Array.from({ length: 16 }, (_, i) => codes[2 * i]! | (codes[2 * i + 1]! << 4));
    expect(mxfp4BlocksFromPairs(Uint8Array.of(130), pairs)).toEqual(block);
    expect(() => mxfp4Blocks(Uint8Array.of(1), new Uint8Array(31))).toThrow(/32 per MXFP4 scale/);
    expect(() => mxfp4Blocks(Uint8Array.of(1), new Uint8Array(32).fill(16))).toThrow(/codes\[0\]: is 16/);
  });

  it("pairs packed low nibble first (gpt-oss, ModelOpt) give the blocks of their codes, kernels on and off", () => {
    let seed = 5;
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 24;
    // 8 NVFP4 blocks (32 scales) and 16 MXFP4 blocks: several stream groups and every code at every lane.
    const codes = Uint8Array.from({ length: 512 }, () => next() & 15);
    const pairs = Uint8Array.from({ length: 256 }, (_, i) => codes[2 * i]! | (codes[2 * i + 1]! << 4));
    const nvScales = Uint8Array.from({ length: 32 }, () => next() % 0x7f);
    const mxScales = Uint8Array.from({ length: 16 }, () => next());
    for (const kernels of [true, false]) {
      useKernels(kernels);
      try {
        const nv = nvfp4BlocksFromPairs(nvScales, pairs);
        // Sub-block s: scale byte s mod 4 of block ⌊s/4⌋, then qs[8(s mod 4) + j] = code(16s + j) | code(16s + j + 8) << 4.
        for (let s = 0; s < 32; s++) {
          const block = 36 * (s >> 2);
          expect(nv[block + (s % 4)]).toBe(nvScales[s]);
          for (let j = 0; j < 8; j++) expect(nv[block + 4 + 8 * (s % 4) + j]).toBe(codes[16 * s + j]! | (codes[16 * s + j + 8]! << 4));
        }
        expect(nv).toEqual(nvfp4Blocks(nvScales, codes));
        const mx = mxfp4BlocksFromPairs(mxScales, pairs);
        for (let b = 0; b < 16; b++) {
          expect(mx[17 * b]).toBe(mxScales[b]);
          for (let j = 0; j < 16; j++) expect(mx[17 * b + 1 + j]).toBe(codes[32 * b + j]! | (codes[32 * b + j + 16]! << 4));
        }
      } finally {
        useKernels(true);
      }
    }
    expect(() => nvfp4BlocksFromPairs(nvScales, pairs.subarray(1))).toThrow(/8 per scale/);
    expect(() => nvfp4BlocksFromPairs(nvScales.subarray(1), pairs.subarray(8))).toThrow(/multiple of 4/);
  });

  it("NVFP4 puts sub-block element j in the low nibble of qs[8s + j] and j + 8 in its high nibble", () => {
    const codes = Uint8Array.from({ length: 64 }, (_, i) => (i >> 4) * 4 + (i % 16 < 8 ? 1 : 2));
    const block = nvfp4Blocks(Uint8Array.of(1, 2, 3, 4), codes);
    expect([...block.subarray(0, 4)]).toEqual([1, 2, 3, 4]);
    expect([...block.subarray(4)]).toEqual(Array.from({ length: 32 }, (_, i) => ((i >> 3) * 4 + 1) | (((i >> 3) * 4 + 2) << 4)));
    expect(() => nvfp4Blocks(Uint8Array.of(1, 2, 3, 0x7f), new Uint8Array(64))).toThrow(/scales\[3\]: is 127/);
    expect(() => nvfp4Blocks(Uint8Array.of(1, 2), new Uint8Array(32))).toThrow(/multiple of 4/);
  });

  it("hand-built NVFP4 scales: 0x00 and 0x7F are zero, the sign bit is ignored, 0xFF is 480", async () => {
    const path = tmp();
    const qs = Uint8Array.from({ length: 32 }, (_, i) => (i % 8) | ((15 - (i % 8)) << 4));
    const block = new Uint8Array(36);
    block.set([0x7f, 0x80, 0xff, 0xb8]);
    block.set(qs, 4);
    await write(path, [{ name: "nv", type: "NVFP4", shape: [64] }], [block]);
    const v = await readValues(path, "nv");
    const sub = (scale: number) =>
      Float32Array.from({ length: 16 }, (_, j) => {
        const c = j < 8 ? j : 15 - (j - 8);
        return (c === 8 ? 0 : E2M1[c]!) * scale;
      });
    expect(bits(v.subarray(0, 16))).toEqual(bits(sub(0)));
    expect(bits(v.subarray(16, 32))).toEqual(bits(sub(0)));
    expect(bits(v.subarray(32, 48))).toEqual(bits(sub(480)));
    expect(bits(v.subarray(48, 64))).toEqual(bits(sub(1)));
  });
});

describe("GgufWriter refusals and atomicity", () => {
  const spec: GgufTensorSpec[] = [{ name: "w", type: "Q8_0", shape: [2, 32] }];

  it("checks specs, metadata and alignment before creating anything", async () => {
    const path = tmp();
    const bad: [GgufTensorSpec[], Record<string, GgufValue> | undefined, number | undefined, RegExp][] = [
      [[{ name: "w", type: "Q4_K" as never, shape: [32] }], undefined, undefined, /specs\[0\]\.type: is "Q4_K"; allowed: F32, F16, BF16, Q8_0, MXFP4, NVFP4/],
      [[{ name: "w", type: "Q8_0", shape: [2, 31] }], undefined, undefined, /rows of a multiple of 32 elements/],
      [[{ name: "w", type: "F32", shape: [1, 1, 1, 1, 1] }], undefined, undefined, /up to 4 non-negative integers/],
      [
        [
          { name: "w", type: "F32", shape: [1] },
          { name: "w", type: "F32", shape: [1] },
        ],
        undefined,
        undefined,
        /specs\[1\]\.name: is "w"/,
      ],
      [[], { k: { type: "UINT8", value: 256 } }, undefined, /metadata "k": is 256; allowed: an integer in \[0, 255\] \(UINT8\)/],
      [[], { k: { type: "INT64", value: 1.5 } }, undefined, /metadata "k": is 1.5/],
      [[], { k: { type: "ARRAY", itemType: "STRING", value: ["a", 3 as never] } }, undefined, /metadata "k"\[1\]: is 3; allowed: a string/],
      [[], { k: { type: "TEXT" as never, value: "x" } }, undefined, /metadata "k": is \[object Object\]/],
      [[], undefined, 48, /alignment: is 48; allowed: a power of two/],
      [[], { "general.alignment": { type: "UINT32", value: 64 } }, 32, /is 64 but options.alignment is 32/],
    ];
    for (const [specs, metadata, alignment, message] of bad) {
      await expect(GgufWriter.create(path, specs, { metadata, alignment })).rejects.toThrow(message);
    }
    expect(readdirSync(dir).filter((f) => f.includes(path.split("/").at(-1)!))).toEqual([]);
  });

  it("fsync: refuses a non-boolean; with it the file is the same as without", async () => {
    const specs: GgufTensorSpec[] = [{ name: "w", type: "F32", shape: [2, 64] }];
    await expect(GgufWriter.create(tmp(), specs, { fsync: 1 as never })).rejects.toThrow(/^options.fsync: is number; allowed: true or false$/);
    const values = Float32Array.from({ length: 128 }, (_, i) => i / 7);
    const paths = [tmp(), tmp()];
    for (const [k, path] of paths.entries()) {
      const w = await GgufWriter.create(path, specs, { fsync: k === 0 });
      await w.writeValues(values);
      await w.commit();
    }
    expect(Buffer.compare(readFileSync(paths[0]!), readFileSync(paths[1]!))).toBe(0);
    expect([...(await readValues(paths[0]!, "w"))]).toEqual([...values]);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses an existing file, leaves nothing on abort or an incomplete commit, replaces with force", async () => {
    const path = tmp();
    writeFileSync(path, "keep");
    await expect(GgufWriter.create(path, spec)).rejects.toThrow(IoError);
    const other = tmp();
    const w = await GgufWriter.create(other, spec);
    await w.writeValues(new Float32Array(32));
    await expect(w.writeValues(new Float32Array(64))).rejects.toThrow(/values: has 64 values; tensor "w" has 32 elements left/);
    await expect(w.commit()).rejects.toThrow(GgufError);
    expect(existsSync(other)).toBe(false);
    const w2 = await GgufWriter.create(path, spec, { force: true });
    await w2.writeValues(new Float32Array(64).fill(1));
    await w2.commit();
    expect(readFileSync(path).subarray(0, 4).toString()).toBe("GGUF");
    const w3 = await GgufWriter.create(tmp(), spec);
    await w3.abort();
    await expect(w3.writeBytes(new Uint8Array(1))).rejects.toThrow(/writer is aborted/);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("MXFP4 and NVFP4 values are quantized as ggml does (bytes checked in cli-gguf.test.ts); NaN is refused", async () => {
    const w = await GgufWriter.create(tmp(), [
      { name: "m", type: "MXFP4", shape: [32] },
      { name: "n", type: "NVFP4", shape: [64] },
    ]);
    await expect(w.writeValues(Float32Array.of(NaN, ...new Float32Array(31)))).rejects.toThrow(/values\[0\]: is NaN; allowed: finite values \(MXFP4/);
    await w.writeValues(new Float32Array(32));
    await expect(w.writeValues(new Float32Array(64).fill(Infinity))).rejects.toThrow(/allowed: finite values \(NVFP4/);
    await w.abort();
  });
});

describe("GgufWriter.reserveBytes (bytes another writer puts by position)", () => {
  it("hands out each tensor's data positions in order; the file reads back what was put there", async () => {
    const path = tmp();
    const w = await GgufWriter.create(path, [
      { name: "a", type: "F32", shape: [4] },
      { name: "b", type: "Q8_0", shape: [32] },
    ]);
    const a = w.reserveBytes(8);
    const a2 = w.reserveBytes(8);
    expect(a2.position).toBe(a.position + 8);
    const q = quantizeQ8_0(Float32Array.from({ length: 32 }, (_, i) => i - 16));
    const b = w.reserveBytes(q.length);
    expect(w.next).toBeUndefined();
    const { openSync, writeSync, closeSync } = await import("node:fs");
    const fd = openSync(a.path, "r+");
    writeSync(fd, new Uint8Array(Float32Array.of(1, 2, 3, 4).buffer), 0, 16, a.position);
    writeSync(fd, q, 0, q.length, b.position);
    closeSync(fd);
    await w.commit();
    const r = await GgufReader.open(path);
    expect([...(await r.readValues(r.tensors[0]!))]).toEqual([1, 2, 3, 4]);
    expect([...(await r.readTensorBytes(r.tensors[1]!))]).toEqual([...q]);
    await r.close();
  });

  it("refuses more bytes than the tensor has left", async () => {
    const w = await GgufWriter.create(tmp(), [{ name: "a", type: "F32", shape: [2] }]);
    expect(() => w.reserveBytes(12)).toThrow(/bytes: is 12; allowed: at most the 8 bytes tensor "a" has left/);
    await w.abort();
  });
});
