// The error contract at the edges of the bulk API: detached (transferred) buffers, non-object options, malformed
// exact values and packed lengths give typed errors naming the argument; SharedArrayBuffer-backed arrays work.
import { describe, expect, it } from "vitest";
import {
  ArgumentTypeError,
  CodeRangeError,
  type Exact,
  FormatError,
  MiniFloatArray,
  customFormat,
  dequantize,
  dequantizePacked,
  encodeExact,
  newFlags,
  packCodes,
  packedLength,
  quantize,
  quantizePacked,
  unpackCodes,
} from "../src/index.js";

function detached<T extends ArrayBufferView>(a: T): T {
  structuredClone(a.buffer, { transfer: [a.buffer as ArrayBuffer] });
  return a;
}

function expectTyped(fn: () => unknown, cls: typeof ArgumentTypeError | typeof CodeRangeError, argument: string, fragment: string | RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(cls);
  expect((caught as ArgumentTypeError).argument).toBe(argument);
  expect((caught as Error).message.startsWith(`${argument}: `)).toBe(true);
  expect((caught as Error).message).toMatch(fragment);
}

describe("detached buffers are rejected, not read as empty", () => {
  const DETACHED = /whose ArrayBuffer was detached \(transferred\); allowed: an array with a live buffer$/;
  it("bulk inputs and outputs", () => {
    expectTyped(() => quantize(detached(new Float32Array(4)), "float8_e4m3fn"), ArgumentTypeError, "src", /^src: is a Float32Array whose/);
    expectTyped(() => quantize(detached(new Float64Array(4)), "float8_e4m3fn"), ArgumentTypeError, "src", DETACHED);
    expectTyped(() => quantize(new Float32Array(0), "float8_e4m3fn", { out: detached(new Uint8Array(4)) }), ArgumentTypeError, "options.out", DETACHED);
    expectTyped(() => dequantize(detached(new Uint8Array(4)), "float8_e4m3fn"), ArgumentTypeError, "codes", DETACHED);
    expectTyped(() => dequantize(new Uint8Array(0), "float8_e4m3fn", { out: detached(new Float32Array(2)) }), ArgumentTypeError, "options.out", DETACHED);
  });

  it("packed codes and views", () => {
    expectTyped(() => packCodes(detached(new Uint8Array(4)), 4), ArgumentTypeError, "codes", DETACHED);
    expectTyped(() => unpackCodes(detached(new Uint8Array(2)), 4, 4), ArgumentTypeError, "bytes", DETACHED);
    expectTyped(() => dequantizePacked(detached(new Uint8Array(3)), "float6_e3m2fn", 4), ArgumentTypeError, "bytes", DETACHED);
    expectTyped(() => quantizePacked(detached(new Float32Array(4)), "float4_e2m1fn"), ArgumentTypeError, "src", DETACHED);
    expectTyped(() => MiniFloatArray.from(detached(new Float32Array(4)), "float8_e4m3fn"), ArgumentTypeError, "source", DETACHED);
    expectTyped(() => MiniFloatArray.from(detached(new Int16Array(4)), "float8_e4m3fn"), ArgumentTypeError, "source", DETACHED);
    expectTyped(() => MiniFloatArray.fromCodes(detached(new Uint8Array(4)), "float8_e4m3fn"), ArgumentTypeError, "codes", DETACHED);
    const view = MiniFloatArray.from([1, 2], "float8_e4m3fn");
    expectTyped(() => view.setCodes(detached(new Float32Array(2))), ArgumentTypeError, "codes", DETACHED);
    view.free();
  });

  it("empty arrays over live buffers stay valid", () => {
    expect(quantize(new Float32Array(new ArrayBuffer(0)), "float8_e4m3fn").length).toBe(0);
    expect(dequantize(new Uint8Array(new ArrayBuffer(8), 8, 0), "float8_e4m3fn").length).toBe(0);
    expect(packCodes(new Uint8Array(0), 6).length).toBe(0);
  });
});

describe("SharedArrayBuffer-backed arrays", () => {
  it("quantize, dequantize and pack give the results of ordinary arrays", () => {
    const x = Float32Array.of(1.5, -448, 1000, Number.NaN, 2 ** -9, -0, 0.3, 7);
    const sx = new Float32Array(new SharedArrayBuffer(32));
    sx.set(x);
    const out = new Uint8Array(new SharedArrayBuffer(8));
    expect(quantize(sx, "float8_e4m3fn", { saturation: "SatFinite", out })).toBe(out);
    expect(Array.from(out)).toEqual(Array.from(quantize(x, "float8_e4m3fn", { saturation: "SatFinite" })));
    expect(Array.from(dequantize(out, "float8_e4m3fn"))).toEqual(Array.from(dequantize(new Uint8Array(out), "float8_e4m3fn")));
    const fp4 = new Uint8Array(new SharedArrayBuffer(8)).fill(9);
    expect(Array.from(unpackCodes(packCodes(fp4, 4), 4, 8))).toEqual(Array(8).fill(9));
  });
});

