// Arrays of freed Wasm memory are refused wherever they are passed: the view a handle gave out before free(), and
// any view of the kernels' memory that no allocation holds any more, as input or as output.
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openCheckpoint } from "../src/checkpoint/open.js";
import {
  ArgumentTypeError,
  CodeRangeError,
  allocBytes,
  allocCodes,
  allocFloat32,
  blockScheme,
  dequantize,
  dequantizeBlocks,
  dot,
  dotRows,
  matmul,
  matvec,
  packCodes,
  quantize,
  quantizeBlocks,
} from "../src/index.js";
import { SafetensorsReader, SafetensorsWriter } from "../src/io/index.js";
import { specialize } from "../src/p3109.js";
import { MiniFloatArray } from "../src/views/minifloat-array.js";

function refused(call: () => unknown, argument: string): void {
  try {
    call();
  } catch (e) {
    expect(e).toBeInstanceOf(ArgumentTypeError);
    expect((e as ArgumentTypeError).argument).toBe(argument);
    expect((e as Error).message).toMatch(/was freed \(handle\.free\(\)\)/);
    return;
  }
  throw new Error(`${argument}: a freed array was accepted`);
}

describe("views of freed Wasm memory", () => {
  it("are refused as inputs and outputs of every bulk call", () => {
    const h = allocFloat32(64);
    const x = h.array;
    x.fill(1.5);
    const c = allocCodes("float8_e4m3fn", 64);
    const codes = c.array;
    h.free();
    c.free();
    refused(() => quantize(x, "float8_e4m3fn"), "src");
    refused(() => quantize(new Float32Array(64), "float8_e4m3fn", { out: codes }), "options.out");
    refused(() => dequantize(codes, "float8_e4m3fn"), "codes");
    refused(() => dequantize(new Uint8Array(64), "float8_e4m3fn", { out: x }), "options.out");
    refused(() => packCodes(codes, 4), "codes");
    refused(() => quantizeBlocks(x, "mxfp4"), "src");
    refused(() => dot(codes, new Uint8Array(64), { formats: "float8_e4m3fn" }), "a");
    refused(() => MiniFloatArray.from(x, "float8_e4m3fn"), "source");
    const add = specialize("Add", { operands: ["Binary8p3se", "Binary8p3se"], result: "Binary8p3se" });
    refused(() => add.map(codes, new Uint8Array(64)), "arrays[0]");
  });

  it("are refused as the outputs and operands of dot products, block decoding and file reads (a later allocation may hold those bytes)", async () => {
    const out = allocFloat32(64);
    const view = out.array;
    const elements = allocBytes(32);
    const q = quantizeBlocks(new Float32Array(64).fill(1), "mxfp4");
    const freedElements = elements.array;
    out.free();
    elements.free();
    const c = new Uint8Array(64).fill(0x38);
    refused(() => dotRows(c, c, 64, 1, { formats: "float8_e4m3fn", out: view }), "options.out");
    refused(() => matvec(c, c.subarray(0, 1), 64, 1, { formats: "float8_e4m3fn", out: view }), "options.out");
    refused(() => matmul(c, c.subarray(0, 1), 64, 1, 1, { formats: "float8_e4m3fn", out: view }), "options.out");
    refused(() => dequantizeBlocks(q, { out: view }), "options.out");
    refused(() => dequantizeBlocks({ ...q, elements: freedElements }), "q.elements");
    const dir = mkdtempSync(join(tmpdir(), "minifloat-freed-"));
    try {
      const path = join(dir, "w.safetensors");
      const w = await SafetensorsWriter.create(path, [{ name: "w", dtype: "F32", shape: [64] }]);
      await w.writeValues(new Float32Array(64).fill(2));
      await w.commit();
      const r = await SafetensorsReader.open(path);
      await expect(r.readValues(r.tensor("w"), 0, 64, view)).rejects.toThrow(/^out: is a view of Wasm memory that was freed/);
      await r.close();
      const ck = await openCheckpoint(path);
      await expect(ck.read("w", 0, 64, view)).rejects.toThrow(/^out: is a view of Wasm memory that was freed/);
      await expect(ck.readRounded("w", "F32", 0, 64, view)).rejects.toThrow(/^out: is a view of Wasm memory that was freed/);
      await ck.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a view from before a growth of Wasm memory is refused as such by dot products and block decoding, not by its length", () => {
    const h = allocFloat32(64);
    const stale = h.array;
    const grow = allocBytes(stale.buffer.byteLength + (64 << 20));
    const c = new Uint8Array(64).fill(0x38);
    const q = quantizeBlocks(new Float32Array(64).fill(1), "mxfp4");
    for (const call of [
      () => dotRows(c, c, 64, 1, { formats: "float8_e4m3fn", out: stale }),
      () => matvec(c, c.subarray(0, 1), 64, 1, { formats: "float8_e4m3fn", out: stale }),
      () => dequantizeBlocks(q, { out: stale }),
    ]) {
      expect(call).toThrow(ArgumentTypeError);
      expect(call).toThrow(/^options\.out: is a Float32Array whose ArrayBuffer was detached/);
    }
    grow.free();
    h.free();
  });

  it("dequantizeBlocks checks every scale code before it writes: a refused call leaves out as it was", () => {
    const scheme = blockScheme({ element: "float4_e2m1fn", scale: "Binary6p1ue", blockSize: 32 });
    const q = quantizeBlocks(
      Float32Array.from({ length: 256 }, (_, i) => i / 7),
      scheme,
    );
    q.scales[7] = 200;
    const out = new Float32Array(256).fill(-5);
    expect(() => dequantizeBlocks(q, { out })).toThrow(new CodeRangeError("q.scales[7]", "is 200; allowed: a Binary6p1ue code in [0, 63]"));
    expect(out.every((v) => v === -5)).toBe(true);
  });

  it("includes subarrays of a freed view while no allocation holds their bytes", () => {
    const h = allocFloat32(1024);
    const part = h.array.subarray(256, 512);
    h.free();
    refused(() => quantize(part, "float8_e4m3fn"), "src");
  });

  it("leaves live handles and ordinary arrays alone", () => {
    const h = allocFloat32(8);
    h.array.set([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Array.from(quantize(h.array, "float8_e4m3fn"))).toEqual(Array.from(quantize(Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8), "float8_e4m3fn")));
    h.free();
    expect(quantize(new Float32Array(0), "float8_e4m3fn").length).toBe(0);
  });
});
