// ggml's block quantizers and decoders in Wasm (assembly/ggml.ts) against the TypeScript loops of
// src/io/gguf/encode.ts and decode.ts (kernels off), bit for bit. Decoders: every scale byte, random nibbles and int8,
// binary16 scales of every kind (NaN and ∞ ones take the loop). Quantizers: values at ties between kvalues, zeros of both signs, blocks
// whose amax sits just below and at powers of two, tiny and subnormal blocks (MXFP4 exponents that wrap, 1/d that
// overflows in Q8_0), NVFP4 blocks whose scale saturates, and random data over many binades. The loops themselves
// are checked against the gguf package's quantizers in io-gguf-write.test.ts and cli-gguf.test.ts.
import { describe, expect, it } from "vitest";
import { mxfp4Blocks, nvfp4Blocks, quantizeMxfp4, quantizeNvfp4, quantizeQ8_0 } from "../src/io/index.js";
import { allocFloat32 } from "../src/index.js";
import { decodeBlocks } from "../src/io/gguf/decode.js";
import { ggmlTypeByName } from "../src/io/gguf/format.js";
import { onReference } from "./kernel-switch.js";

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** 64-value blocks (whole blocks of every type), each of one kind. */
function blocks(count: number, seed: number): Float32Array {
  const r = lcg(seed);
  const x = new Float32Array(64 * count);
  const kvalues = [0, 1, 2, 3, 4, 6, 8, 12];
  for (let b = 0; b < count; b++) {
    const kind = b % 8;
    const scale = 2 ** Math.floor(r() * 60 - 30);
    for (let j = 64 * b; j < 64 * b + 64; j++) {
      const sign = r() < 0.5 ? -1 : 1;
      const k = kvalues[Math.floor(r() * 8)]!;
      const k2 = kvalues[Math.min(7, kvalues.indexOf(k) + 1)]!;
      x[j] =
        kind === 0
          ? sign * ((k + k2) / 2) * scale // midpoints between kvalues
          : kind === 1
            ? sign * k * scale // on the grid
            : kind === 2
              ? r() < 0.3
                ? -0
                : sign * r() * 2 ** -140 // subnormal and zero blocks
              : kind === 3
                ? sign * (1 - 2 ** -24) * 2 ** Math.floor(r() * 8) * scale // just below powers of two
                : kind === 4
                  ? sign * r() * 6e4 // NVFP4 scales that saturate, Q8_0 at 127
                  : kind === 5
                    ? sign * (j % 32 === 0 ? 2 ** -126 * 1.5 : r() * 2 ** -126) // MXFP4 e that wraps to 255
                    : sign * r() * 2 ** (r() * 80 - 40);
    }
  }
  return x;
}

