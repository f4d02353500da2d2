// quantize --block: blocks along K = the product of the dimensions after the first, a partial last block per row
// quantized in bulk (equal to row-by-row quantizeBlocks), the row_length record, and files of the older layout
// (blocks along the last dimension of a 4-D tensor, no row_length) still read by dequantize.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type SchemeName, dequantizeBlocks, quantizeBlocks } from "../src/block/index.js";
import { main } from "../src/cli/main.js";
import { unpackCodes } from "../src/index.js";
import { SafetensorsReader, SafetensorsWriter } from "../src/io/index.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-block-rows-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

async function cli(...argv: string[]): Promise<number> {
  return main(argv, { stdout: () => {}, stderr: () => {}, isTTY: false });
}

function sample(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  return Float32Array.from({ length: n }, (_, i) => (u() - 0.5) * (i % 37 === 0 ? 30 : 0.2) * (i % 200 < 7 ? 0 : 1));
}

/** Row-by-row reference: each row of L elements its own quantizeBlocks call. */
function perRow(x: Float32Array, L: number, scheme: SchemeName, tensorScale?: number) {
  const codes: number[] = [];
  const scales: number[] = [];
  const values: number[] = [];
  for (let r = 0; r * L < x.length; r++) {
    const q = quantizeBlocks(x.subarray(r * L, (r + 1) * L), scheme, tensorScale === undefined ? {} : { tensorScale });
    codes.push(...(q.scheme.packed ? unpackCodes(q.elements, 4, L) : q.elements));
    scales.push(...q.scales);
    values.push(...dequantizeBlocks(q));
  }
  return { codes, scales, values };
}

async function read(path: string) {
  const r = await SafetensorsReader.open(path);
  try {
    const out: Record<string, { shape: readonly number[]; codes: number[] }> = {};
    const values: Record<string, number[]> = {};
    for (const t of r.tensors) {
      if (t.dtype === "F32") values[t.name] = [...(await r.readValues(t))];
      else out[t.name] = { shape: t.shape, codes: [...(t.dtype === "I8" ? (await r.readElementBytes(t, 0, t.length)).bytes : await r.readCodes(t))] };
    }
    return { tensors: out, metadata: r.metadata, values };
  } finally {
    await r.close();
  }
}

describe("quantize --block: rows of K = product of the trailing dimensions", () => {
  const conv = sample(8 * 5 * 3 * 3, 7); // [O, I, kh, kw] = [8, 5, 3, 3]: K = 45, one full block of 32 and a partial one of 13
  const linear = sample(6 * 50, 9); // K = 50: partial block of 18 (mxfp4) / 2 (nvfp4)

  it.each(["mxfp4", "mxfp8_e4m3", "mxint8", "nvfp4"] as SchemeName[])("%s: codes and scales equal row-by-row quantizeBlocks", async (scheme) => {
    const src = at(`rows-${scheme}.safetensors`);
    const w = await SafetensorsWriter.create(src, [
      { name: "conv.weight", dtype: "F32", shape: [8, 5, 3, 3] },
      { name: "fc.weight", dtype: "F32", shape: [6, 50] },
    ]);
    await w.writeValues(conv);
    await w.writeValues(linear);
    await w.commit();
    const out = at(`rows-${scheme}-q.safetensors`);
    expect(await cli("quantize", src, "--block", scheme, "-o", out)).toBe(0);
    const got = await read(out);
    for (const [name, x, L, shape] of [
      ["conv.weight", conv, 45, [8, 5, 3, 3]],
      ["fc.weight", linear, 50, [6, 50]],
    ] as const) {
      const record = got.metadata[`minifloat.block.${name}`]!;
      const T = /tensor_scale=(\S+)/.exec(record)?.[1];
      const ref = perRow(x, L, scheme, T === undefined ? undefined : Number(T));
      expect(got.tensors[name]!.shape).toEqual(shape);
      expect(got.tensors[name]!.codes.map((c) => c & 0xff)).toEqual(ref.codes);
      expect(got.tensors[`${name}.scales`]!.shape).toEqual([shape[0], Math.ceil(L / (scheme === "nvfp4" ? 16 : 32))]);
      expect(got.tensors[`${name}.scales`]!.codes).toEqual(ref.scales);
      expect(record.endsWith(" row_length=45")).toBe(name === "conv.weight");
      const deq = at(`rows-${scheme}-d.safetensors`);
      rmSync(deq, { force: true });
      expect(await cli("dequantize", out, "--to", "f32", "-o", deq)).toBe(0);
      expect((await read(deq)).values[name]).toEqual(ref.values);
    }
  });

  it("a file of the older layout (4-D tensor, blocks along the last dimension, no row_length) still dequantizes", async () => {
    const x = sample(4 * 2 * 3 * 40, 3);
    const old = perRow(x, 40, "mxfp8_e4m3");
    const src = at("old-layout.safetensors");
    const w = await SafetensorsWriter.create(
      src,
      [
        { name: "k", dtype: "F8_E4M3", shape: [4, 2, 3, 40] },
        { name: "k.scales", dtype: "F8_E8M0", shape: [4, 2, 3, 2] },
      ],
      { metadata: { "minifloat.block.k": "mxfp8_e4m3" } },
    );
    await w.writeCodes(Uint8Array.from(old.codes));
    await w.writeCodes(Uint8Array.from(old.scales));
    await w.commit();
    const deq = at("old-layout-d.safetensors");
    expect(await cli("dequantize", src, "--to", "f32", "-o", deq)).toBe(0);
    expect((await read(deq)).values.k).toEqual(old.values);
  });
});

