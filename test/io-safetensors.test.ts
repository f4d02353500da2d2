import { mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dequantize, format, quantize } from "../src/index.js";
import { blockLayouts } from "../src/io/blocks.js";
import { CodeRangeError } from "../src/errors.js";
import { BlobSource, type ByteSource, FileSource, IoError, SafetensorsError, SafetensorsReader, SafetensorsWriter, type TensorSpec } from "../src/io/index.js";
import { readInto } from "../src/io/source.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-io-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const tmp = (name = "t") => join(dir, `${name}-${counter++}.safetensors`);

/** A file built by hand (independently of the writer): header JSON plus data bytes. */
function rawFile(header: unknown, data: Uint8Array | number[], headerText?: string): string {
  const body = Buffer.from(headerText ?? JSON.stringify(header), "utf8");
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(body.length));
  const path = tmp("raw");
  writeFileSync(path, Buffer.concat([prefix, body, Buffer.from(data)]));
  return path;
}

async function write(path: string, specs: TensorSpec[], fill: (w: SafetensorsWriter) => Promise<void>, metadata?: Record<string, string>): Promise<void> {
  const w = await SafetensorsWriter.create(path, specs, metadata ? { metadata } : {});
  await fill(w);
  await w.commit();
}

/** A new file with one F32 tensor "x" of n elements holding 0, 1, …, n − 1. */
async function rampFile(n: number): Promise<string> {
  const path = tmp();
  const w = await SafetensorsWriter.create(path, [{ name: "x", dtype: "F32", shape: [n] }]);
  await w.writeValues(Float32Array.from({ length: n }, (_, i) => i));
  await w.commit();
  return path;
}

async function readAll<T>(path: string, f: (r: SafetensorsReader) => Promise<T>): Promise<T> {
  const r = await SafetensorsReader.open(path);
  try {
    return await f(r);
  } finally {
    await r.close();
  }
}

/** Every code of a format that is not NaN, repeated to `n` elements. */
function codesOf(fmtName: string, n: number): Uint8Array | Uint16Array {
  const f = format(fmtName);
  const out = f.K <= 8 ? new Uint8Array(n) : new Uint16Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 7 + 3) % f.codeCount;
  return out;
}

describe("packed tensors in the file", () => {
  it("put the first FP4 element in the low nibble and FP6 element i at bits 6i…6i+5", async () => {
    const path = tmp();
    await write(
      path,
      [
        { name: "a", dtype: "F4", shape: [3] },
        { name: "b", dtype: "F6_E3M2", shape: [5] },
      ],
      async (w) => {
        await w.writeCodes(Uint8Array.of(1, 2, 3));
        await w.writeCodes(Uint8Array.of(1, 2, 3, 4, 63));
      },
    );
    const file = readFileSync(path);
    const data = [...file.subarray(8 + Number(file.readBigUInt64LE(0)))];
    expect(data).toEqual([0x21, 0x03, 0x81, 0x30, 0x10, 0x3f]);
    await readAll(path, async (r) => {
      expect([...(await r.readCodes(r.tensor("b"), 1, 3))]).toEqual([2, 3, 4]);
      expect([...(await r.readCodes(r.tensor("b"), 4, 1))]).toEqual([63]);
    });
  });
});

