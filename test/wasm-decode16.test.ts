// The 16-bit table kernels (decodeLut8To16, decodeLut16To16, decodeAffineTo16/OddTo16) behind dequantize to
// binary16/bfloat16 and convert: every code of every ≤ 8-bit format (and of three 16-bit formats) against the exact projection of its
// value, computed element by element here (encodeExact of decodeExact), through JS arrays (streamed) and Wasm views
// (zero copy), with tails that miss the 8-way unrolled loop.
import { describe, expect, it } from "vitest";
import { CodeRangeError, allocBytes, allocCodes, convert, decodeExact, dequantize, encodeExact, format } from "../src/index.js";
import type { Format } from "../src/format/model.js";
import { conversionTable } from "../src/exact/tables.js";
import { resolveProjection } from "../src/exact/projection.js";
import { wasmTable16 } from "../src/wasm/decode.js";
import { kernels } from "../src/wasm/instance.js";
import { CHUNK, memoryStats } from "../src/wasm/memory.js";
import { EIGHT_BIT_FORMATS } from "./format-lists.js";
import { affineKind } from "./kernel-switch.js";

const RNE = { rounding: "NearestTiesToEven", saturation: "SatNone" } as const;

/** Every code, then every code in a scrambled order, then 29 more: unrolled loops, a single group of 16 and a tail run. */
function allCodes(f: Format): Uint8Array | Uint16Array {
  const n = f.codeCount;
  const codes = f.K <= 8 ? new Uint8Array(2 * n + 29) : new Uint16Array(2 * n + 29);
  for (let i = 0; i < codes.length; i++) codes[i] = i < n ? i : ((Math.imul(i, 40503) + 17) >>> 0) % n;
  return codes;
}

type Rho = { rounding: "NearestTiesToEven" | "TowardZero"; saturation: "SatNone" | "SatFinite" };

/** The expected 16-bit code of every code of f: its exact value projected once into the target (default: RNE). */
function expected(f: Format, target: string, rho: Rho | "target default" = RNE): Uint16Array {
  const project = (c: number) => (rho === "target default" ? encodeExact(decodeExact(c, f), target) : encodeExact(decodeExact(c, f), target, rho));
  return Uint16Array.from({ length: f.codeCount }, (_, c) => project(c));
}

/** Counts the elements of got that differ from want[codes[i]] (one count, so a failure prints a number, not 1e5 lines). */
function mismatches(codes: Uint8Array | Uint16Array, got: Uint16Array, want: Uint16Array): number {
  let bad = 0;
  for (let i = 0; i < codes.length; i++) if (got[i] !== want[codes[i]!]) bad++;
  return bad;
}

/** Runs `call` on a JS output and on Wasm views of codes and output; both must equal `want` per code. */
function check(f: Format, want: Uint16Array, call: (codes: Uint8Array | Uint16Array, out: Uint16Array) => Uint16Array): void {
  const codes = allCodes(f);
  const plain = call(codes, new Uint16Array(codes.length));
  expect(mismatches(codes, plain, want), `${f.name}: mismatching elements (JS arrays)`).toBe(0);
  const zc = allocCodes(f, codes.length);
  const out = allocCodes("binary16", codes.length);
  zc.array.set(codes);
  const got = call(zc.array, out.array as Uint16Array);
  expect(got.buffer).toBe(out.array.buffer); // written in place: zero copy
  expect(got.byteOffset).toBe(out.array.byteOffset);
  expect(mismatches(codes, got, want), `${f.name}: mismatching elements (Wasm memory)`).toBe(0);
  zc.free();
  out.free();
}

