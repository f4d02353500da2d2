// wgsl() covers every format of at most 16 bits from generated code alone: every registered one and every P3109
// one, each op, with no fallback — the decoders are field arithmetic (the generator proves each against
// decodeTable32 on every code before emitting it), the encoders integer-only. The GPU runs are in webgpu.test.ts.
import { describe, expect, it } from "vitest";
import { format, registeredNames } from "../src/index.js";
import { ArgumentTypeError, FormatError, ProjectionError, WGSL_OPS, wgsl } from "../src/webgpu/index.js";
import { compose } from "../src/webgpu/compose.js";
import { p3109Names } from "./format-lists.js";

/** Every distinct format of at most 16 bits: registered (aliases once) and P3109. */
const ALL_FORMATS = [...new Map([...registeredNames(), ...p3109Names(16)].map((n) => [format(n), n])).entries()].filter(([f]) => f.K <= 16).map(([, n]) => n);

describe("wgsl()", () => {
  it(`generates every op for all ${ALL_FORMATS.length} formats of ≤ 16 bits, as field arithmetic (no table) and integer-only encoders`, () => {
    expect(ALL_FORMATS.length).toBeGreaterThan(500);
    for (const name of ALL_FORMATS) {
      const f = format(name);
      for (const op of WGSL_OPS) {
        const text = wgsl(name, op);
        expect(text).toMatch(new RegExp(`fn ${op}_${f.name}\\(`));
        if (op === "encodeBits") expect(text, name).not.toMatch(/f32/);
        expect(text, name).not.toMatch(/array</);
      }
    }
  });

  it("compose rounds m·2^e to the nearest float32, ties to even, like Math.fround", () => {
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    const cases: [number, number][] = [];
    for (const m of [1, 3, 0xffffff, 0x1000001, 0x1800000, 0x2800001, 0xfffffffe, 0x80000001, 12345, 2 ** 31]) {
      for (let e = -190; e <= 110; e += 1) cases.push([m, e]);
    }
    for (const [m, e] of cases) {
      f32[0] = m * 2 ** e;
      expect(compose(m, e), `${m}·2^${e}`).toBe(u32[0]);
    }
  });

  it("rejects bad arguments with typed errors naming them", () => {
    expect(() => wgsl("float32", "decodeBits")).toThrow(FormatError);
    expect(() => wgsl("e4m3", "decodeBitz" as "decode")).toThrow(ArgumentTypeError);
    expect(() => wgsl("e4m3", "decode", { name: "1x" })).toThrow(/options\.name/);
    expect(() => wgsl("e4m3", "decode", { projection: {} })).toThrow(/options\.projection/);
    expect(() => wgsl("e4m3", "encodeBits", { projection: { rounding: "StochasticA", stochasticBits: 31 } })).toThrow(
      /options\.projection\.stochasticBits: is 31; allowed: at most 30/,
    );
    expect(wgsl("e4m3", "encodeBits", { projection: { rounding: "StochasticA", stochasticBits: 4 } })).toContain("(bits: u32, random: u32) -> u32");
    expect(() => wgsl("e4m3", "encodeBits", { projection: { rounding: "Up" as "ToOdd" } })).toThrow(ProjectionError);
  });
});