describe("safetensors round trips", () => {
  const cases: [string, string, number][] = [
    ["F8_E4M3", "float8_e4m3fn", 19],
    ["F8_E5M2", "float8_e5m2", 19],
    ["F8_E8M0", "float8_e8m0fnu", 19],
    ["F6_E2M3", "float6_e2m3fn", 13],
    ["F6_E3M2", "float6_e3m2fn", 11],
    ["F4", "float4_e2m1fn", 13],
    ["F16", "binary16", 21],
    ["BF16", "bfloat16", 21],
  ];
  for (const [dtype, fmtName, n] of cases) {
    it(`${dtype}: codes written in uneven chunks read back whole and by sub-range; header records dtype and shape`, async () => {
      const path = tmp(dtype);
      const codes = codesOf(fmtName, n);
      await write(path, [{ name: "w", dtype, shape: [1, n] }], async (w) => {
        await w.writeCodes(codes.subarray(0, 5));
        await w.writeCodes(codes.subarray(5));
      });
      const bytes = readFileSync(path);
      const headerLength = Number(bytes.readBigUInt64LE(0));
      expect(headerLength % 8).toBe(0);
      const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString("utf8"));
      const bits = dtype === "F4" ? 4 : dtype.startsWith("F6") ? 6 : dtype.includes("16") ? 16 : 8;
      expect(header.w).toEqual({ dtype, shape: [1, n], data_offsets: [0, Math.ceil((n * bits) / 8)] });
      await readAll(path, async (r) => {
        const t = r.tensor("w");
        expect(t.format!.name).toBe(format(fmtName).name);
        expect([...(await r.readCodes(t))]).toEqual([...codes]);
        expect([...(await r.readCodes(t, 3, 7))]).toEqual([...codes.subarray(3, 10)]);
        const values = await r.readValues(t, 1, 5);
        expect(values).toBeInstanceOf(Float32Array);
        expect([...values]).toEqual([...dequantize(codes.subarray(1, 6), fmtName)]);
        // Into a caller's array (from an odd element: packed codes start mid-byte), every other element left alone.
        const out = new Float32Array(5).fill(7);
        expect(await r.readValues(t, 1, 5, out)).toBe(out);
        expect([...out]).toEqual([...values]);
        await expect(r.readValues(t, 1, 5, new Float32Array(4))).rejects.toThrow(/^out: .*Float32Array of 5 elements/);
      });
    });
  }

  it("F32 and F64 keep every bit; F16/BF16 values decode exactly (0x3c00 = 1 = 0x3f80)", async () => {
    const path = tmp();
    const f32 = Float32Array.of(1.5, -0, 3.4028234663852886e38, 1e-45, NaN, -Infinity);
    const f64 = Float64Array.of(Math.PI, -5e-324, 2 ** 1000);
    await write(
      path,
      [
        { name: "a", dtype: "F32", shape: [6] },
        { name: "b", dtype: "F64", shape: [3] },
        { name: "h", dtype: "F16", shape: [2] },
        { name: "g", dtype: "BF16", shape: [2] },
      ],
      async (w) => {
        await w.writeValues(f32);
        await w.writeValues(f64);
        await w.writeCodes(Uint16Array.of(0x3c00, 0xc000));
        await w.writeCodes(Uint16Array.of(0x3f80, 0x4049));
      },
    );
    await readAll(path, async (r) => {
      expect(Object.is((await r.readValues(r.tensor("a")))[1], -0)).toBe(true);
      expect([...(await r.readValues(r.tensor("a")))]).toEqual([...f32]);
      const b = await r.readValues(r.tensor("b"));
      expect(b).toBeInstanceOf(Float64Array);
      expect([...b]).toEqual([...f64]);
      expect([...(await r.readValues(r.tensor("h")))]).toEqual([1, -2]);
      expect([...(await r.readValues(r.tensor("g")))]).toEqual([1, 3.140625]);
      // Into a caller's array: F32 bits kept (−0, NaN), F16/BF16 decoded; F64 refused (it is not float32).
      const out = new Float32Array(6);
      expect(await r.readValues(r.tensor("a"), 0, 6, out)).toBe(out);
      expect([...new Uint32Array(out.buffer)]).toEqual([...new Uint32Array(f32.buffer)]);
      const two = new Float32Array(2);
      expect([...(await r.readValues(r.tensor("g"), 0, 2, two))]).toEqual([1, 3.140625]);
      await expect(r.readValues(r.tensor("b"), 0, 3, new Float32Array(3))).rejects.toThrow(CodeRangeError);
    });
  });

  it("writeValues converts with the library's projection (F16 RNE; F4 with SatFinite)", async () => {
    const path = tmp();
    const x = Float32Array.of(1 + 2 ** -11, 1 + 3 * 2 ** -11, 70000);
    await write(
      path,
      [
        { name: "h", dtype: "F16", shape: [3] },
        { name: "q", dtype: "F4", shape: [3] },
      ],
      async (w) => {
        await w.writeValues(x);
        await w.writeValues(Float32Array.of(2.5, -7, 0.2), { saturation: "SatFinite" });
      },
    );
    await readAll(path, async (r) => {
      expect([...(await r.readCodes(r.tensor("h")))]).toEqual([...quantize(x, "binary16")]);
      expect([...(await r.readValues(r.tensor("h")))]).toEqual([1, 1 + 2 ** -9, Infinity]);
      expect([...(await r.readValues(r.tensor("q")))]).toEqual([2, -6, 0]);
    });
  });

  it("records other formats as U8/U16 codes in __metadata__ and restores them", async () => {
    const path = tmp();
    const specs: TensorSpec[] = [
      { name: "p3", dtype: "U8", shape: [4], format: format("Binary8p3se") },
      { name: "fnuz", dtype: "U8", shape: [4], format: format("float8_e4m3fnuz") },
      { name: "wide", dtype: "U16", shape: [2], format: format("Binary12p5se") },
      { name: "tesla", dtype: "U8", shape: [2], format: format("cfloat8_1_4_3", { bias: 15 }) },
      { name: "ids", dtype: "I32", shape: [2] },
    ];
    await write(
      path,
      specs,
      async (w) => {
        await w.writeCodes(Uint8Array.of(0x5d, 0x80, 0x7f, 0x01));
        await w.writeCodes(Uint8Array.of(0x00, 0x80, 0x7f, 0x01));
        await w.writeCodes(Uint16Array.of(0x7ff, 0x123));
        await w.writeCodes(Uint8Array.of(0x40, 0x7f));
        await w.writeBytes(new Uint8Array(Int32Array.of(-1, 7).buffer));
      },
      { producer: "test" },
    );
    await readAll(path, async (r) => {
      expect(r.metadata).toEqual({ producer: "test" });
      expect(r.tensor("p3").format!.name).toBe("Binary8p3se");
      expect(r.tensor("fnuz").format!.name).toBe("float8_e4m3fnuz");
      expect(r.tensor("wide").format!.name).toBe("Binary12p5se");
      expect(r.tensor("tesla").format!.name).toBe("cfloat8_1_4_3(bias=15)");
      expect(r.tensor("ids").format).toBeUndefined();
      expect((await r.readValues(r.tensor("p3")))[0]).toBe(160);
      expect([...(await r.readCodes(r.tensor("wide")))]).toEqual([0x7ff, 0x123]);
      const { bytes } = await r.readElementBytes(r.tensor("ids"), 0, 2);
      expect([...new Int32Array(bytes.buffer, bytes.byteOffset, 2)]).toEqual([-1, 7]);
      await expect(r.readValues(r.tensor("ids"))).rejects.toThrow(/tensor "ids": has dtype I32, which holds integers/);
    });
    const file = readFileSync(path);
    const header = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString("utf8"));
    expect(header.__metadata__["minifloat.dtype.p3"]).toBe("Binary8p3se");
    expect(header.p3.dtype).toBe("U8");
  });

  it("treats a tensor named __proto__ as data", async () => {
    const path = tmp();
    await write(path, [{ name: "__proto__", dtype: "F32", shape: [1] }], (w) => w.writeValues(Float32Array.of(5)));
    await readAll(path, async (r) => {
      expect(r.tensors.map((t) => t.name)).toEqual(["__proto__"]);
      expect([...(await r.readValues(r.tensor("__proto__")))]).toEqual([5]);
    });
  });

  it("reads tensor names that are escaped in the header or repeat a name inside an entry, and names with commas and braces", async () => {
    const header =
      '{"__metadata__":{"w":"x","dtype":"y"},"a,{b}[c]\\"":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}';
    const r = await SafetensorsReader.open(rawFile(undefined, new Uint8Array(8), header));
    expect(r.tensors.map((t) => t.name)).toEqual(['a,{b}[c]"', "w"]);
    await r.close();
  });

  it("accepts empty and scalar tensors", async () => {
    const path = tmp();
    await write(
      path,
      [
        { name: "empty", dtype: "F4", shape: [0, 3] },
        { name: "scalar", dtype: "F32", shape: [] },
      ],
      async (w) => w.writeValues(Float32Array.of(2)),
    );
    await readAll(path, async (r) => {
      expect(r.tensor("empty").length).toBe(0);
      expect([...(await r.readValues(r.tensor("scalar")))]).toEqual([2]);
    });
  });
});