describe("GGUF block quantizers: Wasm element passes equal the TypeScript loops", () => {
  const x = blocks(4096 + 3, 11);
  const inWasm = allocFloat32(x.length);
  inWasm.array.set(x);
  for (const [name, quantize] of [
    ["Q8_0", quantizeQ8_0],
    ["MXFP4", quantizeMxfp4],
    ["NVFP4", quantizeNvfp4],
  ] as const) {
    it(`${name}: JavaScript input, Wasm-memory input, reference`, () => {
      const want = onReference(() => quantize(x));
      const got = quantize(x);
      expect(got.length).toBe(want.length);
      expect(got.findIndex((v, i) => v !== want[i])).toBe(-1);
      const fromWasm = quantize(inWasm.array);
      expect(fromWasm.findIndex((v, i) => v !== want[i])).toBe(-1);
    });
  }

  it("NVFP4 scale bytes (ggml_fp32_to_ue4m3 of amax / 6) at every rounding edge: Wasm equals the loop", () => {
    // amax / 6 around each E4M3 binade's mantissa steps (the half-up bit set or not, the carry into the next binade),
    // across the subnormal boundary (2^−6) and the saturation at 448, and zero: one sub-block per amax.
    const amaxes: number[] = [0, 2 ** -149, 6 * 448, 6 * 464, 6 * 480, 1e30, 3.4028234663852886e38];
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    for (let e = 100; e < 140; e++) {
      for (const m of [0, 0x7ffff, 0x80000, 0xfffff, 0x100000, 0x37ffff, 0x380000, 0x3fffff, 0x780000, 0x7fffff]) {
        u[0] = (e << 23) | m;
        amaxes.push(Math.fround(f[0]! * 6), Math.fround(f[0]! * 6) * (1 + 2 ** -23));
      }
    }
    const x = new Float32Array(64 * Math.ceil(amaxes.length / 4));
    amaxes.forEach((a, i) => {
      x[16 * i] = Math.fround(a);
      x[16 * i + 5] = -Math.fround(a) / 3;
    });
    const want = onReference(() => quantizeNvfp4(x));
    const got = quantizeNvfp4(x);
    expect(got.findIndex((v, i) => v !== want[i])).toBe(-1);
  });

  it("refuses the first NaN or infinity with its index, in Wasm as in the loop", () => {
    const y = blocks(8, 3);
    y[200] = Number.NaN;
    y[300] = Number.POSITIVE_INFINITY;
    for (const quantize of [quantizeQ8_0, quantizeMxfp4, quantizeNvfp4]) {
      expect(() => quantize(y)).toThrow(/values\[200\]: is NaN/);
      expect(() => onReference(() => quantize(y))).toThrow(/values\[200\]: is NaN/);
    }
  });
});

describe("GGUF block decoders: Wasm equals the TypeScript loops", () => {
  for (const [name, blockBytes, blockSize, label] of [
    ["Q8_0", 34, 32, "finite scales"],
    ["Q8_0", 34, 32, "NaN and ∞ scales too"],
    ["MXFP4", 17, 32, ""],
    ["NVFP4", 36, 64, ""],
  ] as const) {
    it(`${name} ${label}`, () => {
      const blocks = 2048 + 5;
      const r = lcg(blockBytes + label.length);
      const bytes = Uint8Array.from({ length: blocks * blockBytes }, () => Math.floor(r() * 256));
      // Every scale byte in turn (MXFP4 e, NVFP4 d[s], Q8_0's low byte; its high byte keeps the exponent below
      // all ones for finite scales).
      for (let b = 0; b < blocks; b++) bytes[b * blockBytes] = b & 255;
      if (label === "finite scales") for (let b = 0; b < blocks; b++) bytes[b * blockBytes + 1]! &= 0x7b;
      const type = ggmlTypeByName(name)!;
      const want = new Float32Array(blocks * blockSize);
      onReference(() => decodeBlocks(type, "t", bytes, blocks, want));
      const got = new Float32Array(blocks * blockSize);
      decodeBlocks(type, "t", bytes, blocks, got);
      const [w, g] = [new Uint32Array(want.buffer), new Uint32Array(got.buffer)];
      expect(g.findIndex((v, i) => v !== w[i])).toBe(-1);
      if (name === "Q8_0") expect(want.some(Number.isNaN)).toBe(label !== "finite scales");
    });
  }
});

describe("GGUF blocks from chosen codes: Wasm packing equals the loop", () => {
  it("MXFP4 and NVFP4", () => {
    const r = lcg(5);
    const codes = Uint8Array.from({ length: 64 * 4099 }, () => Math.floor(r() * 16));
    const e8 = Uint8Array.from({ length: codes.length / 32 }, (_, i) => i % 255);
    const e4 = Uint8Array.from({ length: codes.length / 16 }, (_, i) => i % 127);
    for (const [pack, scales] of [
      [mxfp4Blocks, e8],
      [nvfp4Blocks, e4],
    ] as const) {
      const want = onReference(() => pack(scales, codes));
      const got = pack(scales, codes);
      expect(got.length).toBe(want.length);
      expect(got.findIndex((v, i) => v !== want[i])).toBe(-1);
    }
  });
});