describe("other argument checks", () => {
  it("quantize options must be an object", () => {
    expectTyped(
      () => quantize(new Float32Array(2), "float8_e4m3fn", 5 as never),
      ArgumentTypeError,
      "options",
      /^options: got 5; allowed: an object with the keys rounding, saturation, stochasticBits/,
    );
    expectTyped(() => quantize(new Float32Array(2), "float8_e4m3fn", "SatFinite" as never), ArgumentTypeError, "options", /got "SatFinite"/);
  });

  it("encodeExact needs an Exact value", () => {
    for (const bad of [
      null,
      1,
      { kind: "finite" },
      { kind: "finite", sign: 1, significand: 3, exponent: 0 },
      { kind: "finite", sign: 1, significand: -1n, exponent: 0 },
      { kind: "nan" },
      { kind: "zero", sign: 1 },
    ]) {
      expectTyped(() => encodeExact(bad as unknown as Exact, "float8_e4m3fn"), ArgumentTypeError, "value", /allowed: an Exact \{ kind: "finite"/);
    }
    expect(encodeExact({ kind: "finite", sign: -1, significand: 3n, exponent: -1 }, "float8_e4m3fn")).toBe(0xbc);
  });

  it("empty arrays convert where SharedArrayBuffer is not defined (a page that is not cross-origin isolated)", () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, "SharedArrayBuffer")!;
    delete (globalThis as { SharedArrayBuffer?: unknown }).SharedArrayBuffer;
    try {
      expect(quantize(new Float32Array(0), "float8_e4m3fn")).toEqual(new Uint8Array(0));
      expect(dequantize(new Uint8Array(0), "float8_e4m3fn")).toEqual(new Float32Array(0));
    } finally {
      Object.defineProperty(globalThis, "SharedArrayBuffer", saved);
    }
  });

  it("quantize options.flags must be a flags object (it is written to)", () => {
    expectTyped(
      () => quantize(Float64Array.of(Number.NaN), "float8_e4m3fn", { flags: 5 as never }),
      ArgumentTypeError,
      "options.flags",
      "got 5; allowed: a ConversionFlags object",
    );
    expectTyped(() => quantize(Float32Array.of(1), "float8_e4m3fn", { flags: null as never }), ArgumentTypeError, "options.flags", "got null");
    // Counts it would add to: each must be there, a non-negative integer (an empty object would end up NaN).
    expectTyped(() => quantize(Float32Array.of(1), "float8_e4m3fn", { flags: {} as never }), ArgumentTypeError, "options.flags.invalid", "got undefined");
    const flags = { ...newFlags(), overflow: null };
    expectTyped(() => quantize(Float32Array.of(1), "float8_e4m3fn", { flags: flags as never }), ArgumentTypeError, "options.flags.overflow", "got null");
    expectTyped(
      () => quantize(Float32Array.of(1), "float8_e4m3fn", { flags: { ...newFlags(), underflow: -1 } }),
      ArgumentTypeError,
      "options.flags.underflow",
      "got -1",
    );
    const counted = { ...newFlags(), invalid: 2 };
    quantize(Float32Array.of(Number.NaN), "float8_e4m3fn", { flags: counted });
    expect(counted).toEqual({ invalid: 3, denormal: 0, overflow: 0, underflow: 0 });
  });

  it("customFormat rejects a non-boolean signedness and a negative or fractional NaN count", () => {
    const spec = { name: "x", K: 8, P: 3, bias: 3, signed: true };
    expect(() => customFormat({ ...spec, signed: "yes" as never })).toThrow(new FormatError("signed", `got "yes"; allowed: true or false`));
    expect(() => customFormat({ ...spec, highNaNs: -1 })).toThrow(new FormatError("highNaNs", "got -1; allowed: a non-negative integer"));
    expect(() => customFormat({ ...spec, highNaNs: 1.5 })).toThrow(FormatError);
    expect(customFormat({ ...spec, highNaNs: 2 }).maxFiniteMagnitude).toBe(125);
  });

  it("packedLength validates its count and bit width", () => {
    expectTyped(() => packedLength(-1, 4), CodeRangeError, "n", "got -1; allowed: an integer in [0, 2^32]");
    expectTyped(() => packedLength(Number.NaN, 6), CodeRangeError, "n", "got NaN");
    expectTyped(() => packedLength(3, 5 as never), CodeRangeError, "bits", "got 5; allowed: 4 or 6");
    expect([packedLength(3, 4), packedLength(5, 6)]).toEqual([2, 4]);
  });
});

