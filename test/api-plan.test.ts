// The bulk planner picks the path of every quantize call (single-thread, pool, workers). These tests fail when a case
// that should take the encode kernel's fast variant silently falls back to its generic path or to the reference.
import { afterEach, describe, expect, it } from "vitest";
import { planQuantize, resolveRandom } from "../src/api/plan.js";
import { ArgumentTypeError, CodeRangeError, ProjectionError, format, newFlags, quantize, useKernels } from "../src/index.js";
import { resolveProjection } from "../src/exact/projection.js";

afterEach(() => useKernels(true));

const src = new Float32Array(64).map((_, i) => (i - 32) * 0.37);
const path = (fmt: string, options?: Parameters<typeof planQuantize>[2], input: Float32Array | Float64Array = src) => {
  const { run } = planQuantize(input, fmt, options);
  return run.kernel === "reference" ? run.kernel : `${run.kernel}/${run.variant}`;
};

describe("planQuantize picks the encode kernel's fast variant where it applies", () => {
  it.each([
    ["float8_e4m3fn", undefined, "encodeF32/bytes"],
    ["float8_e5m2", undefined, "encodeF32/bytes"],
    ["Binary8p3se", { rounding: "NearestTiesToEven" }, "encodeF32/bytes"],
    ["bfloat16", undefined, "encodeF32/prefix"], // binary32's top 16 bits: rounded in place
    ["float16", undefined, "encodeF32/wideKeep"],
    ["Binary8p3se", { rounding: "StochasticA", stochasticBits: 8, seed: 1 }, "encodeF32/bytes"],
    ["float8_e4m3fn", { rounding: "StochasticC", stochasticBits: 5, random: new Uint8Array(64) }, "encodeF32/bytes"],
    ["bfloat16", { rounding: "StochasticB", stochasticBits: 9, seed: 7, seedIndex: 100 }, "encodeF32/wide"],
    ["float8_e8m0fnu", undefined, "encodeF32/bytes"], // ml_dtypes' own E8M0 cast
    ["float8_e8m0fnu", { rounding: "NearestTiesToEven", saturation: "SatFinite" }, "encodeF32/bytes"],
    ["float8_e8m0fnu", { rounding: "ToOdd" }, "encodeF32/bytes"],
  ] as const)("%s %j → %s", (fmt, options, want) => {
    expect(path(fmt, options as never)).toBe(want);
  });

  it("takes the generic kernel path or the reference where the fast variant does not apply", () => {
    expect(path("float8_e8m0fnu", { rounding: "StochasticA", stochasticBits: 4, seed: 1 })).toBe("encodeF32/generic"); // no zero, stochastic
    expect(path("Binary8p3se", { rounding: "StochasticA", stochasticBits: 20, seed: 1 })).toBe("encodeF32/generic"); // N > 16
    expect(path("float8_e4m3fn", undefined, Float64Array.from(src))).toBe("encodeF64/bytes"); // float64 input, rounded to odd
    expect(path("float8_e4m3fn", { rounding: "StochasticA", stochasticBits: 4, seed: 1 }, Float64Array.from(src))).toBe("reference");
    expect(path("float8_e8m0fnu", undefined, Float64Array.from(src))).toBe("reference"); // ml_dtypes' cast is defined on float32
    expect(path("float16", undefined, Float64Array.from(src))).toBe("encodeF64/wideKeep");
    expect(path("Binary16p3se", undefined, Float64Array.from(src))).toBe("reference"); // subnormals below float32's
    expect(path("float8_e4m3fn", { flags: newFlags() })).toBe("reference"); // exception flags
    expect(path("binary32")).toBe("reference"); // codes wider than 16 bits
    expect(path("Binary8p3se", { rounding: "StochasticA", stochasticBits: 31, seed: 1 })).toBe("reference"); // N beyond the kernel
  });

  it("follows the one kernel switch, useKernels", () => {
    useKernels(false);
    expect(path("float8_e4m3fn")).toBe("reference");
    useKernels(true);
    expect(path("float8_e4m3fn")).toBe("encodeF32/bytes");
  });

  it("validates like quantize and keeps the caller's output", () => {
    const out = new Uint8Array(src.length);
    expect(planQuantize(src, "float8_e4m3fn", { out }).out).toBe(out);
    expect(quantize(src, "float8_e4m3fn", { out })).toBe(out);
    expect(() => planQuantize(src, "float8_e4m3fn", { out: new Uint8Array(3) })).toThrow(CodeRangeError);
    expect(() => planQuantize([1] as never, "float8_e4m3fn", undefined)).toThrow(ArgumentTypeError);
  });
});

describe("resolveRandom: the one validator of random bits", () => {
  const f = format("Binary8p3se");
  const stochastic = resolveProjection(f, { rounding: "StochasticA", stochasticBits: 4 });
  const nearest = resolveProjection(f, {});

  it("takes a seed (with seedIndex) or a typed array of one R per element, and nothing for deterministic roundings", () => {
    expect(resolveRandom(nearest, 3, {})).toBeUndefined();
    const seeded = resolveRandom(stochastic, 3, { seed: 5, seedIndex: 10 })!;
    expect(seeded.kind).toBe("seed");
    expect(resolveRandom(stochastic, 13, { seed: 5 })!.at(10)).toBe(seeded.at(0));
    const array = resolveRandom(stochastic, 3, { random: Uint8Array.of(1, 15, 0) })!;
    expect([0, 1, 2].map(array.at)).toEqual([1, 15, 0]);
  });

  it("names the argument under `where` in its typed errors", () => {
    expect(() => resolveRandom(nearest, 1, { seed: 1 }, "projection")).toThrow(
      new ProjectionError("projection.seed", "only allowed with a stochastic rounding (rounding is NearestTiesToEven)"),
    );
    expect(() => resolveRandom(stochastic, 2, { random: [1, 2] as never }, "projection")).toThrow(ArgumentTypeError);
    expect(() => resolveRandom(stochastic, 2, { random: Uint8Array.of(1) })).toThrow(/options\.random: has length 1; allowed: the input length 2/);
    expect(() => resolveRandom(stochastic, 1, { random: Uint8Array.of(16) })).toThrow(/options\.random: element 0 is 16; allowed: 0 ≤ R < 2\^N = 16/);
    expect(() => resolveRandom(stochastic, 1, {})).toThrow(/needs exactly one of options\.seed/);
  });
});
