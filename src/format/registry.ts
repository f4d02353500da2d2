// Resolves format names (P3109, ml_dtypes, ONNX, OCP, safetensors, IEEE, Tesla) to Format values.
import { FormatError, describe } from "../errors.js";
import { type Family, Format, type FormatSpec, makeFormat } from "./model.js";

/** The P3109 rules for zero, NaN, subnormals and overflow (§3.2), also the defaults of a custom format. */
const P3109_SPECIALS = {
  negativeZero: "nan",
  zero: true,
  subnormals: "gradual",
  finiteOverflow: "clamp",
  nanSubstitute: "maxfinite",
  nanPayload: "drop",
  signedZeroAndNaN: false,
  defaultProjection: "P3109",
} as const satisfies Partial<FormatSpec>;

/** P3109 Binary{K}p{P}{s|u}{e|f} (Interim Report v4.0 §3.1–3.2): bias 2^(K−P−1) signed, 2^(K−P) unsigned. */
export function p3109(K: number, P: number, signed: boolean, extended: boolean): Format {
  if (!Number.isInteger(K) || K < 3 || K > 16) throw new FormatError("K", `got ${describe(K)}; allowed: an integer in [3, 16] for P3109 formats`);
  const maxP = signed ? K - 1 : K;
  if (!Number.isInteger(P) || P < 1 || P > maxP) {
    throw new FormatError("P", `got ${describe(P)}; allowed: an integer in [1, ${maxP}] for Binary${K}p<P>${signed ? "s" : "u"}`);
  }
  return makeFormat({
    name: `Binary${K}p${P}${signed ? "s" : "u"}${extended ? "e" : "f"}`,
    family: "P3109",
    K,
    P,
    bias: signed ? 2 ** (K - P - 1) : 2 ** (K - P),
    signed,
    infinity: extended,
    highNaNs: signed ? 0 : 1,
    ...P3109_SPECIALS,
  });
}

/** An IEEE 754 interchange-style layout with E exponent bits and M trailing bits (bias 2^(E−1) − 1 unless given). */
function ieeeLike(name: string, E: number, M: number, extra: Partial<FormatSpec> = {}): Format {
  return makeFormat({
    name,
    family: "IEEE",
    K: 1 + E + M,
    P: M + 1,
    bias: 2 ** (E - 1) - 1,
    signed: true,
    infinity: true,
    highNaNs: 2 ** M - 1,
    negativeZero: "zero",
    zero: true,
    subnormals: "gradual",
    finiteOverflow: "nan",
    nanSubstitute: "maxfinite",
    nanPayload: "drop",
    signedZeroAndNaN: true,
    defaultProjection: "ml_dtypes",
    ...extra,
  });
}

const fixed = new Map<string, Format>();
function register(format: Format, ...aliases: string[]): void {
  for (const n of [format.name, ...aliases]) fixed.set(n.toLowerCase(), format);
}

// IEEE 754 and the P3109 external formats (§4.8, Annex F). binary16 keeps numpy's NaN payload truncation.
register(ieeeLike("binary16", 5, 10, { nanPayload: "keep" }), "float16", "f16", "half");
register(ieeeLike("bfloat16", 8, 7, { nanPayload: "keepOnDecode" }), "bf16");
register(ieeeLike("binary32", 8, 23, { nanPayload: "keep" }), "float32", "f32");
register(ieeeLike("binary64", 11, 52, { nanPayload: "keep" }), "float64", "f64");

