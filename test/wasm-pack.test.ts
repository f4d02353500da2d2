// Sub-byte packing (FP4 low nibble first; FP6 little-endian bit stream) in Wasm vs an independent bit-level model.
import { afterEach, describe, expect, it } from "vitest";
import {
  ArgumentTypeError,
  CodeRangeError,
  allocBytes,
  allocCodes,
  allocFloat32,
  dequantize,
  dequantizePacked,
  format,
  packCodes,
  packedLength,
  quantize,
  quantizePacked,
  unpackCodes,
  useKernels,
} from "../src/index.js";
import { CHUNK } from "../src/wasm/memory.js";

afterEach(() => useKernels(true));

/** The layout, written bit by bit: element i's bit b is stream bit i·bits + b; stream bit j is bit j%8 of byte ⌊j/8⌋. */
function bitStream(codes: Uint8Array, bits: number): Uint8Array {
  const out = new Uint8Array(Math.ceil((codes.length * bits) / 8));
  for (let i = 0; i < codes.length; i++) {
    for (let b = 0; b < bits; b++) if ((codes[i]! >> b) & 1) out[(i * bits + b) >> 3]! |= 1 << ((i * bits + b) & 7);
  }
  return out;
}

/** Mismatching positions (or −1 for different lengths): vitest's toEqual is slow on arrays of 10^5 elements. */
function diff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return -1;
  let bad = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) bad++;
  return bad;
}

function randomCodes(n: number, bits: number, seed: number): Uint8Array {
  let s = seed >>> 0;
  return new Uint8Array(n).map(() => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 24) & ((1 << bits) - 1));
}

const lengths = [...Array.from({ length: 70 }, (_, i) => i), 127, 1001, CHUNK - 1, CHUNK + 1, 3 * CHUNK + 3];

describe("packCodes / unpackCodes", () => {
  for (const bits of [4, 6] as const) {
    it(`${bits}-bit: matches the bit-level layout and round-trips for lengths 0…69 and odd lengths across chunks`, () => {
      for (const n of lengths) {
        const codes = randomCodes(n, bits, n + bits);
        const packed = packCodes(codes, bits);
        expect(packed.length).toBe(packedLength(n, bits));
        expect(diff(packed, bitStream(codes, bits))).toBe(0);
        expect(diff(unpackCodes(packed, bits, n), codes)).toBe(0);
        useKernels(false);
        expect(diff(packCodes(codes, bits), packed)).toBe(0);
        expect(diff(unpackCodes(packed, bits, n), codes)).toBe(0);
        useKernels(true);
      }
    });

    it(`${bits}-bit: zero-copy views give the same bytes, padding is zero on pack and ignored on unpack`, () => {
      const n = 2 * CHUNK + 5;
      const codes = randomCodes(n, bits, 99);
      const zc = allocCodes(bits === 4 ? "float4_e2m1fn" : "float6_e3m2fn", n);
      const packed = allocBytes(packedLength(n, bits));
      zc.array.set(codes);
      packed.array.fill(0xff);
      const p = packCodes(zc.array, bits, { out: packed.array });
      expect(p.byteOffset).toBe(packed.ptr);
      expect(diff(packed.array, bitStream(codes, bits))).toBe(0);
      expect(packed.array[packed.array.length - 1]! >> ((n * bits) % 8)).toBe(0);
      packed.array[packed.array.length - 1]! |= 0xff << ((n * bits) % 8);
      const back = allocCodes("float4_e2m1fn", n);
      expect(diff(unpackCodes(packed.array, bits, n, { out: back.array }), codes)).toBe(0);
      for (const h of [zc, packed, back]) h.free();
    });
  }

  it("FP4 puts the first element in the low nibble (OCP MX, safetensors F4, ONNX FLOAT4E2M1)", () => {
    expect(packCodes(new Uint8Array([0x1, 0xf, 0x7]), 4)).toEqual(new Uint8Array([0xf1, 0x07]));
    expect(packCodes(new Uint8Array([1, 2, 3, 63]), 6)).toEqual(new Uint8Array([0x81, 0x30, 0xfc]));
  });

  it("rejects bad input with typed errors naming the argument", () => {
    expect(() => packCodes(new Uint8Array([1, 16]), 4)).toThrow(/^codes\[1\]: is 16; allowed: a 4-bit code in \[0, 15\]$/);
    expect(() => packCodes(new Uint8Array(CHUNK + 9).fill(63).fill(64, CHUNK + 8), 6)).toThrow(`codes[${CHUNK + 8}]: is 64; allowed: a 6-bit code in [0, 63]`);
    expect(() => packCodes(new Uint8Array(3), 5 as 4)).toThrow(/^bits: got 5; allowed: 4 or 6$/);
    expect(() => packCodes(new Uint16Array(3) as unknown as Uint8Array, 4)).toThrow(ArgumentTypeError);
    expect(() => packCodes(new Uint8Array(3), 4, { out: new Uint8Array(1) })).toThrow(/^options.out: has length 1; allowed: 2/);
    expect(() => unpackCodes(new Uint8Array(3), 6, 5)).toThrow(/^bytes: has length 3; allowed: 4/);
    expect(() => unpackCodes(new Uint8Array(3), 4, -1)).toThrow(/^n: got -1; allowed: an integer in \[0, 2\^32\]$/);
    expect(() => unpackCodes(new Uint8Array(3), 4, 6, { out: new Uint8Array(5) })).toThrow(CodeRangeError);
    const out = new Uint8Array(2).fill(7);
    expect(() => packCodes(new Uint8Array([1, 2, 99]), 4, { out })).toThrow(CodeRangeError);
    expect(out).toEqual(new Uint8Array([7, 7]));
  });
});

