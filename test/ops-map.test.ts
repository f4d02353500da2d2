// `.map` over code arrays: tables for ≤ 8-bit operands and the exact path agree with scalar calls; stochastic
// roundings take caller R or a seed; binary64 arrays; validation of arrays and options.
import { describe, expect, it } from "vitest";
import { ArgumentTypeError, CodeRangeError, ProjectionError } from "../src/errors.js";
import { randomR, seedKeys } from "../src/random.js";
import { CLASS_NAMES, specialize } from "../src/ops/index.js";
import { kernels, useKernels } from "../src/wasm/instance.js";

const all8 = (): [Uint8Array, Uint8Array] => [new Uint8Array(65536).map((_, i) => i >> 8), new Uint8Array(65536).map((_, i) => i & 255)];

describe("map", () => {
  it("the Divide table equals 65 536 scalar calls, across formats (Binary8p3se ÷ Binary8p4se → binary16)", () => {
    const s = specialize("Divide", { operands: ["Binary8p3se", "Binary8p4se"], result: "binary16", rounding: "ToOdd" });
    const [x, y] = all8();
    const got = s.map(x, y);
    expect(got).toBeInstanceOf(Uint16Array);
    let diff = 0;
    for (let i = 0; i < 65536; i++) if (got[i] !== s(x[i]!, y[i]!)) diff++;
    expect(diff).toBe(0);
    expect(got[0x40 * 256 + 0x48]).toBe(0x3800); // 1 / 2 = 0.5
  });

  it("the Wasm gather kernel (assembly/lut.ts) and the TypeScript loop give the same codes", () => {
    const n = 100_003;
    const x = new Uint8Array(n).map((_, i) => (i * 7) & 255);
    const y = new Uint8Array(n).map((_, i) => (i * 13) >> 3);
    const s = specialize("Subtract", { operands: ["Binary8p3se", "Binary8p4se"], result: "Binary8p4se", rounding: "ToOdd" });
    const u = specialize("Sqrt", { operands: ["Binary4p2sf"], result: "Binary4p2sf" });
    const xs = new Uint8Array(n).map((_, i) => i % 16);
    expect((kernels() as unknown as Record<string, unknown> | undefined)?.lutApply2x8).toBeTypeOf("function");
    const wasm = [s.map(x, y), u.map(xs)];
    useKernels(false);
    try {
      const js = [s.map(x, y), u.map(xs)];
      expect(Buffer.compare(wasm[0]!, js[0]!)).toBe(0);
      expect(Buffer.compare(wasm[1]!, js[1]!)).toBe(0);
    } finally {
      useKernels(true);
    }
    expect(wasm[0]![0x40]).toBe(s(x[0x40]!, y[0x40]!));
  });

  it("predicates give 0/1 bytes and Class gives CLASS_NAMES indices", () => {
    const codes = new Uint8Array([0x00, 0x01, 0x08, 0x7f, 0x80, 0xff]);
    expect([...specialize("IsSubnormal", { operands: ["Binary8p4se"] }).map(codes)]).toEqual([0, 1, 0, 0, 0, 0]);
    expect([...specialize("Class", { operands: ["Binary8p4se"] }).map(codes)].map((k) => CLASS_NAMES[k])).toEqual([
      "ClsZero",
      "ClsPositiveSubnormal",
      "ClsPositiveNormal",
      "ClsPositiveInfinity",
      "ClsNaN",
      "ClsNegativeInfinity",
    ]);
  });

  it("stochastic rounding: per-element R from an array or the seeded generator, same as scalar calls with that R", () => {
    const s = specialize("Multiply", { operands: ["Binary8p4se", "Binary8p4se"], result: "Binary8p3se", rounding: "StochasticB", stochasticBits: 5 });
    const [x, y] = all8();
    const random = new Uint8Array(65536).map((_, i) => (i * 7) % 32);
    const a = s.map(x, y, { random });
    const b = s.map(x, y, { seed: 42 });
    const [k0, k1] = seedKeys(42);
    let diffA = 0;
    let diffB = 0;
    for (let i = 0; i < 65536; i += 13) {
      if (a[i] !== s(x[i]!, y[i]!, { random: random[i]! })) diffA++;
      if (b[i] !== s(x[i]!, y[i]!, { random: randomR(k0, k1, i, 5) })) diffB++;
    }
    expect([diffA, diffB]).toEqual([0, 0]);
    expect(() => s.map(x, y)).toThrow(ProjectionError);
    expect(() => s.map(x, y, { random: new Uint8Array(65536).fill(32) })).toThrow(/0 ≤ R < 2\^N = 32/);
  });

  it("long stochastic arrays use per-entry thresholds (bisection in R) and still equal scalar calls", () => {
    const s = specialize("Multiply", { operands: ["Binary8p4se", "Binary8p3se"], result: "Binary8p4se", rounding: "StochasticC", stochasticBits: 6 });
    const n = 4 * 65536;
    const x = new Uint8Array(n).map((_, i) => (i >> 8) & 255);
    const y = new Uint8Array(n).map((_, i) => (i * 3) & 255);
    const random = new Uint8Array(n).map((_, i) => (i * 2654435761) >>> 26);
    const got = s.map(x, y, { random });
    let diff = 0;
    for (let i = 0; i < n; i += 7) if (got[i] !== s(x[i]!, y[i]!, { random: random[i]! })) diff++;
    expect(diff).toBe(0);
    const sqrt = specialize("Sqrt", { operands: ["Binary8p3se"], result: "Binary8p4se", rounding: "StochasticA", stochasticBits: 32 });
    const xs = new Uint8Array(1024).map((_, i) => i & 255);
    const rs = new Uint32Array(1024).map((_, i) => (i * 0x9e3779b9) >>> 0);
    const roots = sqrt.map(xs, { random: rs });
    let diff2 = 0;
    for (let i = 0; i < 1024; i++) if (roots[i] !== sqrt(xs[i]!, { random: rs[i]! })) diff2++;
    expect(diff2).toBe(0);
  });

  it("the exact path for wider formats (Binary12p7se) and ternary operations equals scalar calls", () => {
    const fma = specialize("FMA", { operands: ["Binary12p7se", "Binary8p4se", "binary32"], result: "Binary12p7se", rounding: "TowardNegative" });
    const n = 4096;
    const x = new Uint16Array(n).map((_, i) => (i * 2654435761) % 4096);
    const y = new Uint8Array(n).map((_, i) => (i * 40503) & 255);
    const z = new Uint32Array(n).map((_, i) => (i * 0x9e3779b1) >>> 0);
    const got = fma.map(x, y, z);
    let diff = 0;
    for (let i = 0; i < n; i++) if (got[i] !== fma(x[i]!, y[i]!, z[i]!)) diff++;
    expect(diff).toBe(0);
  });

  it("tables of three and four small operands (FMA, Clamp, ScaledAdd) equal scalar calls on every combination", () => {
    /** Every combination of the operands' codes, operand 0 slowest (as the tables number them). */
    const combos = (counts: readonly number[]): Uint8Array[] => {
      const total = counts.reduce((a, b) => a * b, 1);
      return counts.map((_, k) => {
        const inner = counts.slice(k + 1).reduce((a, b) => a * b, 1);
        return new Uint8Array(total).map((_, i) => Math.floor(i / inner) % counts[k]!);
      });
    };
    const cases = [
      specialize("FMA", { operands: ["Binary4p2sf", "Binary4p2sf", "Binary4p2sf"], result: "Binary4p2se" }),
      specialize("FMA", { operands: ["Binary4p2sf", "Binary4p2sf", "Binary8p3se"], result: "Binary8p3se", rounding: "TowardPositive" }),
      specialize("FMA", { operands: ["Binary5p3sf", "Binary5p3sf", "Binary5p3sf"], result: "Binary5p3sf", saturation: "SatFinite" }),
      specialize("Clamp", { operands: ["Binary4p2sf", "Binary4p2sf", "Binary4p2sf"], result: "Binary4p2sf" }),
      specialize("ScaledAdd", { operands: ["Binary4p2sf", "Binary4p2sf", "Binary4p2sf", "Binary4p2sf"], result: "Binary4p2sf" }),
    ];
    for (const s of cases) {
      const arrays = combos(
        s.signature
          .match(/Binary\d+p\d+s[ef]/g)!
          .slice(0, -1)
          .map((name) => 2 ** Number(/Binary(\d+)/.exec(name)![1])),
      );
      for (const on of [true, false]) {
        useKernels(on);
        try {
          const got = s.map(...arrays);
          let diff = 0;
          for (let i = 0; i < got.length; i++) if (got[i] !== s(...arrays.map((a) => a[i]!))) diff++;
          expect(diff, `${s.signature}, kernels ${on}`).toBe(0);
        } finally {
          useKernels(true);
        }
      }
    }
    // A stochastic rounding: the tables' R thresholds for three operands, against scalar calls with the same R.
    const sto = specialize("FMA", {
      operands: ["Binary4p2sf", "Binary4p2sf", "Binary4p2sf"],
      result: "Binary4p2sf",
      rounding: "StochasticA",
      stochasticBits: 4,
    });
    const [x, y, z] = combos([16, 16, 16]);
    const random = new Uint8Array(x!.length).map((_, i) => (i * 7) % 16);
    const got = sto.map(x!, y!, z!, { random });
    let diff = 0;
    for (let i = 0; i < got.length; i++) if (got[i] !== sto(x![i]!, y![i]!, z![i]!, { random: random[i]! })) diff++;
    expect(diff).toBe(0);
  });

  it("binary64 codes: bigint scalars, BigUint64Array or Float64Array arrays", () => {
    const s = specialize("Sqrt", { operands: ["binary64"], result: "binary64" });
    expect(s(0x4000000000000000n)).toBe(0x3ff6a09e667f3bcdn); // √2 correctly rounded
    const out = s.map(new Float64Array([4, 2, -1, 0.25]));
    expect(out).toBeInstanceOf(BigUint64Array);
    expect([...new Float64Array((out as BigUint64Array).buffer)]).toEqual([2, Math.SQRT2, NaN, 0.5]);
    const into = new Float64Array(1);
    s.map(new BigUint64Array([0x4022000000000000n]), { out: into });
    expect(into[0]).toBe(3);
  });

  it("validates array types, lengths, code ranges and the output", () => {
    const s = specialize("Add", { operands: ["Binary4p2sf", "Binary8p4se"], result: "Binary8p4se" });
    expect(() => s.map(new Uint16Array(2), new Uint8Array(2))).toThrow(ArgumentTypeError);
    expect(() => s.map(new Uint8Array(2), new Uint8Array(3))).toThrow(/arrays\[1\]: has length 3; allowed: 2/);
    expect(() => s.map(new Uint8Array([1, 16]), new Uint8Array(2))).toThrow(CodeRangeError);
    expect(() => s.map(new Uint8Array(2))).toThrow(/got 1 code arrays; allowed: 2/);
    expect(() => s.map(new Uint8Array(2), new Uint8Array(2), { out: new Uint8Array(1) })).toThrow(CodeRangeError);
    expect(() => specialize("MaxFiniteOf", { operands: ["Binary8p4se"] }).map(new Uint8Array(1))).toThrow(ArgumentTypeError);
  });
});

describe("formats beyond float64 (K − P ≥ 12)", () => {
  it("Binary16p1se: 2^16382 + 2^-16383 rounds TowardPositive to Inf, and Divide/Sqrt stay exact", () => {
    const f = "Binary16p1se"; // value(c) = 2^(c − 16384) for 1 ≤ c ≤ 32766
    const add = specialize("Add", { operands: [f, f], result: f, rounding: "TowardPositive" });
    expect(add(32766, 1)).toBe(0x7fff); // +Inf: MaxFinite plus a positive amount rounds up past MaxFinite
    expect(specialize("Add", { operands: [f, f], result: f, rounding: "TowardZero" })(32766, 1)).toBe(32766);
    expect(specialize("Divide", { operands: [f, f], result: f })(1, 32766)).toBe(0); // 2^-32765 underflows to 0 (RNE)
    expect(specialize("Sqrt", { operands: [f], result: f })(16384 + 4000)).toBe(16384 + 2000); // √(2^4000) = 2^2000
    expect(specialize("Sqrt", { operands: [f], result: f, rounding: "TowardZero" })(16384 + 4001)).toBe(16384 + 2000); // √2·2^2000
  });
});