describe("safetensors header validation", () => {
  const ok = { w: { dtype: "F32", shape: [2], data_offsets: [0, 8] } };
  const open = (path: string) => SafetensorsReader.open(path);
  it("reads a hand-built file", async () => {
    const path = rawFile(ok, new Uint8Array(Float32Array.of(1, -2).buffer));
    expect([...(await readAll(path, (r) => r.readValues(r.tensor("w"))))]).toEqual([1, -2]);
  });
  it("reads the FNUZ dtypes other writers produce", async () => {
    const path = rawFile(
      { a: { dtype: "F8_E4M3FNUZ", shape: [3], data_offsets: [0, 3] }, b: { dtype: "F8_E5M2FNUZ", shape: [1], data_offsets: [3, 4] } },
      [0x40, 0x80, 0xc8, 0x40],
    );
    await readAll(path, async (r) => {
      expect(r.tensor("a").format!.name).toBe("float8_e4m3fnuz");
      expect([...(await r.readValues(r.tensor("a")))]).toEqual([1, NaN, -2]);
      expect([...(await r.readValues(r.tensor("b")))]).toEqual([1]);
    });
  });
  const bad: [string, () => string, RegExp][] = [
    ["invalid JSON", () => rawFile(null, new Uint8Array(8), '{"w": {'), /header is not valid JSON/],
    ["a non-object header", () => rawFile([1], []), /is not a safetensors file: it does not start with an 8-byte header length followed by a JSON object/],
    [
      "an unknown dtype",
      () => rawFile({ w: { dtype: "F12", shape: [2], data_offsets: [0, 8] } }, new Uint8Array(8)),
      /tensor "w" dtype: unknown dtype "F12"; allowed: F64, F32/,
    ],
    ["a size mismatch", () => rawFile({ w: { dtype: "F32", shape: [3], data_offsets: [0, 8] } }, new Uint8Array(8)), /span 8 bytes; 3 × F32 elements need 12/],
    [
      "a packed size mismatch",
      () => rawFile({ w: { dtype: "F4", shape: [3], data_offsets: [0, 1] } }, new Uint8Array(1)),
      /span 1 bytes; 3 × F4 elements need 2/,
    ],
    [
      "overlapping offsets",
      () => rawFile({ a: { dtype: "U8", shape: [4], data_offsets: [0, 4] }, b: { dtype: "U8", shape: [4], data_offsets: [2, 6] } }, new Uint8Array(6)),
      /tensor "b" data_offsets: \[2, 6\] overlap the previous tensor/,
    ],
    [
      "out-of-range offsets",
      () => rawFile({ w: { dtype: "F32", shape: [2], data_offsets: [4, 12] } }, new Uint8Array(8)),
      /reach beyond the data buffer \(8 bytes\)/,
    ],
    ["a gap", () => rawFile({ w: { dtype: "F32", shape: [1], data_offsets: [4, 8] } }, new Uint8Array(8)), /leave a gap: bytes \[0, 4\)/],
    ["uncovered trailing bytes", () => rawFile(ok, new Uint8Array(12)), /data buffer has 12 bytes but the tensors cover only 8/],
    ["a truncated data buffer", () => rawFile(ok, new Uint8Array(5)), /reach beyond the data buffer \(5 bytes\): out of range or truncated/],
    [
      "a negative shape",
      () => rawFile({ w: { dtype: "F32", shape: [-2], data_offsets: [0, 8] } }, new Uint8Array(8)),
      /shape: is \[-2\]; allowed: an array of non-negative integers/,
    ],
    ["an unknown field", () => rawFile({ w: { ...ok.w, extra: 1 } }, new Uint8Array(8)), /unknown field\(s\) extra/],
    [
      // Equal entries too: JSON.parse would keep one of them silently. Keys in nested objects may repeat names above.
      "a tensor named twice",
      () =>
        rawFile(
          undefined,
          new Uint8Array(8),
          '{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"v":{"dtype":"F32","shape":[0],"data_offsets":[8,8]},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}',
        ),
      /header names "w" twice; allowed: each tensor \(and __metadata__\) once/,
    ],
    ["non-string metadata", () => rawFile({ __metadata__: { a: 1 }, ...ok }, new Uint8Array(8)), /__metadata__\["a"\]: is 1; allowed: a string/],
    [
      "a recorded format on a float dtype",
      () => rawFile({ __metadata__: { "minifloat.dtype.w": "Binary8p3se" }, ...ok }, new Uint8Array(8)),
      /records format Binary8p3se \(8-bit codes\) but has dtype F32; allowed: U8/,
    ],
    [
      "an unknown recorded format",
      () => rawFile({ __metadata__: { "minifloat.dtype.w": "Binary99p3se" }, w: { dtype: "U8", shape: [1], data_offsets: [0, 1] } }, [0]),
      /records format "Binary99p3se", which minifloat does not know/,
    ],
    [
      "a header longer than the file",
      () => {
        const path = tmp("trunc");
        const prefix = Buffer.alloc(8);
        prefix.writeBigUInt64LE(64n);
        writeFileSync(path, Buffer.concat([prefix, Buffer.from('{"w":')]));
        return path;
      },
      /header length is 64 bytes but the file has only 5 after the length: truncated file/,
    ],
    [
      "a header over 100 MB",
      () => {
        const path = tmp("huge");
        const prefix = Buffer.alloc(8);
        prefix.writeBigUInt64LE(100_000_001n);
        writeFileSync(path, Buffer.concat([prefix, Buffer.from("{}")]));
        return path;
      },
      /header length is 100000001 bytes; allowed: at most 100000000/,
    ],
    [
      "a file shorter than the length prefix",
      () => {
        const path = tmp("short");
        writeFileSync(path, Buffer.from([1, 2, 3]));
        return path;
      },
      /has 3 bytes; a safetensors file starts with an 8-byte header length/,
    ],
  ];
  for (const [what, make, message] of bad) {
    it(`rejects ${what}`, async () => {
      const path = make();
      const err = await open(path).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SafetensorsError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message.startsWith(path)).toBe(true);
    });
  }
});