describe("quantizePacked / dequantizePacked", () => {
  const fours = ["float4_e2m1fn", "Binary4p1se", "Binary4p2sf", "Binary4p3ue", "Binary4p4uf"];
  const sixes = ["float6_e2m3fn", "float6_e3m2fn", "Binary6p3se", "Binary6p1uf", "Binary6p6ue"];
  it("decodes every code of every 4- and 6-bit format from packed bytes exactly as dequantize does", () => {
    for (const name of [...fours, ...sixes]) {
      const f = format(name);
      for (const n of [f.codeCount, 3 * f.codeCount + 1, CHUNK + 37]) {
        const codes = new Uint8Array(n).map((_, i) => (i < f.codeCount ? i : (i * 37 + 5) % f.codeCount));
        const packed = packCodes(codes, f.K as 4 | 6);
        const y = dequantizePacked(packed, f, n);
        expect(diff(new Uint32Array(y.buffer), new Uint32Array(dequantize(codes, f).buffer)), `${name} n=${n}`).toBe(0);
        useKernels(false);
        expect(diff(new Uint32Array(dequantizePacked(packed, f, n).buffer), new Uint32Array(y.buffer))).toBe(0);
        useKernels(true);
      }
    }
  });

  it("decodes zero-copy packed bytes into a Wasm float32 array", () => {
    const f = format("float4_e2m1fn");
    const n = 1001;
    const codes = randomCodes(n, 4, 5);
    const bytes = allocBytes(packedLength(n, 4));
    const out = allocFloat32(n);
    packCodes(codes, 4, { out: bytes.array });
    const y = dequantizePacked(bytes.array, f, n, { out: out.array });
    expect(y.byteOffset).toBe(out.ptr);
    expect(out.array).toEqual(dequantize(codes, f));
    bytes.free();
    out.free();
  });

  it("quantizePacked equals packCodes(quantize(...)) with the same options", () => {
    const x = new Float32Array(333).map((_, i) => Math.sin(i) * 2 ** ((i % 13) - 6));
    for (const name of [...fours, ...sixes]) {
      const f = format(name);
      const opts = { rounding: "NearestTiesToEven", saturation: "SatFinite" } as const;
      expect(quantizePacked(x, f, opts)).toEqual(packCodes(quantize(x, f, opts) as Uint8Array, f.K as 4 | 6));
    }
  });

  it("the fused kernel path (codes packed chunk by chunk) equals the reference bit-level packing of the reference codes", () => {
    // Lengths across several streamed chunks and odd tails; every projection kind the encode kernel takes.
    const n = CHUNK + 4099;
    const x = new Float32Array(n).map((_, i) => (i % 97 === 5 ? NaN : Math.sin(i * 0.37) * 2 ** ((i % 17) - 8)));
    const random = new Uint16Array(n).map((_, i) => (i * 40503) & 0xfff);
    const cases = [
      { saturation: "SatFinite" },
      { rounding: "TowardZero", saturation: "SatNone" },
      { rounding: "StochasticA", stochasticBits: 8, seed: 9, seedIndex: 1000 },
      { rounding: "StochasticC", stochasticBits: 12, random },
    ] as const;
    for (const name of [...fours, ...sixes]) {
      const f = format(name);
      for (const opts of cases) {
        for (const len of [n, 7]) {
          const src = x.subarray(0, len);
          useKernels(false);
          const want = bitStream(quantize(src, f, opts.random ? { ...opts, random: random.subarray(0, len) } : opts) as Uint8Array, f.K);
          useKernels(true);
          const got = quantizePacked(src, f, opts.random ? { ...opts, random: random.subarray(0, len) } : opts);
          expect(Buffer.from(got).equals(Buffer.from(want)), `${name} ${JSON.stringify(opts.rounding)} n=${len}`).toBe(true);
        }
      }
    }
    // Input and output in Wasm memory, read and written in place.
    const f = format("float4_e2m1fn");
    const w = allocFloat32(n);
    const out = allocBytes(packedLength(n, 4));
    w.array.set(x);
    quantizePacked(w.array, f, { saturation: "SatFinite", out: out.array });
    expect(out.array).toEqual(bitStream(quantize(x, f, { saturation: "SatFinite" }) as Uint8Array, 4));
    w.free();
    out.free();
  });

  it("rejects formats without a packed layout and mis-sized arrays", () => {
    expect(() => quantizePacked(new Float32Array(2), "float8_e4m3fn")).toThrow(/^fmt: float8_e4m3fn has 8-bit codes; allowed: a 4- or 6-bit format/);
    expect(() => dequantizePacked(new Uint8Array(2), "Binary5p2se", 4)).toThrow(ArgumentTypeError);
    expect(() => dequantizePacked(new Uint8Array(2), "float4_e2m1fn", 5)).toThrow(/^bytes: has length 2; allowed: 3/);
    expect(() => dequantizePacked(new Uint8Array(3), "float4_e2m1fn", 5, { out: new Float32Array(4) })).toThrow(/^options.out: has length 4; allowed: 5/);
    expect(() => quantizePacked(new Float32Array(5), "float4_e2m1fn", { out: new Uint8Array(2) })).toThrow(/^options.out: has length 2; allowed: 3/);
  });
});
