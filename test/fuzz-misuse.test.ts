// Fuzzing API misuse: random wrong types, detached and SharedArrayBuffer-backed arrays, Wasm-memory views,
// mismatched/negative/fractional/NaN lengths, out-of-range codes and random values, bad options. Every call either
// returns a complete result or throws one of the four typed errors naming its argument; never a plain TypeError,
// RangeError or Wasm trap. After each call a known conversion must still be right and no Wasm memory may leak.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";
import { memoryStats } from "../src/wasm/memory.js";
import { fuzzParameters } from "./fuzz-arbitraries.js";

/** A thunk that fast-check prints by its description in counterexamples. */
function named<T>(description: string, thunk: () => T): () => T {
  return Object.assign(thunk, { [fc.toStringMethod]: () => description });
}

const TYPED = ["FormatError", "ProjectionError", "CodeRangeError", "ArgumentTypeError"];

function detached<T extends ArrayBufferView>(a: T): T {
  structuredClone(a.buffer, { transfer: [a.buffer as ArrayBuffer] });
  return a;
}
type Ctor = { new (n: number): ArrayBufferView; new (b: ArrayBufferLike): ArrayBufferView; BYTES_PER_ELEMENT: number };
const TYPES: Ctor[] = [Float32Array, Float64Array, Uint8Array, Uint16Array, Uint32Array, Int8Array, Int32Array] as unknown as Ctor[];

/** Arrays of every kind, 0…40 elements, with arbitrary contents (codes may be ≥ 2^K, random values ≥ 2^N). */
const arrays: fc.Arbitrary<() => unknown> = fc
  .tuple(fc.constantFrom(...TYPES), fc.integer({ min: 0, max: 40 }), fc.constantFrom("plain", "shared", "detached", "wasm"), fc.nat(0xffffffff))
  .map(([type, n, kind, fill]) =>
    named(`${kind} ${type.name}(${n}) filled from ${fill}`, () => {
      const a = kind === "shared" ? new type(new SharedArrayBuffer(n * type.BYTES_PER_ELEMENT)) : new type(n);
      const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (fill >>> (i % 24)) & 255;
      if (kind === "detached") return detached(a);
      if (kind === "wasm" && (type === (Float32Array as unknown) || type === (Uint8Array as unknown) || type === (Uint16Array as unknown))) {
        const h = new api.WasmArray(type as unknown as typeof Uint8Array, n);
        new Uint8Array(h.array.buffer, h.array.byteOffset, h.array.byteLength).set(bytes);
        cleanup.push(() => h.free());
        return h.array;
      }
      return a;
    }),
  );

const scalars = fc.constantFrom<unknown>(
  undefined,
  null,
  0,
  1,
  3,
  4,
  6,
  8,
  -1,
  1.5,
  Number.NaN,
  Infinity,
  -Infinity,
  2 ** 53,
  2 ** 32,
  "float8_e4m3fn",
  "",
  "nope",
  {},
  [],
  [1, 2],
  1n,
  true,
  Symbol("s"),
  () => 1,
  { bias: 64 },
  { bias: -1 },
  { bias: 15 },
  { bias: 2.5 },
  { bias: "3" },
);
const formats = fc.constantFrom<unknown>(
  "float8_e4m3fn",
  "float8_e5m2",
  "float4_e2m1fn",
  "float6_e3m2fn",
  "bfloat16",
  "binary16",
  "binary32",
  "binary64",
  "Binary8p3se",
  "Binary5p2uf",
  "Binary16p9se",
  "Binary17p3se",
  "Binary8p8se",
  "Binary2p1se",
  "Binary8p0ue",
  "float8_e8m0fnu",
  "cfloat16_uhp",
  "cfloat8_1_4_3",
  "cfloat16_shp",
);
/** Custom format parameters, each field valid or not. */
const specs = fc
  .record(
    {
      name: fc.constantFrom<unknown>("x", 3),
      K: fc.constantFrom<unknown>(1, 2, 8, 16, 65, 7.5, "8"),
      P: fc.constantFrom<unknown>(0, 1, 3, 8, 64, Number.NaN),
      bias: fc.constantFrom<unknown>(-3, 0, 7, 2 ** 21, 0.5),
      signed: fc.constantFrom<unknown>(true, false, 1),
      highNaNs: fc.constantFrom<unknown>(0, 1, 300, -1, 0.5),
    },
    { requiredKeys: [] },
  )
  .map((spec) => named(fc.stringify(spec), () => spec));
const fresh = (x: unknown) => named(fc.stringify(x), () => x);
const anything: fc.Arbitrary<() => unknown> = fc.oneof(scalars.map(fresh), formats.map(fresh), arrays, specs);

/** Options objects with random (often wrong) fields, or a non-object. */
const options: fc.Arbitrary<() => unknown> = fc.oneof(
  scalars.map(fresh),
  fc
    .record(
      {
        rounding: fc.constantFrom<unknown>(...api.ROUNDINGS, "Up", 3),
        saturation: fc.constantFrom<unknown>(...api.SATURATIONS, "SatAll", null),
        stochasticBits: fc.constantFrom<unknown>(1, 4, 8, 13, 32, 0, 33, 2.5, "8"),
        seed: fc.constantFrom<unknown>(0, 12345, 2 ** 32 - 1, 2 ** 32, -1, 0.5, "1"),
        random: arrays,
        out: arrays,
        flags: fc.constantFrom<unknown>(api.newFlags(), 5, null),
      },
      { requiredKeys: [] },
    )
    .map((o) =>
      named(fc.stringify(o), () =>
        Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "function" && (k === "random" || k === "out") ? (v as () => unknown)() : v])),
      ),
    ),
);

