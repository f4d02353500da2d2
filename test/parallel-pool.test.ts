// minifloat/parallel: results bit-identical to the single-thread calls, typed errors, and the pool's lifecycle.
import { spawnSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ArgumentTypeError,
  CodeRangeError,
  FormatError,
  ProjectionError,
  allocBytes,
  allocCodes,
  convert,
  dequantize,
  dotRows,
  format,
  matmul,
  matvec,
  newFlags,
  quantize,
} from "../src/index.js";
import { useKernels } from "../src/wasm/instance.js";
import { memoryStats } from "../src/wasm/memory.js";
import { type Pool, createPool } from "../src/parallel/index.js";

const shared = <T extends Float32Array | Float64Array | Uint8Array | Uint16Array>(
  type: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number },
  n: number,
) => new type(new SharedArrayBuffer(n * type.BYTES_PER_ELEMENT));

/** Values over many binades with ±0, ±Inf, NaNs (both signs, payloads) and float32 subnormals. */
function values(n: number): Float32Array {
  const a = new Float32Array(n);
  const bits = new Uint32Array(a.buffer);
  let s = 12345;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    a[i] = (s / 2 ** 32 - 0.5) * 2 ** ((i % 61) - 30);
    if (i % 97 === 0) bits[i] = [0x7fc00001, 0xffa00000, 0x80000000, 0x7f800000, 0xff800000, 0x00000003, 0x807fffff][i % 7]!;
  }
  return a;
}

const same = (a: ArrayBufferView, b: ArrayBufferView) =>
  Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength));

let pool: Pool;
beforeAll(async () => {
  pool = await createPool({ threads: 3, minElements: 0 });
});
afterAll(() => pool.close());

