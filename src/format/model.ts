// One parameterised description of every small binary floating-point format (P3109 §3, IEEE 754, OCP, FNUZ,
// MX, Tesla). New formats are new values of `FormatSpec`, never new code paths.
import { FormatError, describe } from "../errors.js";

export type Signedness = "Signed" | "Unsigned";
export type Domain = "Extended" | "Finite";
export type NanPayload = "drop" | "keep" | "keepOnDecode";
export type Family = "P3109" | "IEEE" | "OCP" | "FNUZ" | "MX" | "Tesla" | "Custom";

/**
 * The encoding: how codes map to datums. Codes are ordered by magnitude (sign–magnitude for signed formats):
 * the magnitude field is K−1 bits (signed) or K bits (unsigned); the top `highNaNs` magnitudes are NaN, the
 * magnitude just below them is +Inf when `infinity` is set, everything else is a finite value
 * `(E == 0 && zero ? T : T + 2^(P−1)) · 2^(max(E, zero ? 1 : 0) − bias − (P−1))` with E the exponent field and T
 * the trailing significand (P3109 §4.7.2, IEEE 754 §3.4).
 */
export interface Encoding {
  readonly name: string;
  readonly family: Family;
  /** Bit width K (3 ≤ K ≤ 16 for P3109; 32 and 64 for the external IEEE formats). */
  readonly K: number;
  /** Precision P: significand bits including the hidden bit. */
  readonly P: number;
  /** Exponent bias: a normal value is 1.T · 2^(E − bias). */
  readonly bias: number;
  readonly signed: boolean;
  /** +Inf (and −Inf when signed) sits just below the high NaNs. */
  readonly infinity: boolean;
  /** Number of NaN magnitudes at the top of the code range (per sign). */
  readonly highNaNs: number;
  /** Meaning of the signed code 2^(K−1) (sign bit, magnitude 0): "zero" (−0), "nan" (P3109, FNUZ). */
  readonly negativeZero: "zero" | "nan";
  /** False for formats without a zero (E8M0): exponent field 0 is then a normal binade. */
  readonly zero: boolean;
  /** "gradual": IEEE subnormals; "flush": subnormal codes decode to 0 and results below MinNormal flush to 0. */
  readonly subnormals: "gradual" | "flush";
}

/**
 * Cast policy, not encoding: what a vendor's cast does where ωProject (P3109 §4.7.3) leaves no choice to the
 * encoding or decides differently. src/exact/cast.ts applies it around the projection.
 */
export interface CastPolicy {
  /** SatNone in a format without infinities: overflow (and ±Inf) "clamp" to ±MaxFinite (P3109 v4.0) or give "nan" (OCP FN, FNUZ). */
  readonly finiteOverflow: "clamp" | "nan";
  /** A NaN input in a format without NaN: "negzero-xor-sign" (ml_dtypes MX types) or "maxfinite" (Tesla: clamp). */
  readonly nanSubstitute: "negzero-xor-sign" | "maxfinite";
  /**
   * NaN payloads (IEEE family): "drop" (canonical quiet NaN both ways), "keep" (decoded into wider formats and
   * truncated to the top trailing bits on encode, as numpy's float16), "keepOnDecode" (Eigen's bfloat16).
   */
  readonly nanPayload: NanPayload;
  /** P3109 semantics (no −0, one unsigned NaN) or vendor semantics (sign of zero and NaN kept where codes exist). */
  readonly signedZeroAndNaN: boolean;
  /** Name of the default projection; "vendor" formats default to their library's cast (e.g. ml_dtypes astype). */
  readonly defaultProjection: "P3109" | "ml_dtypes" | "ml_dtypes_e8m0" | "Tesla";
}

/** The parameters that define a format: its encoding and the cast policy of its library. */
export type FormatSpec = Encoding & CastPolicy;

/** A Format seen as an encoding only: code that implements the report's ω-functions takes this type. */
export type FormatEncoding = Omit<Format, "policy">;