// ml_dtypes / OCP OFP8 / ONNX names and their aliases.
register(ieeeLike("float8_e5m2", 5, 2), "FLOAT8E5M2", "E5M2", "F8_E5M2");
register(ieeeLike("float8_e4m3", 4, 3));
register(ieeeLike("float8_e3m4", 3, 4));
register(ieeeLike("float8_e4m3fn", 4, 3, { family: "OCP", infinity: false, highNaNs: 1 }), "FLOAT8E4M3FN", "E4M3", "F8_E4M3");
const fnuz = { family: "FNUZ", infinity: false, highNaNs: 0, negativeZero: "nan" } as const;
register(ieeeLike("float8_e4m3fnuz", 4, 3, { ...fnuz, bias: 8 }), "FLOAT8E4M3FNUZ", "F8_E4M3FNUZ");
register(ieeeLike("float8_e5m2fnuz", 5, 2, { ...fnuz, bias: 16 }), "FLOAT8E5M2FNUZ", "F8_E5M2FNUZ");
register(ieeeLike("float8_e4m3b11fnuz", 4, 3, { ...fnuz, bias: 11 }));
const mx = { family: "MX", infinity: false, highNaNs: 0, finiteOverflow: "clamp", nanSubstitute: "negzero-xor-sign" } as const;
register(ieeeLike("float6_e2m3fn", 2, 3, mx), "E2M3", "F6_E2M3");
register(ieeeLike("float6_e3m2fn", 3, 2, mx), "E3M2", "F6_E3M2");
register(ieeeLike("float4_e2m1fn", 2, 1, mx), "E2M1", "FLOAT4E2M1", "F4");
register(
  makeFormat({
    name: "float8_e8m0fnu",
    family: "OCP",
    K: 8,
    P: 1,
    bias: 127,
    signed: false,
    infinity: false,
    highNaNs: 1,
    negativeZero: "zero",
    zero: false,
    subnormals: "gradual",
    finiteOverflow: "nan",
    nanSubstitute: "maxfinite",
    nanPayload: "drop",
    signedZeroAndNaN: false,
    defaultProjection: "ml_dtypes_e8m0",
  }),
  "FLOAT8E8M0",
  "E8M0",
  "F8_E8M0",
);

/**
 * Tesla CFloat8_1_4_3 / CFloat8_1_5_2 and CFloat16 SHP (1+5+10): a configurable 6-bit bias, no
 * Inf or NaN, clamping on overflow and on Inf/NaN input, IEEE-style subnormals.
 */
function teslaSigned(name: string, E: number, M: number, bias: number): Format {
  requireTeslaBias(bias);
  return ieeeLike(`${name}(bias=${bias})`, E, M, {
    family: "Tesla",
    bias,
    infinity: false,
    highNaNs: 0,
    finiteOverflow: "clamp",
    nanSubstitute: "maxfinite",
    defaultProjection: "Tesla",
  });
}

export const cfloat8 = (E: number, M: number, bias: number): Format => teslaSigned(`cfloat8_1_${E}_${M}`, E, M, bias);
export const cfloat16Shp = (bias: number): Format => teslaSigned("cfloat16_shp", 5, 10, bias);

/** Tesla CFloat16 UHP: unsigned 6+10, bias 31, IEEE Inf/NaN in the top exponent, denormals flushed. */
register(
  makeFormat({
    name: "cfloat16_uhp",
    family: "Tesla",
    K: 16,
    P: 11,
    bias: 31,
    signed: false,
    infinity: true,
    highNaNs: 2 ** 10 - 1,
    negativeZero: "zero",
    zero: true,
    subnormals: "flush",
    finiteOverflow: "clamp",
    nanSubstitute: "maxfinite",
    nanPayload: "drop",
    signedZeroAndNaN: false,
    defaultProjection: "Tesla",
  }),
);

function requireTeslaBias(bias: unknown): void {
  if (typeof bias !== "number" || !Number.isInteger(bias) || bias < 0 || bias > 63) {
    throw new FormatError("params.bias", `got ${describe(bias)}; allowed: an integer in [0, 63] (Tesla's 6-bit unsigned bias)`);
  }
}

const P3109_NAME = /^binary(\d+)p(\d+)([su])([ef])$/i;
const TESLA_NAME = /^cfloat8_1_([45])_([32])$/i;

/**
 * Names resolved without params, as given: bulk calls naming their format by string looked it up each time (case
 * folding and two pattern matches: 160 ns against 35 from here). Bounded, as callers may spell names freely.
 */
const resolved = new Map<string, Format>();
const RESOLVED_MAX = 256;

/**
 * Resolves a format name (case-insensitive) or returns a Format unchanged.
 * Tesla CFloat8 and CFloat16 SHP require `params.bias` (0…63).
 */
export function format(name: string | Format, params?: { bias?: number }): Format {
  if (name instanceof Format) {
    if (params !== undefined) throw new FormatError("params", "only allowed together with a format name");
    return name;
  }
  if (typeof name !== "string") throw new FormatError("name", `got ${describe(name)}; allowed: a format name or a Format`);
  if (params !== undefined) return lookup(name, params);
  let f = resolved.get(name);
  if (f === undefined) {
    f = lookup(name, undefined);
    if (resolved.size < RESOLVED_MAX) resolved.set(name, f);
  }
  return f;
}

