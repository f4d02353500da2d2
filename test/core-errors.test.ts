// Bad input → typed errors. Every case asserts the error class, the `argument` property, and that the message
// names the argument and says what is allowed.
import { describe, expect, it } from "vitest";
import {
  ArgumentTypeError,
  CodeRangeError,
  FormatError,
  ProjectionError,
  customFormat,
  decode,
  decodeExact,
  dequantize,
  encode,
  encodeExact,
  format,
  quantize,
} from "../src/index.js";

type ErrorClass = typeof FormatError | typeof ProjectionError | typeof CodeRangeError | typeof ArgumentTypeError;

function expectError(fn: () => unknown, cls: ErrorClass, argument: string, ...fragments: (string | RegExp)[]): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected ${cls.name} for ${argument}`).toBeInstanceOf(cls);
  const err = caught as Error & { argument: string };
  expect(err.name).toBe(cls.name);
  expect(err.argument).toBe(argument);
  expect(err.message.startsWith(`${argument}: `), err.message).toBe(true);
  for (const f of fragments) {
    if (typeof f === "string") expect(err.message).toContain(f);
    else expect(err.message).toMatch(f);
  }
}

const F32 = (n: number) => new Float32Array(n).fill(1.1);
const STOCH = { rounding: "StochasticA", stochasticBits: 3 } as const;

describe("format names and parameters", () => {
  it("unknown format name → FormatError(name) listing the allowed names", () => {
    expectError(() => format("float7"), FormatError, "name", '"float7"', "allowed:", "Binary{K}p{P}{s|u}{e|f}", "float8_e4m3fn", "cfloat16_shp");
    expectError(() => format("cfloat8_1_4_2", { bias: 3 }), FormatError, "name", "allowed: cfloat8_1_4_3, cfloat8_1_5_2");
    expectError(() => format(42 as unknown as string), FormatError, "name", "got 42", "allowed");
  });

  it("invalid K or P of a P3109 name → FormatError(K | P) with the allowed range", () => {
    expectError(() => format("Binary2p1se"), FormatError, "K", "got 2", "allowed: an integer in [3, 16]");
    expectError(() => format("Binary17p3se"), FormatError, "K", "got 17", "allowed: an integer in [3, 16]");
    expectError(() => format("Binary8p8se"), FormatError, "P", "got 8", "allowed: an integer in [1, 7]");
    expectError(() => format("Binary8p0ue"), FormatError, "P", "got 0", "allowed: an integer in [1, 8]");
    expectError(() => format("Binary8p9uf"), FormatError, "P", "got 9", "[1, 8]");
  });

  it("Tesla bias: missing, outside 0…63, fractional → FormatError(params.bias)", () => {
    for (const name of ["cfloat8_1_4_3", "cfloat8_1_5_2", "cfloat16_shp"]) {
      expectError(() => format(name), FormatError, "params.bias", "requires a bias", "[0, 63]");
      expectError(() => format(name, {}), FormatError, "params.bias", "[0, 63]");
      expectError(() => format(name, { bias: 64 }), FormatError, "params.bias", "got 64", "allowed: an integer in [0, 63]");
      expectError(() => format(name, { bias: -1 }), FormatError, "params.bias", "got -1", "allowed");
      expectError(() => format(name, { bias: 7.5 }), FormatError, "params.bias", "got 7.5", "allowed");
      expectError(() => format(name, { bias: "7" as unknown as number }), FormatError, "params.bias", 'got "7"', "allowed");
    }
    expect(format("cfloat8_1_4_3", { bias: 0 }).bias).toBe(0);
    expect(format("cfloat8_1_4_3", { bias: 63 }).bias).toBe(63);
  });

  it("a bias for a fixed format, or params with a Format → FormatError(params.bias | params)", () => {
    for (const name of ["binary16", "Binary8p3se", "float8_e4m3fn", "cfloat16_uhp"]) {
      expectError(() => format(name, { bias: 3 }), FormatError, "params.bias", "fixed bias", "allowed only for cfloat8_1_4_3, cfloat8_1_5_2 and cfloat16_shp");
    }
    expectError(() => format(format("Binary8p3se"), { bias: 1 }), FormatError, "params", "only allowed together with a format name");
    expectError(() => format("Binary8p3se", 5 as unknown as { bias?: number }), FormatError, "params", "allowed: { bias?: number }");
  });

  it("customFormat validates K, P and bias", () => {
    expectError(() => customFormat({ name: "c", K: 1, P: 1, bias: 0, signed: false }), FormatError, "K", "allowed: an integer in [2, 64]");
    expectError(() => customFormat({ name: "c", K: 8, P: 8, bias: 0, signed: true }), FormatError, "P", "allowed: an integer in [1, 7]");
    expectError(() => customFormat({ name: "c", K: 8, P: 3, bias: 0.5, signed: true }), FormatError, "bias", "allowed: an integer");
  });

  it("a format argument that is neither a name nor a Format → ArgumentTypeError(fmt)", () => {
    expectError(() => decode(1, 8 as unknown as string), ArgumentTypeError, "fmt", "allowed: a format name or a Format");
    expectError(() => quantize(F32(1), null as unknown as string), ArgumentTypeError, "fmt", "allowed");
  });
});

describe("codes", () => {
  it("out of range, fractional, negative or non-number codes → CodeRangeError(code) with the allowed range", () => {
    for (const fn of [decode, decodeExact] as ((c: number, f: string) => unknown)[]) {
      expectError(() => fn(256, "Binary8p3se"), CodeRangeError, "code", "got 256", "allowed: an integer in [0, 255]");
      expectError(() => fn(1.5, "Binary8p3se"), CodeRangeError, "code", "got 1.5", "[0, 255]");
      expectError(() => fn(-1, "Binary8p3se"), CodeRangeError, "code", "got -1", "[0, 255]");
      expectError(() => fn(NaN, "Binary8p3se"), CodeRangeError, "code", "got NaN");
      expectError(() => fn("1" as unknown as number, "Binary8p3se"), CodeRangeError, "code", 'got "1"');
      expectError(() => fn(64, "float6_e2m3fn"), CodeRangeError, "code", "[0, 63]");
      expectError(() => fn(65536, "Binary16p8se"), CodeRangeError, "code", "[0, 65535]");
    }
  });

  it("decode of a value a float64 cannot hold → CodeRangeError(code) pointing to decodeExact", () => {
    expectError(() => decode(1, "Binary16p1se"), CodeRangeError, "code", "Binary16p1se", "decodeExact");
  });

  it("dequantize: a code ≥ 2^K inside a wider byte → CodeRangeError(codes[i])", () => {
    expectError(() => dequantize(new Uint8Array([0, 200]), "Binary6p3se"), CodeRangeError, "codes[1]", "is 200", "[0, 63]");
  });

  it("binary64 codes do not fit a number → CodeRangeError(fmt)", () => {
    expectError(() => decode(0, "binary64"), CodeRangeError, "fmt", "binary64");
  });
});

describe("arrays", () => {
  it("wrong src type → ArgumentTypeError(src)", () => {
    expectError(
      () => quantize([1, 2] as unknown as Float32Array, "Binary8p3se"),
      ArgumentTypeError,
      "src",
      "got Array(2)",
      "allowed: a Float32Array or Float64Array",
    );
    expectError(() => quantize(new Uint8Array(2) as unknown as Float32Array, "Binary8p3se"), ArgumentTypeError, "src", "Uint8Array", "allowed");
  });

  it("wrong codes type → ArgumentTypeError(codes): Uint8Array up to 8 bits, Uint16Array up to 16", () => {
    expectError(() => dequantize(new Uint16Array(2), "Binary8p3se"), ArgumentTypeError, "codes", "allowed: a Uint8Array");
    expectError(() => dequantize(new Uint8Array(2), "Binary12p7se"), ArgumentTypeError, "codes", "allowed: a Uint16Array");
    expectError(() => dequantize([0] as unknown as Uint8Array, "Binary8p3se"), ArgumentTypeError, "codes", "allowed");
  });

  it("wrong out type or length → ArgumentTypeError / CodeRangeError(options.out)", () => {
    expectError(() => quantize(F32(2), "Binary8p3se", { out: new Uint16Array(2) }), ArgumentTypeError, "options.out", "allowed: a Uint8Array of length 2");
    expectError(() => quantize(F32(2), "binary16", { out: new Uint8Array(2) }), ArgumentTypeError, "options.out", "allowed: a Uint16Array");
    expectError(() => quantize(F32(2), "Binary8p3se", { out: new Uint8Array(3) }), CodeRangeError, "options.out", "has length 3", "allowed: 2");
    expectError(() => dequantize(new Uint8Array(2), "Binary8p3se", { out: new Float32Array(3) }), CodeRangeError, "options.out", "allowed: 2");
    expectError(
      () => dequantize(new Uint8Array(2), "Binary8p3se", { out: new Float64Array(2) as unknown as Float32Array }),
      ArgumentTypeError,
      "options.out",
      "allowed: a Float32Array",
    );
  });

  it("wrong random type or length → ArgumentTypeError / CodeRangeError(options.random)", () => {
    expectError(
      () => quantize(F32(2), "Binary8p3se", { ...STOCH, random: new Float32Array(2) as unknown as Uint8Array }),
      ArgumentTypeError,
      "options.random",
      "allowed: a Uint8Array, Uint16Array or Uint32Array",
    );
    expectError(() => quantize(F32(2), "Binary8p3se", { ...STOCH, random: [0, 1] as unknown as Uint8Array }), ArgumentTypeError, "options.random", "allowed");
    expectError(
      () => quantize(F32(2), "Binary8p3se", { ...STOCH, random: new Uint8Array(3) }),
      CodeRangeError,
      "options.random",
      "has length 3",
      "the input length 2",
    );
  });
});

describe("projection options", () => {
  it("a random value ≥ 2^N (bulk and scalar) → ProjectionError(options.random)", () => {
    expectError(
      () => quantize(F32(2), "Binary8p3se", { ...STOCH, random: new Uint8Array([1, 8]) }),
      ProjectionError,
      "options.random",
      "element 1 is 8",
      "allowed: 0 ≤ R < 2^N = 8",
    );
    expectError(
      () => quantize(F32(1), "Binary8p3se", { rounding: "StochasticC", stochasticBits: 16, random: new Uint32Array([65536]) }),
      ProjectionError,
      "options.random",
      "2^N = 65536",
    );
    expectError(
      () => encode(1.1, "Binary8p3se", { ...STOCH, random: 8 }),
      ProjectionError,
      "options.random",
      "got 8",
      "allowed: an integer R with 0 ≤ R < 2^N = 8",
    );
    expectError(() => encode(1.1, "Binary8p3se", { ...STOCH, random: -1 }), ProjectionError, "options.random", "got -1");
    expectError(() => encode(1.1, "Binary8p3se", { ...STOCH, random: 0.5 }), ProjectionError, "options.random", "got 0.5");
  });

  it("N out of range or fractional → ProjectionError(options.stochasticBits); N without a stochastic mode too", () => {
    for (const N of [0, 33, 2.5, -1]) {
      expectError(
        () => encode(1.1, "Binary8p3se", { rounding: "StochasticA", stochasticBits: N, random: 0 }),
        ProjectionError,
        "options.stochasticBits",
        `got ${N}`,
        "allowed: an integer N in [1, 32]",
      );
      expectError(
        () => quantize(F32(1), "Binary8p3se", { rounding: "StochasticB", stochasticBits: N, seed: 1 }),
        ProjectionError,
        "options.stochasticBits",
        "[1, 32]",
      );
    }
    expectError(() => encode(1.1, "Binary8p3se", { rounding: "StochasticC" }), ProjectionError, "options.stochasticBits", "got undefined", "[1, 32]");
    expectError(
      () => encode(1.1, "Binary8p3se", { stochasticBits: 3 }),
      ProjectionError,
      "options.stochasticBits",
      "only allowed with StochasticA, StochasticB or StochasticC",
    );
  });

  it("seed and random together, or a stochastic mode with neither → ProjectionError(options) naming both options", () => {
    expectError(
      () => quantize(F32(2), "Binary8p3se", { ...STOCH, seed: 1, random: new Uint8Array(2) }),
      ProjectionError,
      "options",
      "exactly one of options.seed",
      "options.random",
    );
    expectError(() => quantize(F32(2), "Binary8p3se", { ...STOCH }), ProjectionError, "options", "options.seed", "options.random");
    expectError(() => encode(1.1, "Binary8p3se", { ...STOCH }), ProjectionError, "options.random", "got undefined", "allowed");
  });

  it("seed or random with a deterministic rounding, bad seeds → ProjectionError(options.seed | options.random)", () => {
    expectError(() => quantize(F32(1), "Binary8p3se", { seed: 1 }), ProjectionError, "options.seed", "only allowed with a stochastic rounding");
    expectError(
      () => quantize(F32(1), "Binary8p3se", { random: new Uint8Array(1) }),
      ProjectionError,
      "options.random",
      "only allowed with a stochastic rounding",
    );
    expectError(() => encode(1.1, "Binary8p3se", { random: 0 }), ProjectionError, "options.random", "only allowed with a stochastic rounding");
    for (const seed of [1.5, -1, 2 ** 32])
      expectError(
        () => quantize(F32(1), "Binary8p3se", { ...STOCH, seed }),
        ProjectionError,
        "options.seed",
        `got ${seed}`,
        "allowed: an integer in [0, 2^32)",
      );
  });

  it("unknown rounding or saturation names → ProjectionError listing the allowed names; non-object options → ArgumentTypeError", () => {
    expectError(
      () => encode(1, "Binary8p3se", { rounding: "Up" as "ToOdd" }),
      ProjectionError,
      "options.rounding",
      'got "Up"',
      "allowed: NearestTiesToEven",
      "StochasticC",
    );
    expectError(
      () => encode(1, "Binary8p3se", { saturation: "Clamp" as "SatNone" }),
      ProjectionError,
      "options.saturation",
      'got "Clamp"',
      "allowed: SatFinite, SatPropagate, SatNone",
    );
    expectError(() => quantize(F32(1), "Binary8p3se", { saturation: "OvfInf" as "SatNone" }), ProjectionError, "options.saturation", "allowed");
    expectError(
      () => encodeExact({ kind: "nan", sign: 1 }, "Binary8p3se", 3 as unknown as object),
      ArgumentTypeError,
      "options",
      "got 3",
      "allowed: an object",
    );
  });

  it("a non-number value → ArgumentTypeError(value)", () => {
    expectError(() => encode("1" as unknown as number, "Binary8p3se"), ArgumentTypeError, "value", 'got "1"', "allowed: a number");
    expectError(() => encode(1n as unknown as number, "Binary8p3se"), ArgumentTypeError, "value", "got 1n");
  });
});