/** Every defining field, once, in serialisation order, each marked as encoding or cast policy (the type forces all). */
const FIELD_KINDS: { readonly [F in keyof FormatSpec]-?: F extends keyof CastPolicy ? "policy" : "encoding" } = {
  name: "encoding",
  family: "encoding",
  K: "encoding",
  P: "encoding",
  bias: "encoding",
  signed: "encoding",
  infinity: "encoding",
  highNaNs: "encoding",
  negativeZero: "encoding",
  zero: "encoding",
  subnormals: "encoding",
  finiteOverflow: "policy",
  nanSubstitute: "policy",
  nanPayload: "policy",
  signedZeroAndNaN: "policy",
  defaultProjection: "policy",
};
export const FORMAT_FIELDS = Object.freeze(Object.keys(FIELD_KINDS)) as readonly (keyof FormatSpec)[];
const ENCODING_FIELDS = FORMAT_FIELDS.filter((k) => FIELD_KINDS[k] === "encoding") as readonly (keyof Encoding)[];
const POLICY_FIELDS = FORMAT_FIELDS.filter((k) => FIELD_KINDS[k] === "policy") as readonly (keyof CastPolicy)[];

/** The one identity key of a format: its defining fields in FORMAT_FIELDS order. */
function formatKey(spec: FormatSpec): string {
  return JSON.stringify(FORMAT_FIELDS.map((k) => spec[k]));
}

let construct: (spec: FormatSpec) => Format;

/** A Format's own fields are its Encoding (declared once there; the constructor copies them); its cast policy is apart. */
export interface Format extends Encoding {}

/** A format with every derived constant precomputed (P3109 §4.14 format queries and the code layout). */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every Encoding field, which the merged interface declares once
export class Format {
  /** What its library's cast does beyond the encoding (src/exact/cast.ts reads it; the ω-functions never do). */
  readonly policy: CastPolicy;
  /** Number of codes, 2^K. */
  readonly codeCount: number;
  /** Bits of the magnitude field: K−1 (signed) or K (unsigned). */
  readonly magnitudeBits: number;
  /** Value of the sign bit, 2^(K−1), or 0 for unsigned formats. */
  readonly signBit: number;
  /** Smallest NaN magnitude at the top of the range (= 2^magnitudeBits when there are none). */
  readonly highNaNStart: number;
  /** Magnitude code of +Inf, or −1. */
  readonly infMagnitude: number;
  /** Magnitude code of the largest finite value. */
  readonly maxFiniteMagnitude: number;
  /** Canonical (quiet, positive) NaN code, or −1 when the format has no NaN. */
  readonly nanCode: number;
  /** Codes of +Inf and −Inf, or −1. */
  readonly posInfCode: number;
  readonly negInfCode: number;
  /** ExponentBitwidthOf (P3109 §4.14: K−P signed, K−P+1 unsigned). */
  readonly exponentBits: number;
  /** TrailingSignificandBitwidthOf = P − 1. */
  readonly trailingBits: number;
  /** Smallest quantum exponent: the exponent of MinPositive's last significand bit (1 − bias − (P−1), or −bias − (P−1) without zero). */
  readonly minQuantumExponent: number;
  readonly signedness: Signedness;
  readonly domain: Domain;
  readonly hasNaN: boolean;

  /** The special codes as exact bigints (the number fields above are exact for K ≤ 53 only, e.g. not binary64). */
  readonly bigCodes: BigCodes;

  static {
    construct = (spec) => new Format(spec);
  }