function lookup(name: string, params: { bias?: number } | undefined): Format {
  const key = name.trim().toLowerCase();
  const p = P3109_NAME.exec(key);
  const tesla = TESLA_NAME.exec(key);
  const needsBias = tesla !== null || key === "cfloat16_shp";
  if (params !== undefined && (typeof params !== "object" || params === null)) {
    throw new FormatError("params", `got ${describe(params)}; allowed: { bias?: number }`);
  }
  const bias = params?.bias;
  if (!needsBias && bias !== undefined) {
    throw new FormatError(
      "params.bias",
      `format ${JSON.stringify(name)} has a fixed bias; a bias is allowed only for cfloat8_1_4_3, cfloat8_1_5_2 and cfloat16_shp`,
    );
  }
  if (p) {
    const K = Number(p[1]);
    const P = Number(p[2]);
    return p3109(K, P, p[3] === "s", p[4] === "e");
  }
  if (tesla) {
    if (bias === undefined) throw new FormatError("params.bias", `${name} requires a bias: an integer in [0, 63]`);
    const E = Number(tesla[1]);
    const M = Number(tesla[2]);
    if (E + M !== 7) throw new FormatError("name", `unknown Tesla format ${JSON.stringify(name)}; allowed: cfloat8_1_4_3, cfloat8_1_5_2`);
    return cfloat8(E, M, bias);
  }
  if (key === "cfloat16_shp") {
    if (bias === undefined) throw new FormatError("params.bias", `cfloat16_shp requires a bias: an integer in [0, 63]`);
    return cfloat16Shp(bias);
  }
  const f = fixed.get(key);
  if (f) return f;
  throw new FormatError(
    "name",
    `unknown format ${JSON.stringify(name)}; allowed: Binary{K}p{P}{s|u}{e|f} (3 ≤ K ≤ 16), ${[...new Set([...fixed.values()].map((x) => x.name))].join(", ")}, cfloat8_1_4_3, cfloat8_1_5_2, cfloat16_shp, their aliases (${[...fixed.keys()].filter((k) => !/^(binary|float|cfloat)/.test(k)).join(", ")}), or a custom format from customFormat()`,
  );
}

/** Every name `format()` accepts without parameters (P3109 names excepted): for documentation and tests. */
export function registeredNames(): string[] {
  return [...fixed.keys()];
}

/**
 * Integers as a sign–magnitude format of K-bit codes: P = K − 1 with one exponent bit, so the magnitudes are the
 * multiples of 2^(2 − bias − P) below 2^(K−1) of them (subnormals, then one binade), with zero and −0, no
 * infinities or NaNs, overflow clamped. MX's INT8 elements (bias 1: k·2^−6) and ONNX INT4 (bias −1: −7…7) are two.
 */
export function integerFormat(name: string, family: Family, K: number, bias: number): Format {
  return makeFormat({
    name,
    family,
    K,
    P: K - 1,
    bias,
    signed: true,
    infinity: false,
    highNaNs: 0,
    negativeZero: "zero",
    zero: true,
    subnormals: "gradual",
    finiteOverflow: "clamp",
    nanSubstitute: "negzero-xor-sign",
    nanPayload: "drop",
    signedZeroAndNaN: true,
    defaultProjection: "P3109",
  });
}

/** A user-defined format from parameters (validated); semantics default to IEEE-style layout with the given specials. */
export function customFormat(spec: Partial<FormatSpec> & { name: string; K: number; P: number; bias: number; signed: boolean }): Format {
  if (spec === null || typeof spec !== "object") throw new FormatError("spec", `got ${describe(spec)}; allowed: { name, K, P, bias, signed, … }`);
  const full: FormatSpec = {
    family: "Custom",
    infinity: false,
    highNaNs: 0,
    ...P3109_SPECIALS,
    ...spec,
  };
  return makeFormat(full);
}

/**
 * The Format of a serialised spec (`Format.toJSON()`, e.g. after crossing to a worker): the same interned object
 * as the format it came from.
 */
export function formatFromSpec(spec: FormatSpec): Format {
  return makeFormat(spec);
}