const cleanup: Array<() => void> = [];
type Call = (a: unknown[]) => unknown;
const CALLS: Record<string, [number, Call]> = {
  quantize: [3, ([a, b, c]) => api.quantize(a as Float32Array, b as string, c as api.QuantizeOptions)],
  dequantize: [3, ([a, b, c]) => api.dequantize(a as Uint8Array, b as string, c as { out?: Float32Array })],
  packCodes: [3, ([a, b, c]) => api.packCodes(a as Uint8Array, b as 4, c as { out?: Uint8Array })],
  unpackCodes: [4, ([a, b, c, d]) => api.unpackCodes(a as Uint8Array, b as 4, c as number, d as { out?: Uint8Array })],
  quantizePacked: [3, ([a, b, c]) => api.quantizePacked(a as Float32Array, b as string, c as api.QuantizeOptions)],
  dequantizePacked: [4, ([a, b, c, d]) => api.dequantizePacked(a as Uint8Array, b as string, c as number, d as { out?: Float32Array })],
  packedLength: [2, ([a, b]) => api.packedLength(a as number, b as 4)],
  encode: [3, ([a, b, c]) => api.encode(a as number, b as string, c as api.Projection)],
  decode: [2, ([a, b]) => api.decode(a as number, b as string)],
  encodeExact: [3, ([a, b, c]) => api.encodeExact(a as api.Exact, b as string, c as api.Projection)],
  format: [2, ([a, b]) => api.format(a as string, b as { bias?: number })],
  customFormat: [1, ([a]) => api.customFormat(a as Parameters<typeof api.customFormat>[0])],
  allocFloat32: [1, ([a]) => api.allocFloat32(a as number)],
  allocCodes: [2, ([a, b]) => api.allocCodes(a as string, b as number)],
  "MiniFloatArray.from": [3, ([a, b, c]) => api.MiniFloatArray.from(a as Float32Array, b as string, c as api.FromOptions)],
  "new MiniFloatArray": [2, ([a, b]) => new api.MiniFloatArray(a as string, b as number)],
  "MiniFloatArray.fromCodes": [2, ([a, b]) => api.MiniFloatArray.fromCodes(a as Uint8Array, b as string)],
  "MiniFloatArray.fromPacked": [3, ([a, b, c]) => api.MiniFloatArray.fromPacked(a as Uint8Array, b as string, c as number)],
};
/** Methods of a small MiniFloatArray (freed after the call), called with random arguments. */
const VIEW_METHODS = ["get", "set", "setCodes", "fill", "quantizeFrom", "subarray", "slice", "toPacked", "toFloat32Array"] as const;
for (const [i, method] of VIEW_METHODS.entries()) {
  CALLS[`MiniFloatArray#${method}`] = [
    3,
    (args) => {
      const view = api.MiniFloatArray.from([0.5, -2, 3, 1e-3, 448], i % 2 ? "float4_e2m1fn" : "bfloat16");
      cleanup.push(() => view.free());
      return (view[method] as (...a: unknown[]) => unknown)(...args);
    },
  ];
}

const misuse = fc
  .constantFrom(...Object.keys(CALLS))
  .chain((name) => fc.tuple(fc.constant(name), fc.array(fc.oneof(anything, options), { minLength: CALLS[name]![0], maxLength: CALLS[name]![0] })));

const KNOWN = Float32Array.of(1.5, -448, 1000, Number.NaN, 2 ** -9, -0);
const KNOWN_CODES = [0x3c, 0xfe, 0x7e, 0x7f, 0x01, 0x80];

describe("fuzz: API misuse gives typed errors, never traps, leaks or corrupts state", () => {
  it("random calls with wrong arguments", () => {
    // Warm up the formats and the scratch region so the baseline includes the long-lived tables.
    api.quantize(new Float32Array(70000), "float8_e4m3fn", { saturation: "SatFinite" });
    const baseline = memoryStats().liveBytes;
    fc.assert(
      fc.property(misuse, ([name, thunks]) => {
        const args = thunks.map((t) => t());
        // Read before the call: a Wasm-memory view reads as empty once a call grows the memory.
        const inputLength = (args[0] as { length?: unknown } | null | undefined)?.length;
        let result: unknown;
        try {
          result = CALLS[name]![1](args);
        } catch (error) {
          const e = error as Error & { argument?: unknown };
          expect(TYPED, `${name} threw ${e.name}: ${e.message}`).toContain(e.name);
          expect(typeof e.argument).toBe("string");
          expect(e.message.startsWith(`${e.argument}: `), e.message).toBe(true);
        }
        if ((name === "quantize" || name === "dequantize") && ArrayBuffer.isView(result)) {
          expect((result as Uint8Array).length, `${name} returned a partial result`).toBe(inputLength);
        }
        (result as { free?: () => void } | undefined)?.free?.();
        for (const c of cleanup.splice(0)) c();
        expect(Array.from(api.quantize(KNOWN, "float8_e4m3fn", { saturation: "SatFinite" }))).toEqual(KNOWN_CODES);
        expect(Array.from(api.dequantize(Uint8Array.of(0x3c, 0xfe), "float8_e4m3fn"))).toEqual([1.5, -448]);
      }),
      fuzzParameters(1500),
    );
    // Decode tables of formats first met during the run (≤ 32 kept, 16-bit ones 256 KiB) may stay; nothing else.
    expect(memoryStats().liveBytes - baseline).toBeLessThanOrEqual(32 * (262144 + 64 + 208));
  });
});