  /** Use makeFormat: it validates and interns, so equal parameters give the same object. */
  private constructor(spec: FormatSpec) {
    for (const k of ENCODING_FIELDS) (this as Record<string, unknown>)[k] = spec[k];
    this.policy = Object.freeze(Object.fromEntries(POLICY_FIELDS.map((k) => [k, spec[k]]))) as unknown as CastPolicy;
    const { K, P, signed } = spec;
    const c = specialCodes(spec);
    this.bigCodes = c;
    this.codeCount = 2 ** K;
    this.magnitudeBits = signed ? K - 1 : K;
    this.signBit = Number(c.signBit);
    this.exponentBits = this.magnitudeBits - (P - 1);
    this.trailingBits = P - 1;
    this.highNaNStart = Number(c.highNaNStart);
    this.infMagnitude = Number(c.infMagnitude);
    this.maxFiniteMagnitude = Number(c.maxFinite);
    this.posInfCode = Number(c.posInf);
    this.negInfCode = Number(c.negInf);
    this.nanCode = Number(c.nan);
    this.hasNaN = c.nan >= 0n;
    this.minQuantumExponent = (spec.zero ? 1 : 0) - spec.bias - (P - 1);
    this.signedness = signed ? "Signed" : "Unsigned";
    this.domain = spec.infinity ? "Extended" : "Finite";
    Object.freeze(this);
  }

  /** Codes of the P3109 §4.14 extremal values. */
  get maxFiniteCode(): number {
    return this.maxFiniteMagnitude;
  }
  get minFiniteCode(): number {
    return this.signed ? this.maxFiniteMagnitude + this.signBit : 0;
  }
  get minPositiveCode(): number {
    return this.zero ? 1 : 0;
  }
  get minNormalCode(): number {
    if (!this.zero) return 0;
    return this.P === 1 ? 1 : 2 ** (this.P - 1);
  }
  /** MaxSubnormalOf: the NaN code (or −1 without NaN) when the format has no subnormals (P = 1, no zero, flushed). */
  get maxSubnormalCode(): number {
    if (this.P === 1 || !this.zero || this.subnormals === "flush") return this.nanCode;
    return 2 ** (this.P - 1) - 1;
  }

  /** Magnitude part of a code (the code itself for unsigned formats). */
  magnitudeOf(code: number): number {
    return this.signed ? code % this.signBit : code;
  }
  isNegativeCode(code: number): boolean {
    return this.signed && code >= this.signBit;
  }
  isNaNCode(code: number): boolean {
    const mag = this.magnitudeOf(code);
    if (mag >= this.highNaNStart) return true;
    return this.signed && this.negativeZero === "nan" && code === this.signBit;
  }
  isInfCode(code: number): boolean {
    return this.infinity && this.magnitudeOf(code) === this.infMagnitude;
  }

  toString(): string {
    return this.name;
  }

  /** A format serialises as its defining parameters (everything else is derived from them). */
  toJSON(): FormatSpec {
    return Object.fromEntries(
      FORMAT_FIELDS.map((k) => [k, FIELD_KINDS[k] === "policy" ? this.policy[k as keyof CastPolicy] : this[k as keyof Encoding]]),
    ) as unknown as FormatSpec;
  }
}

/** Special codes of a format; −1 where the datum does not exist. */
export interface BigCodes {
  readonly signBit: bigint;
  readonly highNaNStart: bigint;
  readonly infMagnitude: bigint;
  readonly maxFinite: bigint;
  readonly minFinite: bigint;
  readonly posInf: bigint;
  readonly negInf: bigint;
  /** The canonical NaN: the −0 slot (P3109 signed, FNUZ), the IEEE quiet NaN above +Inf, or the top code. */
  readonly nan: bigint;
}

/** Derives the special codes from the layout parameters (gfloat-style: NaNs at the top, Inf just below them). */
function specialCodes(spec: FormatSpec): BigCodes {
  const { K, P, signed } = spec;
  const magnitudeBits = BigInt(signed ? K - 1 : K);
  const signBit = signed ? 1n << BigInt(K - 1) : 0n;
  const highNaNStart = (1n << magnitudeBits) - BigInt(spec.highNaNs);
  const infMagnitude = spec.infinity ? highNaNStart - 1n : -1n;
  const maxFinite = (spec.infinity ? infMagnitude : highNaNStart) - 1n;
  let nan = -1n;
  if (signed && spec.negativeZero === "nan") nan = signBit;
  else if (spec.highNaNs > 0) {
    // The quiet NaN: IEEE-style formats set the most significant trailing bit above +Inf; others use the top code.
    const ieeeQuiet = spec.infinity && P >= 2 && spec.highNaNs >= 2 ** (P - 2);
    nan = ieeeQuiet ? infMagnitude + (1n << BigInt(P - 2)) : (1n << magnitudeBits) - 1n;
  }
  return {
    signBit,
    highNaNStart,
    infMagnitude,
    maxFinite,
    minFinite: signed ? maxFinite + signBit : 0n,
    posInf: infMagnitude,
    negInf: spec.infinity && signed ? infMagnitude + signBit : -1n,
    nan,
  };
}

