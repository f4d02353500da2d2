// P3109 §5 block operations: every ConvertToBlockMaxAbsFinite and BlockDotProduct record of the second golden
// set (golden/p3109/scaled_blocks.jsonl.gz) bit for bit, hand-checked examples, and the special rules of
// ωBlockProject (S = 0, S = ±∞, NaN) and of the reductions.
import { describe, expect, it } from "vitest";
import { decode, encode, encodeExact } from "../src/api/scalar.js";
import {
  blockDecode,
  blockDotProduct,
  blockOp,
  blockReduceAdd,
  blockReduceMultiply,
  convertFromBlock,
  convertToBlock,
  convertToBlockMaxAbsFinite,
} from "../src/block/p3109.js";
import { format } from "../src/format/registry.js";
import { BLOCK_OPS } from "../src/block/p3109.js";
import { operationInfo } from "../src/ops/registry.js";
import { readJsonl, sharedPath } from "./golden/reader.js";

const E8 = "Binary8p4se";
const S = "Binary8p1uf";
const isNaNCode = (code: number, f: string) => format(f).isNaNCode(code);

describe("golden scaled_blocks.jsonl.gz", () => {
  it("every ConvertToBlockMaxAbsFinite and BlockDotProduct record", async () => {
    const counts = { ConvertToBlockMaxAbsFinite: 0, BlockDotProduct: 0 };
    for await (const r of readJsonl(sharedPath("golden", "p3109", "scaled_blocks.jsonl.gz"))) {
      if (r.op === "ConvertToBlockMaxAbsFinite") {
        const got = convertToBlockMaxAbsFinite(r.x, r.fx, r.fs, r.fr, { rounding: r.rnd_s, saturation: r.sat_s }, { rounding: r.rnd, saturation: r.sat });
        expect(got.elements.length).toBe(r.B);
        expect({ s: got.scale, r: got.elements }).toEqual({ s: r.s, r: r.r });
        counts.ConvertToBlockMaxAbsFinite++;
      } else if (r.op === "BlockDotProduct") {
        const got = blockDotProduct({ scale: r.sx, elements: r.x }, r.fsx, r.fx, { scale: r.sy, elements: r.y }, r.fsy, r.fy, r.fr, {
          rounding: r.rnd,
          saturation: r.sat,
        });
        if (isNaNCode(r.r, r.fr)) expect(isNaNCode(got, r.fr)).toBe(true);
        else expect(got).toBe(r.r);
        counts.BlockDotProduct++;
      }
    }
    expect(counts).toEqual({ ConvertToBlockMaxAbsFinite: 402, BlockDotProduct: 201 });
  });
});

describe("hand-checked P3109 block examples", () => {
  it("ConvertToBlockMaxAbsFinite<B=4>([1, −3, 0.5, +Inf]) → s = 0x82 (4), [¼, −¾, ⅛, 224 | +Inf]", () => {
    const x = [1, -3, 0.5, Infinity].map((v) => encode(v, E8));
    const sat = convertToBlockMaxAbsFinite(x, E8, S, E8, { rounding: "TowardPositive", saturation: "SatFinite" }, { saturation: "SatFinite" });
    expect(sat).toEqual({ scale: 0x82, elements: [0x30, 0xbc, 0x28, 0x7e] });
    const none = convertToBlockMaxAbsFinite(x, E8, S, E8, { rounding: "TowardPositive", saturation: "SatFinite" }, { saturation: "SatNone" });
    expect(none.elements[3]).toBe(0x7f);
  });
  it("BlockDotProduct<2>((2, [1, 2]), (½, [3, −1])) = 1 → 0x40", () => {
    expect(blockDotProduct({ scale: 0x81, elements: [0x40, 0x48] }, S, E8, { scale: 0x7f, elements: [0x4c, 0xc0] }, S, E8, E8)).toBe(0x40);
  });
});

describe("ωBlockProject and ωBlockDecode special rules", () => {
  const nan = format(S).nanCode; // Binary8p1uf: 0xff
  const e8 = (v: number) => encode(v, E8);
  it("S = 0: every element 0, even ±∞ (Binary8p4sf scales have a zero)", () => {
    const fs = "Binary8p4sf";
    expect(convertToBlock([e8(3), e8(Infinity), e8(-Infinity)], E8, encode(0, fs), fs, E8).elements).toEqual([0, 0, 0]);
  });
  it("S = +∞ gives sgn(X)·sgn(S): ±1 and 0; S = −∞ flips the signs", () => {
    const fs = "Binary8p4se";
    expect(convertToBlock([e8(3), e8(-0.5), e8(0), e8(Infinity)], E8, encode(Infinity, fs), fs, E8).elements).toEqual([e8(1), e8(-1), 0, e8(1)]);
    expect(convertToBlock([e8(3), e8(-0.5)], E8, encode(-Infinity, fs), fs, E8).elements).toEqual([e8(-1), e8(1)]);
  });
  it("a NaN scale or element gives NaN elements; a finite scale divides exactly, then one rounding", () => {
    expect(convertToBlock([e8(3), e8(1)], E8, nan, S, E8).elements).toEqual([0x80, 0x80]);
    expect(convertToBlock([e8(3), 0x80], E8, encode(4, S), S, E8).elements).toEqual([e8(0.75), 0x80]);
    // 3/3 with a non-power-of-two scale (Binary8p3se) is exactly 1; 1/3 rounds once (RNE) to 0.34375 (11/32).
    expect(convertToBlock([e8(3), e8(1)], E8, encode(3, "Binary8p3se"), "Binary8p3se", E8).elements).toEqual([e8(1), e8(11 / 32)]);
  });
  it("ωBlockDecode multiplies in ℝω: 0·∞ → NaN, NaN scale → NaN", () => {
    const z = blockDecode({ scale: encode(0, "Binary8p4se"), elements: [e8(Infinity), e8(2)] }, "Binary8p4se", E8);
    expect(z.map((v) => v.kind)).toEqual(["nan", "finite"]);
    expect(convertFromBlock({ scale: encode(4, S), elements: [e8(3), e8(-Infinity)] }, S, E8, "binary32")).toEqual([
      encode(12, "binary32"),
      encode(-Infinity, "binary32"),
    ]);
  });
});