describe("safetensors writer safety", () => {
  const spec: TensorSpec[] = [{ name: "w", dtype: "F32", shape: [2] }];
  const leftovers = () => readdirSync(dir).filter((f) => f.endsWith(".tmp"));

  it("refuses to overwrite an existing file unless forced, and never replaces a protected input", async () => {
    const path = tmp();
    writeFileSync(path, "keep");
    await expect(SafetensorsWriter.create(path, spec)).rejects.toThrow(IoError);
    await expect(SafetensorsWriter.create(path, spec)).rejects.toThrow(/exists; allowed: a new path, or --force/);
    await expect(SafetensorsWriter.create(path, spec, { force: true, protect: [path] })).rejects.toThrow(/is also an input/);
    expect(readFileSync(path, "utf8")).toBe("keep");
    const w = await SafetensorsWriter.create(path, spec, { force: true });
    await w.writeValues(Float32Array.of(1, 2));
    await w.commit();
    expect([...(await readAll(path, (r) => r.readValues(r.tensor("w"))))]).toEqual([1, 2]);
    expect(leftovers()).toEqual([]);
  });

  it("fsync: refuses a non-boolean; with it (an early writeback every 64 MB included) the file is the same", async () => {
    await expect(SafetensorsWriter.create(tmp(), spec, { fsync: "yes" as never })).rejects.toThrow(/^options.fsync: is string; allowed: true or false$/);
    expect(leftovers()).toEqual([]);
    // 80 MB crosses the 64 MB early writeback; the same bytes through a writer without fsync.
    const big: TensorSpec[] = [{ name: "x", dtype: "U8", shape: [80 << 20] }];
    const chunk = new Uint8Array(8 << 20).map((_, i) => (i * 31) & 255);
    const paths = [tmp(), tmp()];
    for (const [k, path] of paths.entries()) {
      const w = await SafetensorsWriter.create(path, big, { fsync: k === 0 });
      for (let i = 0; i < 10; i++) await w.writeBytes(chunk);
      await w.commit();
    }
    const [a, b] = paths.map((p) => readFileSync(p));
    expect(a!.length).toBe(b!.length);
    expect(Buffer.compare(a!, b!)).toBe(0);
    expect(a!.subarray(a!.length - (8 << 20)).equals(chunk)).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  it("leaves no file when a tensor is incomplete, when aborted, or when data overruns a tensor", async () => {
    const path = tmp();
    const w = await SafetensorsWriter.create(path, spec);
    expect(existsSync(w.tempPath)).toBe(true);
    await w.writeValues(Float32Array.of(1));
    await expect(w.writeValues(Float32Array.of(2, 3))).rejects.toThrow(/tensor "w" has 1 elements left/);
    await expect(w.commit()).rejects.toThrow(/tensor "w": received 1 of its 2 elements; nothing was written/);
    expect(existsSync(path)).toBe(false);
    const v = await SafetensorsWriter.create(path, spec);
    await v.abort();
    expect(existsSync(path)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it("writeCodes refuses codes of the wrong array type or beyond the format, and integer tensors, before writing", async () => {
    const path = tmp();
    const w = await SafetensorsWriter.create(path, [
      { name: "h", dtype: "BF16", shape: [4] },
      { name: "s", dtype: "U8", shape: [4], format: format("Binary6p3se") },
      { name: "i", dtype: "I32", shape: [1] },
    ]);
    await expect(w.writeCodes(Uint8Array.of(1, 2, 3, 4))).rejects.toThrow(
      expect.objectContaining({ argument: "codes", message: "codes: got Uint8Array(4); allowed: a Uint16Array of bfloat16 codes" }),
    );
    await w.writeCodes(Uint16Array.of(0x3f80, 0x4000, 0, 0x8000));
    await expect(w.writeCodes(Uint8Array.of(1, 2, 200, 4))).rejects.toThrow(new CodeRangeError("codes[2]", "is 200; allowed: a Binary6p3se code in [0, 63]"));
    await w.writeCodes(Uint8Array.of(1, 2, 63, 4));
    await expect(w.writeCodes(Int32Array.of(7) as never)).rejects.toThrow(
      /^codes: got Int32Array\(1\); allowed: the 32-bit elements of I32 tensor "i" as unsigned integers$/,
    );
    await w.writeCodes(Uint32Array.of(7));
    await w.commit();
    const r = await SafetensorsReader.open(path);
    expect(Array.from(await r.readCodes(r.tensor("s")))).toEqual([1, 2, 63, 4]);
    expect(Array.from(await r.readValues(r.tensor("h")))).toEqual([1, 2, 0, -0]);
    await r.close();
  });

  it("keeps one write in flight but never the caller's array: a buffer reused for the next chunk cannot change written data", async () => {
    const path = tmp();
    const w = await SafetensorsWriter.create(path, [
      { name: "codes", dtype: "U8", shape: [6] },
      { name: "raw", dtype: "F32", shape: [4] },
      { name: "values", dtype: "F32", shape: [4] },
    ]);
    const codes = Uint8Array.of(1, 2, 3);
    await w.writeCodes(codes);
    codes.set([4, 5, 6]);
    await w.writeCodes(codes);
    codes.fill(0);
    const raw = new Float32Array([7, 8, 9, 10]);
    await w.writeBytes(new Uint8Array(raw.buffer, 0, 8));
    raw.fill(0);
    await w.writeBytes(new Uint8Array(Float32Array.of(9, 10).buffer));
    const values = Float32Array.of(11, 12);
    await w.writeValues(values);
    values.set([13, 14]);
    await w.writeValues(values);
    values.fill(0);
    await w.commit();
    expect(await readAll(path, async (r) => [...(await r.readCodes(r.tensor("codes")))])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await readAll(path, async (r) => [...(await r.readValues(r.tensor("raw")))])).toEqual([7, 8, 9, 10]);
    expect(await readAll(path, async (r) => [...(await r.readValues(r.tensor("values")))])).toEqual([11, 12, 13, 14]);
  });

  it("writeBytes with copy: false reads three rotating buffers in place, each reused once the next call returned", async () => {
    const path = tmp();
    const n = 10;
    const w = await SafetensorsWriter.create(path, [{ name: "x", dtype: "U8", shape: [4 * n] }]);
    const buffers = [0, 1, 2].map(() => new Uint8Array(4));
    for (let k = 0; k < n; k++) {
      const b = buffers[k % 3]!;
      b.fill(k); // the write of chunk k − 3 is done: the calls for k − 2 and k − 1 have returned
      await w.writeBytes(b, { copy: false });
    }
    await w.commit();
    expect(await readAll(path, async (r) => [...(await r.readCodes(r.tensor("x")))])).toEqual(Array.from({ length: 4 * n }, (_, i) => Math.floor(i / 4)));
    const v = await SafetensorsWriter.create(tmp(), [{ name: "x", dtype: "U8", shape: [1] }]);
    await expect(v.writeBytes(Uint8Array.of(1), { copied: false } as never)).rejects.toThrow(/copied/);
    await v.abort();
  });

  it("reads ahead only what a read asks for next: backward, overlapping and skipping reads see the file's bytes", async () => {
    const n = 1000;
    const path = await rampFile(n);
    const ranges = [
      [0, 100],
      [100, 100],
      [150, 30],
      [180, 200],
      [0, 10],
      [990, 10],
      [500, 499],
      [999, 1],
    ];
    const got = await readAll(path, async (r) => {
      const out = [];
      for (const [start, count] of ranges) out.push([...(await r.readValues(r.tensor("x"), start, count))]);
      return out;
    });
    expect(got).toEqual(ranges.map(([start, count]) => Array.from({ length: count! }, (_, i) => start! + i)));
  });

  it("reads ahead across small reads in between: chunks of 64K elements with a scale-sized read after each", async () => {
    const n = 4 * 65536;
    const path = await rampFile(n);
    const got = await readAll(path, async (r) => {
      const t = r.tensor("x");
      const out: number[] = [];
      for (let start = 0; start < n; start += 65536) {
        const chunk = await r.readValues(t, start, 65536);
        const small = await r.readValues(t, n - 1 - start / 65536, 1);
        out.push(chunk[0]!, chunk[65535]!, small[0]!);
      }
      return out;
    });
    expect(got).toEqual([0, 65535, n - 1, 65536, 131071, n - 2, 131072, 196607, n - 3, 196608, n - 1, n - 4]);
  });

  it("readInto fills the caller's array with the bytes read() gives: a file, a Blob, a source without readInto", async () => {
    const bytes = Uint8Array.from({ length: 300000 }, (_, i) => (i * 131 + (i >> 8)) & 255);
    const path = join(dir, `into-${counter++}.bin`);
    writeFileSync(path, bytes);
    const plain: ByteSource = { name: "plain", size: bytes.length, read: async (p, n) => bytes.slice(p, p + n), close: async () => {} };
    const file = await FileSource.open(path);
    try {
      for (const source of [file, new BlobSource(new Blob([bytes]), "blob"), plain]) {
        for (const [position, length] of [
          [0, 9],
          [7, 100000],
          [123457, 176543],
          [300000, 0],
          [65536, 65536],
        ] as const) {
          // An offset view of a larger array, with a sentinel either side: exactly dest.length bytes land in it.
          const outer = new Uint8Array(length + 2).fill(0xa5);
          await readInto(source, position, outer.subarray(1, 1 + length));
          expect([outer[0], outer[length + 1]], source.name).toEqual([0xa5, 0xa5]);
          expect(Buffer.compare(outer.subarray(1, 1 + length), await source.read(position, length)), source.name).toBe(0);
        }
        // Past the end: a file and a Blob refuse the range; a source that gives fewer bytes is a truncated file.
        await expect(readInto(source, bytes.length - 4, new Uint8Array(5))).rejects.toThrow(
          source === plain ? new SafetensorsError("plain", `ended at byte ${bytes.length}; expected 1 more bytes: truncated file`) : CodeRangeError,
        );
      }
    } finally {
      await file.close();
    }
  });

  it("readInto on a file that shrank after it was opened, and readTensorBytesInto: the same typed errors as read", async () => {
    const n = 70000;
    const path = await rampFile(n);
    const r = await SafetensorsReader.open(path);
    try {
      const t = r.tensor("x");
      const dest = new Uint8Array(4 * 1000);
      await r.readTensorBytesInto(t, 4 * 5000, dest);
      expect([...new Float32Array(dest.buffer)]).toEqual(Array.from({ length: 1000 }, (_, i) => 5000 + i));
      await expect(r.readTensorBytesInto(t, 4 * n - 4, new Uint8Array(8))).rejects.toThrow(
        new CodeRangeError("offset, length", `are ${4 * n - 4}, 8; allowed: a range within the ${4 * n} bytes of "x"`),
      );
      truncateSync(path, r.dataStart + 4 * 60000 + 10);
      const read = await rejection(r.readTensorBytes(t, 4 * 59000, 8000));
      const into = await rejection(r.readTensorBytesInto(t, 4 * 59000, new Uint8Array(8000)));
      expect(read).toBeInstanceOf(SafetensorsError);
      expect(into).toBeInstanceOf(SafetensorsError);
      expect(into.message).toBe(read.message);
      expect(into.message).toBe(`${path}: ended at byte ${r.dataStart + 4 * 60000 + 10}; expected 3990 more bytes: truncated file`);
    } finally {
      await r.close();
    }
  });

  it("names a missing output directory", async () => {
    await expect(SafetensorsWriter.create(join(dir, "no-such-dir", "x.safetensors"), spec)).rejects.toThrow(
      /no-such-dir does not exist; allowed: a path in an existing directory/,
    );
  });

  it("rejects header specs it could not write faithfully", async () => {
    await expect(SafetensorsWriter.create(tmp(), [{ name: "w", dtype: "F32", shape: [1], format: format("Binary8p3se") }])).rejects.toThrow(
      /format Binary8p3se is stored as U8, not F32/,
    );
    await expect(SafetensorsWriter.create(tmp(), [{ name: "w", dtype: "F7", shape: [1] }])).rejects.toThrow(/unknown dtype "F7"/);
    await expect(SafetensorsWriter.create(tmp(), spec, { metadata: { "minifloat.dtype.w": "x" } })).rejects.toThrow(
      /are written by minifloat from TensorSpec.format/,
    );
    expect(leftovers()).toEqual([]);
  });
});

describe("block-scaled tensor records", () => {
  const specs = (scales: number[], dtype = "F4"): TensorSpec[] => [
    { name: "w", dtype, shape: [2, 40] },
    { name: "w.scales", dtype: "F8_E8M0", shape: scales },
  ];
  async function layoutsOf(record: string, tensors = specs([2, 2])): Promise<unknown> {
    const path = tmp("block");
    await write(
      path,
      tensors,
      async (w) => {
        for (const t of tensors) await w.writeCodes(new Uint8Array(t.shape.reduce((a, b) => a * b, 1)));
      },
      { "minifloat.block.w": record },
    );
    return readAll(path, async (r) => blockLayouts(r));
  }
  it("accepts a consistent record: blocks along the last dimension", async () => {
    const layouts = (await layoutsOf("mxfp4")) as Map<string, { scheme: { name: string }; rowLength: number; tensorScale: number }>;
    expect(layouts.get("w")!.scheme.name).toBe("mxfp4");
    expect(layouts.get("w")!.rowLength).toBe(40);
    expect(layouts.get("w")!.tensorScale).toBe(1);
  });
  const bad: [string, () => Promise<unknown>, RegExp][] = [
    ["an unknown scheme", () => layoutsOf("mxfp5"), /__metadata__\["minifloat.block.w"\]: is "mxfp5"; allowed: one of mxfp8_e4m3/],
    ["a tensor scale that is not a positive float32", () => layoutsOf("mxfp4 tensor_scale=0.1"), /has tensor_scale 0.1; allowed: a positive finite float32/],
    [
      "scales of the wrong shape",
      () => layoutsOf("mxfp4", specs([2, 1])),
      /tensor "w.scales" is F8_E8M0 \[2, 1\]; mxfp4 scales of \[2, 40\] are F8_E8M0 \[2, 2\]/,
    ],
    ["elements of the wrong dtype", () => layoutsOf("mxfp8_e4m3"), /tensor "w" has dtype F4; mxfp8_e4m3 elements are F8_E4M3/],
    ["missing scales", () => layoutsOf("mxfp4", specs([2, 2]).slice(0, 1)), /needs tensors "w" and "w.scales"/],
  ];
  for (const [what, run, message] of bad) {
    it(`rejects ${what}`, async () => {
      const err = await run().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SafetensorsError);
      expect((err as Error).message).toMatch(message);
    });
  }
});

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: Error) => e,
  );
}

describe("SafetensorsWriter.reserveBytes (bytes another writer puts by position)", () => {
  it("hands out the file positions the header gives, in order, and counts them as written", async () => {
    const path = tmp("reserve");
    const specs: TensorSpec[] = [
      { name: "a", dtype: "U8", shape: [5] },
      { name: "b", dtype: "F32", shape: [2] },
      { name: "c", dtype: "U8", shape: [3] },
    ];
    const w = await SafetensorsWriter.create(path, specs);
    const first = w.reserveBytes(2);
    const second = w.reserveBytes(3);
    expect(second.position).toBe(first.position + 2);
    expect(first.position).toBe(w.dataStart + w.tensors[0]!.begin);
    expect(w.next?.name).toBe("b");
    await w.writeValues(Float32Array.of(1.5, -2));
    const third = w.reserveBytes(3);
    expect(third.position).toBe(w.dataStart + w.tensors[2]!.begin);
    expect(w.next).toBeUndefined();
    // Another writer of the temporary file puts the reserved bytes before commit.
    const { openSync, writeSync, closeSync } = await import("node:fs");
    const fd = openSync(first.path, "r+");
    writeSync(fd, Uint8Array.of(1, 2), 0, 2, first.position);
    writeSync(fd, Uint8Array.of(3, 4, 5), 0, 3, second.position);
    writeSync(fd, Uint8Array.of(6, 7, 8), 0, 3, third.position);
    closeSync(fd);
    await w.commit();
    const r = await SafetensorsReader.open(path);
    expect([...(await r.readTensorBytes(r.tensor("a"), 0, 5))]).toEqual([1, 2, 3, 4, 5]);
    expect([...(await r.readValues(r.tensor("b")))]).toEqual([1.5, -2]);
    expect([...(await r.readTensorBytes(r.tensor("c"), 0, 3))]).toEqual([6, 7, 8]);
    await r.close();
  });

  it("refuses more bytes than the tensor has left, and bytes after codes of the same tensor", async () => {
    const w = await SafetensorsWriter.create(tmp("reserve-bad"), [{ name: "a", dtype: "F8_E4M3", shape: [4] }]);
    expect(() => w.reserveBytes(5)).toThrow(CodeRangeError);
    expect(() => w.reserveBytes(5)).toThrow(/bytes: is 5; tensor "a" has 4 bytes left/);
    await w.writeCodes(Uint8Array.of(1));
    expect(() => w.reserveBytes(1)).toThrow(SafetensorsError);
    await w.abort();
  });
});