describe("16-bit table-gather kernels", () => {
  it("are available (the rest of this file runs them, not the TypeScript reference)", () => {
    expect(typeof kernels()?.decodeLut8To16).toBe("function");
    expect(typeof kernels()?.decodeLut16To16).toBe("function");
  });

  it("take the affine form for 5…8-bit formats whose table has one (float8_e4m3fn → binary16), else the table", () => {
    const target = format("binary16");
    const kind = (name: string) => {
      const f = format(name);
      dequantize(new Uint8Array(1), f, { to: "float16", bits: true }); // builds and uploads the table
      const t = wasmTable16(f, conversionTable(f, target, resolveProjection(target, RNE)) as Uint16Array);
      return t.affine < 0 ? "table" : affineKind(t.affineVariant);
    };
    expect(kind("float8_e4m3fn")).toBe("affineWindow"); // NaN, zero and subnormals: one window from magnitude 127
    expect(kind("Binary8p3se")).toBe("affineOddWindow"); // and NaN in −0's place
    expect(kind("float8_e3m4")).toBe("affine"); // 16 subnormal magnitudes at the bottom, ∞ and NaNs at the top
    expect(kind("Binary6p5se")).toBe("affineOdd");
    expect(kind("float8_e8m0fnu")).toBe("table"); // binary16 holds only part of its range: no affine rule
    expect(kind("float4_e2m1fn")).toBe("table");
    const kinds = new Set(EIGHT_BIT_FORMATS.map(kind));
    // The sweeps below run every kernel variant.
    expect([...kinds].sort()).toEqual(["affine", "affineOdd", "affineOddWindow", "affineWindow", "table"]);
  });

  it(`dequantize to float16 and bfloat16 bits: every code of ${EIGHT_BIT_FORMATS.length} formats of ≤ 8 bits`, () => {
    for (const name of EIGHT_BIT_FORMATS) {
      const f = format(name);
      for (const [to, target] of [
        ["float16", "binary16"],
        ["bfloat16", "bfloat16"],
      ] as const) {
        check(f, expected(f, target), (codes, out) => dequantize(codes, f, { to, bits: true, out }) as Uint16Array);
      }
    }
  });

  it("convert to binary16 under the default and a saturating projection: every code of every ≤ 8-bit format", () => {
    for (const name of EIGHT_BIT_FORMATS) {
      const f = format(name);
      check(f, expected(f, "binary16", "target default"), (codes, out) => convert(codes, f, "binary16", { out }) as Uint16Array);
      const sat = { rounding: "TowardZero", saturation: "SatFinite" } as const;
      check(f, expected(f, "binary16", sat), (codes, out) => convert(codes, f, "binary16", { ...sat, out }) as Uint16Array);
    }
  });

  it("16-bit codes: binary16 → bfloat16, bfloat16 → binary16, Binary16p8se → binary16, every code", () => {
    for (const [from, to, target] of [
      ["binary16", "bfloat16", "bfloat16"],
      ["bfloat16", "float16", "binary16"],
      ["Binary16p8se", "float16", "binary16"],
    ] as const) {
      const f = format(from);
      check(f, expected(f, target), (codes, out) => dequantize(codes, f, { to, bits: true, out }) as Uint16Array);
    }
  });

  it("streams inputs longer than a chunk from JS arrays, and takes them whole in Wasm memory", () => {
    const f = format("float8_e4m3fn");
    const codes = Uint8Array.from({ length: 3 * CHUNK + 7 }, (_, i) => (Math.imul(i, 2654435761) >>> 24) & 255);
    const want = expected(f, "binary16");
    expect(mismatches(codes, dequantize(codes, f, { to: "float16", bits: true }) as Uint16Array, want)).toBe(0);
    expect(mismatches(codes, convert(codes, f, "binary16") as Uint16Array, want)).toBe(0);
    // In Wasm memory: one kernel call over the whole range.
    const zc = allocCodes(f, codes.length);
    const out = allocCodes("binary16", codes.length);
    zc.array.set(codes);
    expect(mismatches(codes, dequantize(zc.array, f, { to: "float16", bits: true, out: out.array }) as Uint16Array, want)).toBe(0);
    zc.free();
    out.free();
  });

  it("returns a current view when uploading a table grows memory under zero-copy arrays", () => {
    const cases = [
      ["Binary16p9ue", (c: Uint16Array, out: Uint16Array) => dequantize(c, "Binary16p9ue", { to: "bfloat16", out }) as Uint16Array, "bfloat16"],
      ["Binary16p10ue", (c: Uint16Array, out: Uint16Array) => convert(c, "Binary16p10ue", "binary16", { out }) as Uint16Array, "binary16"],
    ] as const;
    for (const [name, call, target] of cases) {
      const f = format(name);
      const codes = allocCodes(f, 4);
      const out = allocCodes("binary16", 4);
      codes.array.set([0, 1, 0x3c00, 0xffff]);
      // A new 16-bit source needs a 128 KiB table: use up free blocks and the memory's tail so the upload must grow it.
      const fillers = [allocBytes(memoryStats().memoryBytes - memoryStats().topBytes)];
      while (memoryStats().largestFreeBlock >= 2 ** 17) fillers.push(allocBytes(2 ** 17));
      const size = memoryStats().memoryBytes;
      const y = call(codes.array as Uint16Array, out.array as Uint16Array);
      expect(memoryStats().memoryBytes, name).toBeGreaterThan(size);
      expect(y.buffer).toBe(kernels()!.memory.buffer);
      expect(y.byteOffset).toBe(out.ptr);
      expect(Array.from(y)).toEqual([0, 1, 0x3c00, 0xffff].map((c) => encodeExact(decodeExact(c, f), target, RNE)));
      for (const x of [codes, out, ...fillers]) x.free();
    }
  });

  it("refuses a code beyond the format before writing anything", () => {
    const f = format("Binary6p3se");
    const codes = allocCodes(f, 100);
    codes.array.fill(5);
    codes.array[77] = 64;
    const out = allocCodes("binary16", 100);
    out.array.fill(0xabcd);
    expect(() => dequantize(codes.array, f, { to: "float16", bits: true, out: out.array as Uint16Array })).toThrow(CodeRangeError);
    expect(() => convert(codes.array, f, "binary16", { out: out.array as Uint16Array })).toThrow(/codes\[77\]/);
    expect((out.array as Uint16Array).every((v) => v === 0xabcd)).toBe(true);
    codes.free();
    out.free();
  });
});
