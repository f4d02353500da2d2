// quantizeBlocks' options.out: the caller's scale and element arrays (in Wasm memory or plain) receive exactly the
// codes of a call without it, on the kernel and the reference, stale bytes in them overwritten; bad arrays get
// typed errors naming the argument and leave nothing written.
import { describe, expect, it } from "vitest";
import { MX_SCHEMES, blockScheme, quantizeBlocks } from "../src/block/index.js";
import { allocBytes, allocFloat32 } from "../src/api/wasm-memory.js";
import { elementBytes } from "../src/block/mx.js";
import { mix32 } from "../src/random.js";
import { ArgumentTypeError, CodeRangeError } from "../src/errors.js";
import { onReference } from "./kernel-switch.js";

function inputs(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const r = mix32((seed * 0x9e3779b9 + i) >>> 0);
    out[i] = (mix32(r + 1) / 2 ** 32 - 0.5) * 2 ** (((r >>> 8) % 24) - 12);
  }
  if (n > 40) [out[3], out[37]] = [NaN, -Infinity];
  return out;
}

describe("quantizeBlocks options.out", () => {
  for (const scheme of MX_SCHEMES) {
    it(`${scheme}: plain and Wasm-memory outputs equal a call without out (kernel and reference)`, () => {
      const s = blockScheme(scheme);
      for (const n of [0, 1, 33, 1000, 70001 - (s.packed ? 1 : 0)]) {
        const src = inputs(n, n + 1);
        const want = onReference(() => quantizeBlocks(src, scheme));
        const scaleCount = Math.ceil(n / s.blockSize);
        for (const reference of [false, true]) {
          const plain = { scales: new Uint8Array(scaleCount).fill(0xa5), elements: new Uint8Array(elementBytes(s, n)).fill(0x5a) };
          const run = () => quantizeBlocks(src, scheme, { out: plain });
          const got = reference ? onReference(run) : run();
          expect(got.scales).toBe(plain.scales);
          expect(got.elements).toBe(plain.elements);
          expect([...got.scales]).toEqual([...want.scales]);
          expect([...got.elements]).toEqual([...want.elements]);
        }
        const x = allocFloat32(n);
        const scales = allocBytes(scaleCount);
        const elements = allocBytes(elementBytes(s, n));
        try {
          x.array.set(src);
          elements.array.fill(0xff);
          const got = quantizeBlocks(x.array, scheme, { out: { scales: scales.array, elements: elements.array } });
          expect([...got.scales]).toEqual([...want.scales]);
          expect([...got.elements]).toEqual([...want.elements]);
          expect([...scales.array]).toEqual([...want.scales]);
          expect([...elements.array]).toEqual([...want.elements]);
        } finally {
          x.free();
          scales.free();
          elements.free();
        }
      }
    });
  }

  it("rejects wrong types, lengths, keys and overlaps with typed errors, writing nothing", () => {
    const src = inputs(64, 1);
    const scales = new Uint8Array(2).fill(7);
    const elements = new Uint8Array(32).fill(7);
    const cases: [unknown, typeof ArgumentTypeError | typeof CodeRangeError, RegExp][] = [
      [null, ArgumentTypeError, /options\.out/],
      [{ scales, elements: new Uint16Array(32) }, ArgumentTypeError, /options\.out\.elements.*Uint8Array of length 32/],
      [{ scales: new Uint8Array(3), elements }, CodeRangeError, /options\.out\.scales.*allowed: 2/],
      [{ scales, elements: new Uint8Array(64) }, CodeRangeError, /options\.out\.elements.*allowed: 32/],
      [{ scales, elements, extra: 1 }, ArgumentTypeError, /extra/],
      [{ scales, elements: new Uint8Array(scales.buffer) }, CodeRangeError, /options\.out\.elements/],
      [{ scales: elements.subarray(30), elements }, ArgumentTypeError, /options\.out\.elements.*overlaps options\.out\.scales/],
      [{ scales: new Uint8Array(src.buffer, 0, 2), elements }, ArgumentTypeError, /options\.out\.scales.*overlaps src/],
      [{ scales, elements: new Uint8Array(src.buffer, 100, 32) }, ArgumentTypeError, /options\.out\.elements.*overlaps src/],
    ];
    for (const [out, type, message] of cases) {
      const call = () => quantizeBlocks(src, "mxfp4", { out } as never);
      expect(call).toThrow(type);
      expect(call).toThrow(message);
    }
    expect([...scales, ...elements].every((b) => b === 7)).toBe(true);
  });
});
