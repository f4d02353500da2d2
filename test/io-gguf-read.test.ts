// GgufReader against fixtures written by the gguf Python package (scripts/fixtures/gguf.py): header, metadata and
// every tensor's values bit-exact with gguf.quants.dequantize.
import { describe, expect, it } from "vitest";
import { GgufError, GgufReader, type GgufValue } from "../src/io/index.js";
import { bitsOf, expected, fixture } from "./io-gguf-fixtures.js";

function bits(a: Float32Array): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

/** A reader value in the fixture's JSON form (64-bit integers as decimal strings, floats as hex bits). */
function asJson(v: GgufValue): unknown {
  const scalar = (type: string, x: unknown): unknown => {
    if (type === "FLOAT32") return `0x${new Uint32Array(Float32Array.of(x as number).buffer)[0]!.toString(16).padStart(8, "0")}`;
    if (type === "FLOAT64") return `0x${new BigUint64Array(Float64Array.of(x as number).buffer)[0]!.toString(16).padStart(16, "0")}`;
    return typeof x === "bigint" ? String(x) : x;
  };
  if (v.type !== "ARRAY") return { type: v.type, value: scalar(v.type, v.value) };
  return { type: "ARRAY", itemType: v.itemType, value: (v.value as unknown[]).map((x) => scalar(v.itemType, x)) };
}

describe.each(["types", "quantized"])("fixture %s.gguf", (name) => {
  const want = expected(name);

  it("has the header, metadata and tensor infos the Python reader sees", async () => {
    const r = await GgufReader.open(fixture(name));
    try {
      expect(r.version).toBe(3);
      expect(r.alignment).toBe(want.alignment);
      expect(r.dataOffset).toBe(want.dataOffset);
      expect(Object.fromEntries([...r.metadata].map(([k, v]) => [k, asJson(v)]))).toEqual(want.metadata);
      expect(r.tensors.map((t) => ({ name: t.name, type: t.typeName, typeId: t.typeId, shape: t.shape, offset: t.offset, size: t.byteSize }))).toEqual(
        want.tensors.map(({ values: _, ...t }) => t),
      );
    } finally {
      await r.close();
    }
  });

  it("decodes every tensor bit-exactly, whole and in ranges", async () => {
    const r = await GgufReader.open(fixture(name));
    try {
      for (const t of want.tensors) {
        const info = r.tensor(t.name);
        if (t.values === undefined) {
          await expect(r.readValues(info)).rejects.toThrow(new RegExp(`tensor "${t.name}": has unsupported ggml type ${t.type} \\(${t.typeId}\\)`));
          continue;
        }
        const all = bitsOf(t.values);
        expect([t.name, [...bits(await r.readValues(info))]]).toEqual([t.name, [...all]]);
        for (const [start, count] of [
          [0, 1],
          [1, 40],
          [31, 2],
          [info.length - 3, 3],
          [17, 0],
        ]) {
          if (start! + count! > info.length) continue;
          expect([...bits(await r.readValues(info, start, count))]).toEqual([...all.subarray(start, start! + count!)]);
        }
      }
    } finally {
      await r.close();
    }
  });
});

describe("GgufReader errors", () => {
  it("refuses a range outside the tensor", async () => {
    const r = await GgufReader.open(fixture("types"));
    try {
      await expect(r.readValues(r.tensor("f32"), 10, 6)).rejects.toThrow(/start, count: are 10, 6; allowed: a range within the 15 elements/);
      expect(() => r.tensor("nope")).toThrow(GgufError);
    } finally {
      await r.close();
    }
  });
});
