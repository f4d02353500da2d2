// Arrays of freed Wasm memory are refused wherever they are passed: the view a handle gave out before free(), and
// any view of the kernels' memory that no allocation holds any more, as input or as output.
import { describe, expect, it } from "vitest";
import { ArgumentTypeError, allocCodes, allocFloat32, dequantize, dot, packCodes, quantize, quantizeBlocks } from "../src/index.js";
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