describe("parallel equals single-thread", () => {
  const n = 100_003;
  const src = values(n);
  const cases: Array<[string, object]> = [
    ["float8_e4m3fn", {}],
    ["float8_e5m2", { saturation: "SatFinite" }],
    ["Binary8p3se", { rounding: "TowardNegative", saturation: "SatPropagate" }],
    ["Binary8p3se", { rounding: "StochasticA", stochasticBits: 11, seed: 7 }],
    ["Binary6p2ue", { rounding: "StochasticB", stochasticBits: 3, seed: 2 ** 32 - 1 }],
    ["bfloat16", { rounding: "StochasticC", stochasticBits: 9, seed: 123 }],
    ["binary16", {}],
    ["float4_e2m1fn", {}],
    ["float8_e8m0fnu", {}],
    ["cfloat8_1_4_3(bias=3)", {}],
    ["binary32", {}],
  ];
  it.each(cases)("quantize %s %j", async (name, options) => {
    const f = name.startsWith("cfloat8") ? format("cfloat8_1_4_3", { bias: 3 }) : format(name);
    const expected = quantize(src, f, options);
    const got = await pool.quantize(src, f, options);
    expect(got.constructor).toBe(expected.constructor);
    expect(got.length).toBe(n);
    expect(same(got, expected)).toBe(0);
    if (f.K <= 16) expect(same(await pool.dequantize(got, f), dequantize(expected, f))).toBe(0);
  });

  it("matches with caller random bits, float64 input (reference path) and flags", async () => {
    const random = new Uint16Array(n).map((_, i) => (i * 40503) & 0xfff);
    const options = { rounding: "StochasticC", stochasticBits: 12, random } as const;
    expect(same(await pool.quantize(src, "Binary8p4se", options), quantize(src, "Binary8p4se", options))).toBe(0);
    const f64 = Float64Array.from(src.subarray(0, 5003), (x, i) => x * (1 + 2 ** -40 * (i % 3)));
    const flagsOne = newFlags();
    const flagsMany = newFlags();
    const one = quantize(f64, "float8_e5m2", { flags: flagsOne });
    const many = await pool.quantize(f64, "float8_e5m2", { flags: flagsMany });
    expect(same(many, one)).toBe(0);
    expect(flagsMany).toEqual(flagsOne);
    expect(flagsOne.invalid).toBeGreaterThan(0);
  });

  it("follows the kernel switch (useKernels(false): the reference in every worker, in the pool's memory too)", async () => {
    const x = pool.allocFloat32(n);
    x.array.set(src);
    const options = { rounding: "StochasticB", stochasticBits: 7, seed: 3 } as const;
    const fast = quantize(src, "Binary8p3se", options);
    useKernels(false);
    try {
      expect(same(await pool.quantize(src, "Binary8p3se", options), fast)).toBe(0);
      const codes = await pool.quantize(x.array, "Binary8p3se", options);
      expect(same(codes, fast)).toBe(0);
      const c = pool.allocCodes("Binary8p3se", n);
      c.array.set(codes);
      expect(same(await pool.dequantize(c.array, "Binary8p3se"), dequantize(fast, "Binary8p3se"))).toBe(0);
      c.free();
    } finally {
      useKernels(true);
      x.free();
    }
  });

  it("writes into shared and non-shared outputs and returns them", async () => {
    const sharedSrc = shared(Float32Array, n);
    sharedSrc.set(src);
    const expected = quantize(src, "float8_e4m3fn");
    const outShared = shared(Uint8Array, n);
    expect(await pool.quantize(sharedSrc, "float8_e4m3fn", { out: outShared })).toBe(outShared);
    expect(same(outShared, expected)).toBe(0);
    const outPlain = new Uint8Array(n);
    expect(await pool.quantize(src, "float8_e4m3fn", { out: outPlain })).toBe(outPlain);
    expect(same(outPlain, expected)).toBe(0);
    const values32 = new Float32Array(n);
    expect(await pool.dequantize(outPlain, "float8_e4m3fn", { out: values32 })).toBe(values32);
    expect(same(values32, dequantize(expected, "float8_e4m3fn"))).toBe(0);
  });

  it("writes into a Wasm-memory output even when the memory grows while the call runs", async () => {
    const handle = allocCodes("float8_e4m3fn", n);
    const pending = pool.quantize(src, "float8_e4m3fn", { out: handle.array });
    const filler = allocBytes(memoryStats().memoryBytes);
    const got = await pending;
    expect([got.buffer, got.byteOffset, got.length]).toEqual([handle.array.buffer, handle.ptr, n]);
    expect(same(handle.array, quantize(src, "float8_e4m3fn"))).toBe(0);
    filler.free();
    handle.free();
  });

  it("runs calls below minElements on the calling thread with the same result", async () => {
    const small = await createPool({ threads: 1, minElements: 1000 });
    try {
      const x = values(999);
      const got = await small.quantize(x, "Binary8p3se", { rounding: "StochasticA", stochasticBits: 5, seed: 5 });
      expect(got.buffer).toBeInstanceOf(ArrayBuffer);
      expect(same(got, quantize(x, "Binary8p3se", { rounding: "StochasticA", stochasticBits: 5, seed: 5 }))).toBe(0);
      expect(small.threads).toBe(1);
    } finally {
      await small.close();
    }
  });

  it("handles empty arrays and overlapping concurrent calls", async () => {
    expect((await pool.quantize(new Float32Array(0), "float8_e4m3fn")).length).toBe(0);
    const parts = [values(70_001), values(1_234), values(33_333)];
    const got = await Promise.all(parts.map((p, i) => pool.quantize(p, "Binary8p3se", { rounding: "StochasticA", stochasticBits: 8, seed: i })));
    got.forEach((g, i) => expect(same(g, quantize(parts[i]!, "Binary8p3se", { rounding: "StochasticA", stochasticBits: 8, seed: i }))).toBe(0));
  });
});