describe("options renamed or removed in 0.2.0 are rejected, not ignored", () => {
  it("dot's block (now blockSize) and the per-call wasm switch (now useKernels)", async () => {
    const { dot, dotRows, quantizeBlocks } = await import("../src/index.js");
    const codes = Uint8Array.of(1, 2);
    expectTyped(
      () => dot(codes, codes, { formats: "float8_e4m3fn", block: 4 } as never),
      ArgumentTypeError,
      "options.block",
      "was renamed; allowed: options.blockSize",
    );
    expectTyped(
      () => dotRows(codes, codes, 1, 2, { formats: "float8_e4m3fn", wasm: false } as never),
      ArgumentTypeError,
      "options.wasm",
      /useKernels\(false\)/,
    );
    expectTyped(() => quantizeBlocks(new Float32Array(32), "mxfp4", { wasm: false }), ArgumentTypeError, "options.wasm", /useKernels\(false\)/);
  });
});

describe("helpers reject bad arguments by name", () => {
  it("the worker-free helpers: WasmArray, random bits, κ, the saturation experiment, dequantize options", async () => {
    const { WasmArray } = await import("../src/index.js");
    const { kappaOf, saturationExperiment } = await import("../src/p3109.js");
    const { randomR, seedKeys } = await import("../src/random.js");
    expectTyped(() => new WasmArray(null as never, 3), ArgumentTypeError, "type", /allowed: Uint8Array/);
    expectTyped(() => new WasmArray(Array as never, 3), ArgumentTypeError, "type", /allowed: Uint8Array/);
    expectTyped(() => randomR(1, 2, 3, 40), CodeRangeError, "N", /\[1, 32\]/);
    expectTyped(() => randomR(1, 2, -1, 8), CodeRangeError, "index", /\[0, 4294967295\]/);
    expectTyped(() => seedKeys(1.5), CodeRangeError, "seed", /\[0, 4294967295\]/);
    expectTyped(() => kappaOf(1n as never), ArgumentTypeError, "approx", /ExpFast/);
    expectTyped(() => saturationExperiment(null as never), ArgumentTypeError, "options", /allowed: an object with the keys N, batches/);
    expectTyped(() => saturationExperiment({ N: -1 }), CodeRangeError, "options.N", /an integer in \[1,/);
    expectTyped(() => saturationExperiment({ N: 1.5 }), CodeRangeError, "options.N", /an integer in \[1,/);
    expectTyped(() => saturationExperiment({ batches: "x" as never }), CodeRangeError, "options.batches", /an integer/);
    expectTyped(() => dequantize(new Uint8Array(1), "float8_e4m3fn", null as never), ArgumentTypeError, "options", /allowed: an object with the keys out/);
  });
});

describe("seedIndex: converting a tensor in parts equals one call", () => {
  it("parts with seedIndex give the same codes as the whole array, on the kernel and on the reference", async () => {
    const { quantize, useKernels, ProjectionError } = await import("../src/index.js");
    const x = new Float32Array(1000);
    for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 0.37) * 300;
    for (const kernels of [true, false]) {
      useKernels(kernels);
      for (const rounding of ["StochasticA", "StochasticB", "StochasticC"] as const) {
        const options = { rounding, stochasticBits: 5, seed: 99 };
        const whole = quantize(x, "Binary8p3se", options);
        for (const cut of [1, 17, 500, 999]) {
          const head = quantize(x.subarray(0, cut), "Binary8p3se", { ...options, seedIndex: 0 });
          const tail = quantize(x.subarray(cut), "Binary8p3se", { ...options, seedIndex: cut });
          expect([...head, ...tail], `${rounding} cut ${cut} kernels ${kernels}`).toEqual([...whole]);
        }
      }
    }
    useKernels(true);
    expectTyped(() => quantize(x, "Binary8p3se", { seedIndex: 3 }), ProjectionError as never, "options.seedIndex", /only allowed together with options.seed/);
    expectTyped(
      () => quantize(x, "Binary8p3se", { rounding: "StochasticA", stochasticBits: 4, seed: 1, seedIndex: 2 ** 32 - 10 }),
      ProjectionError as never,
      "options.seedIndex",
      /seedIndex \+ length \(1000\) ≤ 2\^32/,
    );
  });
});