describe("NaN blocks and empty tensors", () => {
  /** Tensor w of a file as float32 values (F32, F16 and BF16 read as their values). */
  async function valuesOf(path: string): Promise<number[]> {
    const r = await SafetensorsReader.open(path);
    try {
      return [...(await r.readValues(r.tensor("w")))];
    } finally {
      await r.close();
    }
  }

  /** A safetensors file from its header and data bytes (written here, not by minifloat's writer). */
  function fileOf(header: object, data: Uint8Array): Uint8Array {
    const json = new TextEncoder().encode(JSON.stringify(header));
    const out = new Uint8Array(8 + json.length + data.length);
    new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
    out.set(json, 8);
    out.set(data, 8 + json.length);
    return out;
  }

  it("a block whose scale is the scheme's NaN code decodes to NaN, the others exactly; quantize --block writes it for ±∞", async () => {
    // mxfp8_e4m3, blocks of 32: block 0 has scale 0xFF (NaN), block 1 scale 128 (2^1) and codes 0x38 (1.0) → 2.
    const codes = new Uint8Array(64).fill(0x38);
    const src = at("nan-block.safetensors");
    const header = {
      __metadata__: { "minifloat.block.w": "mxfp8_e4m3" },
      w: { dtype: "F8_E4M3", shape: [1, 64], data_offsets: [0, 64] },
      "w.scales": { dtype: "F8_E8M0", shape: [1, 2], data_offsets: [64, 66] },
    };
    writeFileSync(src, fileOf(header, Uint8Array.of(...codes, 0xff, 128)));
    for (const to of ["f32", "bf16", "f16"]) {
      const out = at(`nan-block-${to}.safetensors`);
      expect(await cli("dequantize", src, "--to", to, "-o", out)).toBe(0);
      const values = await valuesOf(out);
      expect(values.slice(0, 32).every(Number.isNaN), to).toBe(true);
      expect(values.slice(32), to).toEqual(Array(32).fill(2));
    }
    // An infinite weight: its block gets the NaN code, and the file reads back (that block NaN, the other exact).
    const x = Float32Array.from({ length: 64 }, (_, i) => (i === 40 ? Number.NEGATIVE_INFINITY : i / 64));
    const input = at("inf-weight.safetensors");
    const data = new Uint8Array(x.buffer);
    writeFileSync(input, fileOf({ w: { dtype: "F32", shape: [2, 32], data_offsets: [0, data.length] } }, data));
    const q = at("inf-weight-mxfp4.safetensors");
    expect(await cli("quantize", input, "--block", "mxfp4", "-o", q)).toBe(0);
    const back = at("inf-weight-back.safetensors");
    expect(await cli("dequantize", q, "--to", "f32", "-o", back)).toBe(0);
    const values = await valuesOf(back);
    expect(values.slice(32).every(Number.isNaN)).toBe(true);
    expect(values.slice(0, 32)).toEqual(Array.from(dequantizeBlocks(quantizeBlocks(x.subarray(0, 32), "mxfp4"))));
  });

  it("an empty tensor after the others gets empty element and scale tensors", async () => {
    const x = new Float32Array(64).fill(1);
    const data = new Uint8Array(x.buffer);
    const src = at("empty-last.safetensors");
    const header = { w: { dtype: "F32", shape: [2, 32], data_offsets: [0, 256] }, empty: { dtype: "F32", shape: [0, 32], data_offsets: [256, 256] } };
    writeFileSync(src, fileOf(header, data));
    for (const scheme of ["mxfp4", "nvfp4"]) {
      const out = at(`empty-last-${scheme}.safetensors`);
      expect(await cli("quantize", src, "--block", scheme, "-o", out)).toBe(0);
      const r = await SafetensorsReader.open(out);
      expect(r.tensor("empty").shape).toEqual([0, 32]);
      expect(r.tensor("empty.scales").length).toBe(0);
      await r.close();
    }
  });
});