/** Every Format, keyed by formatKey: equal parameters give the same object (and the same cached tables). */
const interned = new Map<string, Format>();

/** The interned Format of a spec; the spec is validated (typed errors naming the field) the first time. */
export function makeFormat(spec: FormatSpec): Format {
  if (spec === null || typeof spec !== "object") throw new FormatError("spec", `got ${describe(spec)}; allowed: { name, family, K, P, bias, signed, … }`);
  const key = formatKey(spec);
  let format = interned.get(key);
  if (!format) {
    validate(spec);
    format = construct(spec);
    if (format.maxFiniteMagnitude < 0) throw new FormatError("name", `${spec.name} has no finite values`);
    interned.set(key, format);
  }
  return format;
}

/** Validates the parameters shared by every family. */
function validate(spec: FormatSpec): void {
  const { K, P, bias, signed } = spec;
  if (!Number.isInteger(K) || K < 2 || K > 64) throw new FormatError("K", `got ${describe(K)}; allowed: an integer in [2, 64]`);
  if (typeof signed !== "boolean") throw new FormatError("signed", `got ${describe(signed)}; allowed: true or false`);
  if (!Number.isInteger(spec.highNaNs) || spec.highNaNs < 0)
    throw new FormatError("highNaNs", `got ${describe(spec.highNaNs)}; allowed: a non-negative integer`);
  const maxP = signed ? K - 1 : K;
  if (!Number.isInteger(P) || P < 1 || P > maxP) {
    throw new FormatError("P", `got ${describe(P)}; allowed: an integer in [1, ${maxP}] for a ${signed ? "signed" : "unsigned"} ${K}-bit format`);
  }
  if (!Number.isInteger(bias) || Math.abs(bias) > 2 ** 20) throw new FormatError("bias", `got ${describe(bias)}; allowed: an integer`);
  if (typeof spec.name !== "string" || spec.name.length === 0) throw new FormatError("name", `got ${describe(spec.name)}; allowed: a non-empty string`);
  for (const key of ["signed", "infinity", "zero", "signedZeroAndNaN"] as const) {
    if (typeof spec[key] !== "boolean") throw new FormatError(key, `got ${describe(spec[key])}; allowed: true or false`);
  }
  const choices = {
    negativeZero: ["zero", "nan"],
    subnormals: ["gradual", "flush"],
    finiteOverflow: ["clamp", "nan"],
    nanSubstitute: ["negzero-xor-sign", "maxfinite"],
    nanPayload: ["drop", "keep", "keepOnDecode"],
    defaultProjection: ["P3109", "ml_dtypes", "ml_dtypes_e8m0", "Tesla"],
  } as const;
  for (const [key, allowed] of Object.entries(choices)) {
    const v = spec[key as keyof typeof choices];
    if (!(allowed as readonly string[]).includes(v)) throw new FormatError(key, `got ${describe(v)}; allowed: ${allowed.join(", ")}`);
  }
  const magnitudes = 2 ** (signed ? K - 1 : K);
  if (!Number.isInteger(spec.highNaNs) || spec.highNaNs < 0 || spec.highNaNs >= magnitudes - 1) {
    throw new FormatError("highNaNs", `got ${describe(spec.highNaNs)}; allowed: an integer in [0, ${magnitudes - 2}]`);
  }
}