describe("reductions and elementwise Block<Op>", () => {
  const e8 = (v: number) => encode(v, E8);
  const block = (scale: number, values: number[]) => ({ scale: encode(scale, S), elements: values.map(e8) });
  it("BlockReduceAdd is the exact sum with one rounding (order-independent); +∞ with −∞ → NaN", () => {
    // 2·(224 + 224 − 224 − 224 + 2^−6): naive left-to-right Binary8p4se additions would overflow.
    expect(decode(blockReduceAdd(block(2, [224, 224, -224, -224, 2 ** -6]), S, E8, E8), E8)).toBe(2 ** -5);
    expect(decode(blockReduceAdd(block(1, [1, 2 ** -9]), S, E8, E8, { rounding: "TowardPositive" }), E8)).toBe(1.125);
    expect(blockReduceAdd(block(1, [Infinity, -Infinity, 1]), S, E8, E8)).toBe(0x80);
  });
  it("BlockReduceMultiply is the exact product with one rounding", () => {
    expect(decode(blockReduceMultiply(block(2, [3, 5, 0.5]), S, E8, "binary32"), "binary32")).toBe(2 * 3 * 2 * 5 * 2 * 0.5);
    expect(blockReduceMultiply(block(1, [Infinity, 0]), S, E8, E8)).toBe(0x80);
  });
  it("Block<Add>, Block<Divide>, Block<Sqrt> with a caller-supplied result scale", () => {
    const x = { block: block(2, [1, 3, -1]), fs: S, fx: E8 };
    const y = { block: block(1, [0.5, -1, Infinity]), fs: S, fx: E8 };
    const sum = blockOp("Add", [x, y], encode(4, S), S, E8);
    expect(sum.scale).toBe(encode(4, S));
    expect(sum.elements.map((c) => decode(c, E8))).toEqual([(2 + 0.5) / 4, (6 - 1) / 4, Infinity]);
    const q = blockOp("Divide", [x, y], encode(1, S), S, E8, { saturation: "SatFinite" });
    expect(q.elements.map((c) => decode(c, E8))).toEqual([4, -6, 0]);
    const r = blockOp("Sqrt", [{ block: block(1, [2]), fs: S, fx: E8 }], encode(1, S), S, "binary32");
    expect(decode(r.elements[0]!, "binary32")).toBe(Math.fround(Math.SQRT2));
  });
  it("every §5.4 operation runs as Block<Op>, each result equal to the scalar operation on the decoded elements", () => {
    const b = { block: block(2, [0.25, 1]), fs: S, fx: E8 };
    expect(BLOCK_OPS.length).toBe(52);
    for (const op of BLOCK_OPS) {
      const info = operationInfo(op)!;
      const r = blockOp(op, Array(info.arity).fill(b), encode(1, S), S, E8);
      // With result scale 1 the elements are Op(0.5, …), Op(2, …) projected once into Binary8p4se.
      const expected = [0.5, 2].map((v) => {
        const z = info.omega!(Array(info.arity).fill({ kind: "finite", sign: 1, significand: BigInt(v * 4), exponent: -2 }), 40);
        return encodeExact(z, E8);
      });
      expect({ op, elements: r.elements }).toEqual({ op, elements: expected });
    }
    expect(blockOp("Exp", [b], encode(1, S), S, E8).elements.map((c) => decode(c, E8))).toEqual([1.625, 7.5]); // e^0.5, e^2
  });
  it("typed errors name the argument", () => {
    expect(() => blockOp("Foo" as "Add", [], 0, S, E8)).toThrow(/^op: got "Foo"; allowed: Convert, Abs/);
    expect(() => blockOp("Add", [{ block: block(1, [1]), fs: S, fx: E8 }], 0, S, E8)).toThrow(
      /operands: got Array\(1\); allowed: 2 operand block\(s\) for Add/,
    );
    expect(() => convertToBlock([], E8, 0, S, E8)).toThrow(/x: has 0 elements; allowed: a block of B ≥ 1 codes/);
    expect(() => convertToBlock([256], E8, 0, S, E8)).toThrow(/x\[0\]: got 256; allowed: an integer in \[0, 255\]/);
    expect(() => blockDotProduct(block(1, [1]), S, E8, block(1, [1, 2]), S, E8, E8)).toThrow(/y\.elements: has 2 codes; allowed: the block size of x \(1\)/);
  });
});
