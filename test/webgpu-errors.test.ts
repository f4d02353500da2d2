// Bad arguments to the WebGPU kernels are typed errors naming the argument, thrown before any GPU work: a stub
// device that fails on every call shows nothing was enqueued.
import { describe, expect, it } from "vitest";
import {
  ArgumentTypeError,
  CodeRangeError,
  FormatError,
  ProjectionError,
  dequantizeGpu,
  matvecGpu,
  quantizeGpu,
  wgsl,
  type GpuBuffer,
  type GpuDevice,
} from "../src/webgpu/index.js";

const untouched = new Proxy({} as GpuDevice, {
  get: (_, key) => {
    throw new Error(`the device was used (${String(key)}) before the arguments were checked`);
  },
});
const buffer = (size: number): GpuBuffer => ({ size, destroy: () => {} });

describe("WebGPU kernel arguments", () => {
  it("dequantizeGpu names the source, the count and the options", () => {
    expect(() => dequantizeGpu(untouched, { format: "float8_e4m3fn", codes: buffer(8) }, 9)).toThrow(CodeRangeError);
    expect(() => dequantizeGpu(untouched, { format: "float8_e4m3fn", codes: buffer(8) }, 9)).toThrow(/src\.codes: has 8 bytes; allowed: at least 12/);
    expect(() => dequantizeGpu(untouched, { format: "float8_e4m3fn", codes: buffer(8) }, -1)).toThrow(/^n: /);
    expect(() => dequantizeGpu(untouched, { format: "bfloat16", codes: buffer(8), layout: "u8" }, 4)).toThrow(
      /src\.layout: got "u8" for 16-bit bfloat16 codes/,
    );
    expect(() => dequantizeGpu(untouched, { format: "float8_e4m3fn", codes: buffer(8), layout: "u4" }, 4)).toThrow(ArgumentTypeError);
    expect(() => dequantizeGpu(untouched, { format: "float4_e2m1fn", codes: buffer(8), nibbleOrder: "split-half", layout: "u4" }, 4)).toThrow(
      /src\.nibbleOrder/,
    );
    expect(() => dequantizeGpu(untouched, { format: "float8_e4m3fn", codes: buffer(8), extra: 1 } as never, 4)).toThrow(/src\.extra/);
    expect(() => dequantizeGpu(untouched, { format: "float9", codes: buffer(8) }, 4)).toThrow(FormatError);
    expect(() => dequantizeGpu(untouched, { format: "float8_e4m3fn", codes: {} as GpuBuffer }, 4)).toThrow(/src\.codes: got .*; allowed: a GPUBuffer/);
    expect(() => dequantizeGpu(untouched, { format: "float8_e4m3fn", codes: buffer(8) }, 4, { target: "bfloat16" as "float16" })).toThrow(/options\.target/);
    // binary16 output would round twice for values beyond float32 and for block products.
    expect(() => dequantizeGpu(untouched, { format: "Binary16p1se", codes: buffer(8) }, 4, { target: "float16" })).toThrow(/options\.target: is float16/);
    expect(() => dequantizeGpu(untouched, { scheme: "mxfp4", elements: buffer(16), scales: buffer(4) }, 32, { target: "float16" })).toThrow(/options\.target/);
  });

  it("block sources check the scheme, sizes, block size and tensor scale", () => {
    const q = { scheme: "mxfp4" as const, elements: buffer(16), scales: buffer(4) };
    expect(() => dequantizeGpu(untouched, { ...q, elements: buffer(12) }, 32)).toThrow(/src\.elements: has 12 bytes; allowed: at least 16/);
    expect(() => dequantizeGpu(untouched, { ...q, blockSize: 3 }, 32)).toThrow(/src\.blockSize/);
    expect(() => dequantizeGpu(untouched, { ...q, tensorScale: 0.1 }, 32)).toThrow(/src\.tensorScale: got 0\.1; allowed: a positive finite float32/);
    expect(() => dequantizeGpu(untouched, { ...q, scheme: "mxint8" }, 32)).toThrow(/not MXINT8/);
    expect(() => dequantizeGpu(untouched, { ...q, scheme: "mxfp3" as "mxfp4" }, 32)).toThrow(/src\.scheme/);
    // split-half stores whole blocks: 5 elements of a 32-element block take 16 bytes.
    expect(() => dequantizeGpu(untouched, { ...q, elements: buffer(4), nibbleOrder: "split-half" }, 5)).toThrow(/allowed: at least 16/);
  });

  it("quantizeGpu and matvecGpu check their inputs and projection", () => {
    expect(() => quantizeGpu(untouched, buffer(12), 4, "float8_e4m3fn")).toThrow(/^src: has 12 bytes/);
    expect(() => quantizeGpu(untouched, buffer(16), 4, "float8_e4m3fn", { projection: { rounding: "StochasticC", stochasticBits: 3 } })).toThrow(
      ProjectionError,
    );
    expect(() => quantizeGpu(untouched, buffer(16), 4, "float8_e4m3fn", { out: buffer(2) })).toThrow(/options\.out/);
    const w = { format: "float8_e4m3fn", codes: buffer(64) };
    expect(() => matvecGpu(untouched, w, buffer(32), 9, 8)).toThrow(/^w\.codes: has 64 bytes; allowed: at least 72/);
    expect(() => matvecGpu(untouched, w, buffer(12), 4, 4)).toThrow(/^x: has 12 bytes/);
    expect(() => matvecGpu(untouched, w, buffer(16), 65536, 65536)).toThrow(/^rows: rows · cols/);
  });

  it("a format wider than 16 bits is a FormatError naming the argument that gave it, as wgsl() says", () => {
    const wide = "fmt: binary32 has 32-bit codes; allowed: a format of at most 16 bits";
    expect(() => wgsl("float32", "decode")).toThrow(new FormatError("fmt", wide.slice(5)));
    expect(() => quantizeGpu(untouched, buffer(16), 4, "float32")).toThrow(new FormatError("fmt", wide.slice(5)));
    expect(() => dequantizeGpu(untouched, { format: "float32", codes: buffer(16) }, 4)).toThrow(new FormatError("src.format", wide.slice(5)));
  });

  it("wgsl() refuses a function name WGSL would not compile: a keyword, or a name the function itself uses", () => {
    for (const op of ["decode", "decodeBits", "encodeBits"] as const) {
      for (const name of ["let", "fn", "loop", "while", "override", "u32"]) {
        expect(() => wgsl("float8_e4m3fn", op, { name }), `${op} ${name}`).toThrow(ArgumentTypeError);
      }
    }
    // Built-in functions the generated code calls (decode's bitcast, encodeBits' select and countLeadingZeros).
    for (const [op, name] of [
      ["decode", "bitcast"],
      ["encodeBits", "select"],
      ["encodeBits", "countLeadingZeros"],
    ] as const) {
      expect(() => wgsl("float8_e4m3fn", op, { name }), `${op} ${name}`).toThrow(ArgumentTypeError);
    }
    expect(() => wgsl("float8_e4m3fn", "decode", { name: "f32" })).toThrow(/^options\.name: got "f32", which is a WGSL keyword or a name this function uses/);
    expect(wgsl("float8_e4m3fn", "decode", { name: "decodeE4M3" })).toMatch(/^fn decodeE4M3\(code: u32\) -> f32 \{$/m);
  });
});