describe("the pool's shared memory (zero-copy kernels on every worker)", () => {
  // Chunks of at least 65536 elements (multiples of 64) that 3 workers take in turn: these lengths give 1, 4 and 17
  // chunks and put chunk and tail-block boundaries at odd places.
  const lengths = [1, 15, 64, 191, 3 * 65_536 + 17, 16 * 65_536 + 45];
  const cases: Array<[string, object]> = [
    ["float8_e4m3fn", {}],
    ["float8_e5m2", { saturation: "SatFinite" }],
    ["Binary8p3se", { rounding: "TowardNegative", saturation: "SatPropagate" }],
    ["Binary8p3se", { rounding: "StochasticA", stochasticBits: 8, seed: 1 }],
    ["Binary6p2ue", { rounding: "StochasticB", stochasticBits: 3, seed: 2 ** 32 - 1 }],
    ["bfloat16", { rounding: "StochasticC", stochasticBits: 9, seed: 123 }],
    ["binary16", {}],
    ["float4_e2m1fn", {}],
    ["Binary12p5se", { rounding: "NearestTiesToAway" }],
  ];
  it.each(cases)("quantize and dequantize %s %j in place, every length", async (name, options) => {
    for (const n of lengths) {
      const x = pool.allocFloat32(n);
      x.array.set(values(n));
      const codes = pool.allocCodes(name, n);
      const decoded = pool.allocFloat32(n);
      try {
        const expected = quantize(x.array, name, options);
        expect(await pool.quantize(x.array, name, { ...options, out: codes.array })).toBe(codes.array);
        expect(same(codes.array, expected)).toBe(0);
        expect(await pool.dequantize(codes.array, name, { out: decoded.array })).toBe(decoded.array);
        expect(same(decoded.array, dequantize(expected, name))).toBe(0);
      } finally {
        for (const h of [x, codes, decoded]) h.free();
      }
    }
  });

  it("copies outputs and caller random bits that live elsewhere, and equals the single-thread result", async () => {
    const n = 70_001;
    const x = pool.allocFloat32(n);
    x.array.set(values(n));
    const random = new Uint16Array(n).map((_, i) => (i * 40503) & 0xfff);
    const options = { rounding: "StochasticC", stochasticBits: 12, random } as const;
    const expected = quantize(x.array, "Binary8p4se", options);
    const fresh = await pool.quantize(x.array, "Binary8p4se", options);
    expect(fresh.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(same(fresh, expected)).toBe(0);
    const plain = new Uint8Array(n);
    expect(await pool.quantize(x.array, "Binary8p4se", { ...options, out: plain })).toBe(plain);
    expect(same(plain, expected)).toBe(0);
    const inPool = pool.allocCodes("Binary8p4se", n);
    const r = pool.allocCodes("binary16", n);
    r.array.set(random);
    expect(same(await pool.quantize(x.array, "Binary8p4se", { ...options, random: r.array as Uint16Array, out: inPool.array }), expected)).toBe(0);
    const wasmOut = allocBytes(4 * n);
    const values32 = new Float32Array(wasmOut.array.buffer, wasmOut.ptr, n);
    expect(same(await pool.dequantize(inPool.array, "Binary8p4se", { out: values32 }), dequantize(expected, "Binary8p4se"))).toBe(0);
    expect(same(await pool.dequantize(inPool.array, "Binary8p4se"), dequantize(expected, "Binary8p4se"))).toBe(0);
    for (const h of [x, inPool, r, wasmOut]) h.free();
  });

  it.each([
    ["float8_e4m3fn", "float16"],
    ["float8_e5m2", "bfloat16"],
    ["Binary8p3se", "float16"],
    ["float6_e2m3fn", "bfloat16"],
    ["float4_e2m1fn", "float16"],
    ["bfloat16", "float16"],
    ["Binary12p5se", "bfloat16"],
  ] as const)("dequantizes %s into %s bits and converts on the workers, every length and kind of output", async (name, to) => {
    const f = format(name);
    for (const n of lengths) {
      const codes = pool.allocCodes(name, n);
      const out = pool.allocCodes("binary16", n);
      const wasmOut = allocBytes(2 * n);
      try {
        codes.array.forEach((_, i) => {
          codes.array[i] = (Math.imul(i, 40503) >>> 0) % f.codeCount;
        });
        const expected = dequantize(codes.array, name, { to, bits: true });
        const inPool = out.array as Uint16Array;
        expect(await pool.dequantize(codes.array, name, { to, bits: true, out: inPool })).toBe(inPool);
        expect(same(inPool, expected)).toBe(0);
        const plain = new Uint16Array(n);
        expect(await pool.dequantize(codes.array, name, { to, out: plain })).toBe(plain);
        expect(same(plain, expected)).toBe(0);
        const inWasm = new Uint16Array(wasmOut.array.buffer, wasmOut.ptr, n);
        expect(same(await pool.dequantize(codes.array, name, { to, bits: true, out: inWasm }), expected)).toBe(0);
        expect(same(await pool.dequantize(codes.array, name, { to, bits: true }), expected)).toBe(0);
        const target = to === "float16" ? "binary16" : "bfloat16";
        inPool.fill(0);
        expect(await pool.convert(codes.array, name, target, { out: inPool })).toBe(inPool);
        expect(same(inPool, expected)).toBe(0);
        // A ≤ 8-bit target (one byte table, no kernel) runs on the calling thread with the same codes.
        expect(
          same(
            await pool.convert(codes.array, name, "float8_e4m3fn", { saturation: "SatFinite" }),
            convert(codes.array, name, "float8_e4m3fn", { saturation: "SatFinite" }),
          ),
        ).toBe(0);
      } finally {
        for (const h of [codes, out, wasmOut]) h.free();
      }
    }
  });

  it("checks every code before a worker writes 16-bit output, and validates like the single-thread calls", async () => {
    const n = 200_000;
    const codes = pool.allocCodes("float6_e3m2fn", n);
    codes.array.fill(5);
    codes.array[150_003] = 64;
    const out = pool.allocCodes("binary16", n);
    const error = await pool.dequantize(codes.array, "float6_e3m2fn", { to: "float16", bits: true, out: out.array as Uint16Array }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodeRangeError);
    expect((error as Error).message).toBe("codes[150003]: is 64; allowed: a float6_e3m2fn code in [0, 63]");
    const converted = await pool.convert(codes.array, "float6_e3m2fn", "binary16", { out: out.array as Uint16Array }).catch((e: unknown) => e);
    expect((converted as Error).message).toBe("codes[150003]: is 64; allowed: a float6_e3m2fn code in [0, 63]");
    expect(out.array.every((v) => v === 0)).toBe(true);
    codes.array[150_003] = 0;
    await expect(pool.dequantize(codes.array, "float6_e3m2fn", { to: "float16", out: new Uint16Array(3) })).rejects.toThrow(CodeRangeError);
    await expect(pool.dequantize(codes.array, "float6_e3m2fn", { to: "bfloat16", out: new Float32Array(n) as never })).rejects.toThrow(ArgumentTypeError);
    await expect(pool.dequantize(codes.array, "float6_e3m2fn", { to: "int8" as never })).rejects.toThrow(/options.to/);
    await expect(pool.dequantize(codes.array, "float6_e3m2fn", { to: "float16", bits: 1 as never })).rejects.toThrow(/options.bits/);
    // The float32 route takes no bits, but checks them as one thread does.
    await expect(pool.dequantize(codes.array, "float6_e3m2fn", { bits: 1 as never })).rejects.toThrow(
      new ArgumentTypeError("options.bits", "got 1; allowed: true or false"),
    );
    await expect(pool.convert(codes.array, "float6_e3m2fn", "binary32")).rejects.toThrow(CodeRangeError);
    await expect(pool.dequantize(codes.array, "float6_e3m2fn", { to: "float16", out: codes.array as never })).rejects.toThrow(ArgumentTypeError);
    for (const h of [codes, out]) h.free();
  });

  it("runs overlapping calls with different formats (a parameter block per call and part)", async () => {
    const n = 100_000;
    const x = pool.allocFloat32(n);
    x.array.set(values(n));
    const specs: Array<[string, object]> = [
      ["float8_e4m3fn", {}],
      ["Binary8p3se", { rounding: "StochasticA", stochasticBits: 8, seed: 9 }],
      ["binary16", { rounding: "TowardZero" }],
      ["Binary8p3se", { rounding: "StochasticB", stochasticBits: 5, seed: 4 }],
    ];
    const outs = specs.map(([name]) => pool.allocCodes(name, n));
    await Promise.all(specs.map(([name, o], i) => pool.quantize(x.array, name, { ...o, out: outs[i]!.array })));
    specs.forEach(([name, o], i) => expect(same(outs[i]!.array, quantize(x.array, name, o))).toBe(0));
    for (const h of [x, ...outs]) h.free();
  });

  it("reports a bad code at its absolute index before any worker writes", async () => {
    const codes = pool.allocCodes("float4_e2m1fn", 90_000);
    codes.array.fill(3);
    codes.array[80_001] = 16;
    const out = pool.allocFloat32(90_000);
    const error = await pool.dequantize(codes.array, "float4_e2m1fn", { out: out.array }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodeRangeError);
    expect((error as Error).message).toBe("codes[80001]: is 16; allowed: a float4_e2m1fn code in [0, 15]");
    expect(out.array.every((v) => v === 0)).toBe(true);
    codes.free();
    out.free();
  });

  it("hands out zeroed handles, reuses freed memory and rejects misuse with typed errors", async () => {
    const a = pool.allocFloat32(1000);
    expect(a.array.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(a.array.every((v) => v === 0)).toBe(true);
    a.array.fill(1);
    const ptr = a.ptr;
    a.free();
    a.free();
    expect(a.freed).toBe(true);
    expect(() => a.array).toThrow(ArgumentTypeError);
    const b = pool.allocFloat32(1000);
    expect(b.ptr).toBe(ptr);
    expect(b.array.every((v) => v === 0)).toBe(true);
    b.free();
    expect(pool.allocCodes("binary16", 3).array).toBeInstanceOf(Uint16Array);
    expect(() => pool.allocCodes("binary32", 3)).toThrow(ArgumentTypeError);
    expect(() => pool.allocCodes("nope", 3)).toThrow(FormatError);
    expect(() => pool.allocFloat32(-1)).toThrow(CodeRangeError);
    expect(() => pool.allocFloat32(2 ** 29)).toThrow(/pool's shared memory/);
    expect(() => pool.allocFloat32(2 ** 29)).toThrow(CodeRangeError);
  });
});

describe("callerRuns: the calling thread takes kernel chunks too", () => {
  it("gives the single-thread results for encode, decode, 16-bit output, code checks and dot products", async () => {
    const p = await createPool({ threads: 1, minElements: 0, callerRuns: true });
    const n = 16 * 65_536 + 45;
    const x = p.allocFloat32(n);
    const codes = p.allocCodes("float8_e4m3fn", n);
    const decoded = p.allocFloat32(n);
    const half = p.allocCodes("binary16", n);
    try {
      x.array.set(values(n));
      const expected = quantize(x.array, "float8_e4m3fn");
      await p.quantize(x.array, "float8_e4m3fn", { out: codes.array });
      expect(same(codes.array, expected)).toBe(0);
      await p.dequantize(codes.array, "float8_e4m3fn", { out: decoded.array });
      expect(same(decoded.array, dequantize(expected, "float8_e4m3fn"))).toBe(0);
      await p.dequantize(codes.array, "float8_e4m3fn", { to: "bfloat16", out: half.array as Uint16Array });
      expect(same(half.array, dequantize(expected, "float8_e4m3fn", { to: "bfloat16" }))).toBe(0);
      const [rows, cols] = [300, 1000];
      const dot = { formats: "float8_e4m3fn", partials: "binary16", overflow: "OvSAT" } as const;
      const a = codes.array.subarray(0, rows * cols) as Uint8Array;
      const b = codes.array.subarray(n - rows * cols) as Uint8Array;
      expect(same(await p.dotRows(a, b, rows, cols, dot), dotRows(a, b, rows, cols, dot))).toBe(0);
      expect(same(await p.matmul(a, b.subarray(0, 3 * cols), rows, 3, cols, dot), matmul(a, b.subarray(0, 3 * cols), rows, 3, cols, dot))).toBe(0);
      const fp4 = p.allocCodes("float4_e2m1fn", n);
      fp4.array[n - 3] = 17;
      await expect(p.dequantize(fp4.array, "float4_e2m1fn", { to: "float16" })).rejects.toThrow(`codes[${n - 3}]: is 17`);
      fp4.free();
    } finally {
      for (const h of [x, codes, decoded, half]) h.free();
      await p.close();
    }
  });
});

describe("parallel errors are the typed errors of the single-thread calls", () => {
  it("validates on the calling thread before dispatch", async () => {
    await expect(pool.quantize(new Float32Array(10), "nope")).rejects.toBeInstanceOf(FormatError);
    await expect(pool.quantize([1, 2] as unknown as Float32Array, "float8_e4m3fn")).rejects.toBeInstanceOf(ArgumentTypeError);
    await expect(pool.quantize(new Float32Array(10), "float8_e4m3fn", { rounding: "StochasticA", stochasticBits: 4 })).rejects.toBeInstanceOf(ProjectionError);
    await expect(pool.quantize(new Float32Array(10), "float8_e4m3fn", { out: new Uint8Array(9) })).rejects.toThrow(/options\.out: has length 9/);
    await expect(pool.dequantize(new Uint16Array(10), "float8_e4m3fn")).rejects.toBeInstanceOf(ArgumentTypeError);
  });

  it("rejects an output overlapping the input in one SharedArrayBuffer (the parts would race)", async () => {
    const buffer = new SharedArrayBuffer(5 * 100_000);
    const src = new Float32Array(buffer, 0, 100_000);
    await expect(pool.quantize(src, "float8_e4m3fn", { out: new Uint8Array(buffer, 200_000, 100_000) })).rejects.toThrow(
      "options.out: overlaps src; allowed: a separate array",
    );
    const codes = new Uint8Array(buffer, 0, 100_000);
    await expect(pool.dequantize(codes, "float8_e4m3fn", { out: new Float32Array(buffer, 50_000, 100_000) })).rejects.toThrow(
      "options.out: overlaps codes; allowed: a separate array",
    );
    // The same errors as one thread gives, whatever path the single-thread call would take (flags: the reference).
    for (const call of [
      () => quantize(src, "float8_e4m3fn", { out: new Uint8Array(buffer, 200_000, 100_000) }),
      () => quantize(src, "float8_e4m3fn", { out: new Uint8Array(buffer, 200_000, 100_000), flags: newFlags() }),
      () => dequantize(codes, "float8_e4m3fn", { out: new Float32Array(buffer, 50_000, 100_000) }),
    ]) {
      expect(call).toThrow(/^options\.out: overlaps (src|codes); allowed: a separate array$/);
    }
    const out = new Uint8Array(buffer, 400_000, 100_000);
    expect(await pool.quantize(src, "float8_e4m3fn", { out })).toBe(out);
  });

  it("reports a bad code found by a worker at its absolute index and writes nothing", async () => {
    const codes = new Uint8Array(90_000).fill(3);
    codes[80_001] = 16;
    const out = new Float32Array(90_000);
    const error = await pool.dequantize(codes, "float4_e2m1fn", { out }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodeRangeError);
    expect((error as CodeRangeError).argument).toBe("codes[80001]");
    expect((error as Error).message).toBe("codes[80001]: is 16; allowed: a float4_e2m1fn code in [0, 15]");
    expect(out.every((v) => v === 0)).toBe(true);
  });
});

describe("pool lifecycle", () => {
  it("rejects bad pool options with typed errors", async () => {
    await expect(createPool({ threads: 0 })).rejects.toBeInstanceOf(CodeRangeError);
    await expect(createPool({ threads: 1.5 })).rejects.toThrow(/options\.threads: got 1\.5/);
    await expect(createPool({ minElements: -1 })).rejects.toBeInstanceOf(CodeRangeError);
    await expect(createPool(7 as never)).rejects.toBeInstanceOf(ArgumentTypeError);
    await expect(createPool({ callerRuns: "yes" as never })).rejects.toThrow('options.callerRuns: got "yes"; allowed: true or false');
  });

  it("rejects calls after close() and calls running during close()", async () => {
    const p = await createPool({ threads: 2, minElements: 0 });
    // float64 input runs the exact reference (slow): the workers are still busy when close() stops them.
    const running = p.quantize(new Float64Array(300_000).fill(0.3), "Binary8p3se").catch((e: unknown) => e);
    await p.close();
    const error = await running;
    expect(error).toBeInstanceOf(ArgumentTypeError);
    expect((error as Error).message).toBe("pool: was closed while the call ran; allowed: close() after the calls settle");
    await expect(p.quantize(new Float32Array(4), "float8_e4m3fn")).rejects.toThrow("pool: was closed; allowed: a pool before close()");
    await expect(p.dequantize(new Uint8Array(4), "float8_e4m3fn")).rejects.toBeInstanceOf(ArgumentTypeError);
    expect(() => p.allocFloat32(4)).toThrow("pool: was closed; allowed: a pool before close()");
  });

  it("rejects a call on the shared memory running during close()", async () => {
    const p = await createPool({ threads: 2, minElements: 0 });
    const x = p.allocFloat32(1 << 24);
    const running = p.quantize(x.array, "Binary8p3se", { rounding: "StochasticC", stochasticBits: 8, seed: 1 }).catch((e: unknown) => e);
    await p.close();
    expect(await running).toBeInstanceOf(ArgumentTypeError);
  });

  it("never keeps the process alive: an unclosed pool lets Node exit", () => {
    // The "exit" event runs only when the event loop empties on its own (not on a kill by the timeout below).
    const script = `import { createPool } from "./build/node/parallel.js";
process.on("exit", (code) => console.log("exit " + code));
const pool = await createPool({ threads: 2, minElements: 0 });
const codes = await pool.quantize(new Float32Array(1000).fill(1.5), "float8_e4m3fn");
console.log(codes[999]);`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: new URL("..", import.meta.url),
      timeout: 60_000,
      encoding: "utf8",
    });
    expect({ signal: child.signal, status: child.status, output: child.stdout.trim().split("\n") }).toEqual({
      signal: null,
      status: 0,
      output: ["60", "exit 0"],
    });
  });
});

describe("seedIndex on the pool", () => {
  it("offsets the seeded stream like the single-thread call, on shared arrays and in the pool's memory", async () => {
    const n = 70_001;
    const src = values(n);
    const options = { rounding: "StochasticC", stochasticBits: 6, seed: 5, seedIndex: 123_456 } as const;
    const single = quantize(src, "Binary8p4se", options);
    expect(same(await pool.quantize(src, "Binary8p4se", options), single)).toBe(0);
    const x = pool.allocFloat32(n);
    x.array.set(src);
    expect(same(await pool.quantize(x.array, "Binary8p4se", options), single)).toBe(0);
    x.free();
  });
});

describe("batched dot products on the pool", () => {
  /** Codes of a format with a spread of values (every code below codeCount, NaN codes included). */
  const codes = (n: number, count: number, seed: number) => {
    const c = new Uint8Array(n);
    let s = seed;
    for (let i = 0; i < n; i++) c[i] = (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) % count;
    return c;
  };
  // The third field runs the case with the kernel switch off (useKernels(false)), which the workers follow too.
  const configs: Array<[string, object, boolean]> = [
    ["e4m3fn, binary16, OvSAT", { formats: "float8_e4m3fn", partials: "binary16", overflow: "OvSAT" }, false],
    ["e5m2 × e4m3fn, bfloat16, OvINF, BLK 32", { formats: ["float8_e5m2", "float8_e4m3fn"], partials: "bfloat16", overflow: "OvINF", blockSize: 32 }, false],
    ["Binary8p3se, binary16, exact", { formats: "Binary8p3se", overflow: "exact" }, false],
    ["float4_e2m1fn (unpacked), binary16, OvNAN", { formats: "float4_e2m1fn", overflow: "OvNAN" }, false],
    ["e4m3fn, reference path (useKernels(false))", { formats: "float8_e4m3fn" }, true],
  ];
  afterEach(() => useKernels(true));
  const count = (o: { formats: unknown }) => (String(Array.isArray(o.formats) ? o.formats[0] : o.formats).startsWith("float4") ? 16 : 256);

  it.each(configs)("dotRows %s: row pairs split between the workers, bit for bit", async (_, options, reference) => {
    useKernels(!reference);
    const rows = 203;
    const cols = reference ? 37 : 1001;
    const a = codes(rows * cols, count(options as never), 1);
    const b = codes(rows * cols, count(options as never), 2);
    const want = dotRows(a, b, rows, cols, options as never);
    expect(same(await pool.dotRows(a, b, rows, cols, options as never), want)).toBe(0);
    // Operands in the pool's memory and in SharedArrayBuffers, output given.
    const pa = pool.allocCodes("float8_e4m3fn", rows * cols);
    const pb = shared(Uint8Array, rows * cols);
    pa.array.set(a);
    pb.set(b);
    const out = shared(Float32Array, rows);
    expect(await pool.dotRows(pa.array as Uint8Array, pb, rows, cols, { ...(options as object), out } as never)).toBe(out);
    expect(same(out, want)).toBe(0);
    pa.free();
  });

  it.each(configs)("matmul %s: split by the rows of a, or of b when a has few rows; float32 and binary16 results", async (_, options, reference) => {
    useKernels(!reference);
    const k = reference ? 29 : 515;
    for (const [m, n] of [
      [9, 7],
      [1, 13],
      [2, 1],
      [40, 3],
    ] as const) {
      const a = codes(m * k, count(options as never), 3 + m);
      const b = codes(n * k, count(options as never), 4 + n);
      const want = matmul(a, b, m, n, k, options as never);
      expect(same(await pool.matmul(a, b, m, n, k, options as never), want), `${m}×${n}`).toBe(0);
      const want16 = matmul(a, b, m, n, k, { ...(options as object), out: new Uint16Array(m * n) } as never);
      const got16 = await pool.matmul(a, b, m, n, k, { ...(options as object), out: new Uint16Array(m * n) } as never);
      expect(got16).toBeInstanceOf(Uint16Array);
      expect(same(got16, want16), `${m}×${n} binary16`).toBe(0);
    }
  });

  it.each(configs)("%s with both operands in the pool's memory (dotBatch on every worker, zero-copy)", async (_, options, reference) => {
    useKernels(!reference);
    const k = 300;
    const c = count(options as never);
    const put = (codesIn: Uint8Array) => {
      const h = pool.allocCodes("float8_e4m3fn", codesIn.length);
      h.array.set(codesIn);
      return h;
    };
    for (const [m, n] of [
      [37, 5],
      [1, 9],
      [2, 1],
    ] as const) {
      const [a, b] = [codes(m * k, c, 20 + m), codes(n * k, c, 30 + n)];
      const [pa, pb] = [put(a), put(b)];
      const [va, vb] = [pa.array as Uint8Array, pb.array as Uint8Array];
      expect(same(await pool.matmul(va, vb, m, n, k, options as never), matmul(a, b, m, n, k, options as never)), `matmul ${m}×${n}`).toBe(0);
      const out16 = pool.allocCodes("binary16", m * n);
      await pool.matmul(va, vb, m, n, k, { ...(options as object), out: out16.array } as never);
      expect(same(out16.array, matmul(a, b, m, n, k, { ...(options as object), out: new Uint16Array(m * n) } as never)), `matmul ${m}×${n} binary16`).toBe(0);
      if (m === n || n === 1) {
        const rows = Math.min(m, n);
        expect(
          same(
            await pool.dotRows(va.subarray(0, rows * k), vb.subarray(0, rows * k), rows, k, options as never),
            dotRows(a.subarray(0, rows * k), b.subarray(0, rows * k), rows, k, options as never),
          ),
        ).toBe(0);
      }
      const rowsPairs = pool.allocCodes("float8_e4m3fn", m * k);
      rowsPairs.array.set(codes(m * k, c, 40 + m));
      const out = pool.allocFloat32(m);
      await pool.dotRows(va, rowsPairs.array as Uint8Array, m, k, { ...(options as object), out: out.array } as never);
      expect(same(out.array, dotRows(a, rowsPairs.array as Uint8Array, m, k, options as never)), `dotRows ${m}`).toBe(0);
      for (const h of [pa, pb, out16, rowsPairs, out]) h.free();
    }
  });

  it("matvec and matmul with per-row and per-block scales match the single-thread calls", async () => {
    const [m, n, k] = [11, 6, 100];
    const options = { formats: "float8_e4m3fn", partials: "binary16", overflow: "OvINF", blockSize: 32 } as const;
    const a = codes(m * k, 256, 5);
    const b = codes(n * k, 256, 6);
    const blocks = Math.ceil(k / 32);
    for (const scales of [{ a: codes(m, 256, 7) }, { a: codes(m * blocks, 256, 8), b: codes(n * blocks, 256, 9) }, { b: codes(n, 256, 10) }]) {
      expect(same(await pool.matmul(a, b, m, n, k, { ...options, scales }), matmul(a, b, m, n, k, { ...options, scales }))).toBe(0);
      expect(
        same(
          await pool.matmul(a.subarray(0, k), b, 1, n, k, { ...options, scales: { b: scales.b } }),
          matmul(a.subarray(0, k), b, 1, n, k, { ...options, scales: { b: scales.b } }),
        ),
      ).toBe(0);
    }
    const x = b.subarray(0, k);
    expect(same(await pool.matvec(a, x, m, k, options), matvec(a, x, m, k, options))).toBe(0);
    // Its errors name matvec's arguments, as the single-thread call's do, codes checked on the workers included.
    await expect(pool.matvec(a, b.subarray(0, k + 1), m, k, options)).rejects.toThrow(/^x: has length 101; allowed: cols = 100$/);
    const fp4 = { ...options, formats: "float4_e2m1fn" } as const;
    await expect(
      pool.matvec(
        codes(m * k, 16, 11),
        Uint8Array.from(x, (c, i) => (i === 7 ? 16 : c & 15)),
        m,
        k,
        fp4,
      ),
    ).rejects.toThrow(/^x\[7\]: is 16/);
    // The same in the pool's memory (the scales are copied next to the operands for the workers' kernels).
    const [pa, pb] = [pool.allocCodes("float8_e4m3fn", m * k), pool.allocCodes("float8_e4m3fn", n * k)];
    pa.array.set(a);
    pb.array.set(b);
    for (const scales of [{ a: codes(m, 256, 7) }, { a: codes(m * blocks, 256, 8), b: codes(n * blocks, 256, 9) }]) {
      expect(
        same(await pool.matmul(pa.array as Uint8Array, pb.array as Uint8Array, m, n, k, { ...options, scales }), matmul(a, b, m, n, k, { ...options, scales })),
      ).toBe(0);
      expect(
        same(
          await pool.matmul((pa.array as Uint8Array).subarray(0, k), pb.array as Uint8Array, 1, n, k, { ...options, scales: { b: scales.b } }),
          matmul(a.subarray(0, k), b, 1, n, k, { ...options, scales: { b: scales.b } }),
        ),
      ).toBe(0);
    }
    pa.free();
    pb.free();
  });

  it("reports a bad code with the single-thread call's error and index before any part writes", async () => {
    const [rows, cols] = [300, 50];
    const a = codes(rows * cols, 16, 11);
    const b = codes(rows * cols, 16, 12);
    b[rows * cols - 7] = 16;
    const options = { formats: "float4_e2m1fn" } as const;
    let single: unknown;
    try {
      dotRows(a, b, rows, cols, options);
    } catch (error) {
      single = error;
    }
    expect(single).toBeInstanceOf(CodeRangeError);
    const out = shared(Float32Array, rows).fill(-1);
    const parallel = await pool.dotRows(a, b, rows, cols, { ...options, out }).catch((e: unknown) => e);
    expect(parallel).toBeInstanceOf(CodeRangeError);
    expect((parallel as Error).message).toBe((single as Error).message);
    expect(out.every((v) => v === -1)).toBe(true);
    const b2 = b.slice(0, 2 * cols);
    b2[cols + 43] = 20;
    await expect(pool.matmul(a, b2, rows, 2, cols, options)).rejects.toThrow(`b[${cols + 43}]: is 20`);
    await expect(pool.matmul(a, b, rows, rows, cols + 1, options)).rejects.toBeInstanceOf(CodeRangeError);
    await expect(pool.dotRows(a, b, rows, cols, { ...options, out: new Float32Array(3) })).rejects.toThrow("options.out");
  });
});
