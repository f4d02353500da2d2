// WGSL generated from a format's parameters: decoders (code → float32 bits or f32) and the integer-only encoder
// (float32 bits → code). Decoders compute the value from the format's fields with the compose rounding, proven on
// generation against decodeTable32 (the table the Wasm decode kernels upload) on every code; no table is indexed at
// run time (a dynamically indexed WGSL const array decoded 7× slower than the arithmetic on SwiftShader). The encoder
// writes the constants of src/kernel/encode-constants.ts (the Wasm kernel's) into the generic algorithm.
import { resolveFormat, type FormatLike } from "../api/scalar.js";
import { ArgumentTypeError, FormatError, ProjectionError, describe } from "../errors.js";
import { type Projection, isStochastic, resolveProjection } from "../exact/projection.js";
import { decodeTable32 } from "../exact/tables.js";
import type { Format } from "../format/model.js";
import { MAX_KERNEL_STOCHASTIC_BITS, encodeConstants, encodeSupported } from "../kernel/encode-constants.js";
import { checkOptions } from "../options.js";
import { compose, composeWgsl } from "./compose.js";

export const WGSL_OPS = ["decodeBits", "decode", "encodeBits"] as const;
export type WgslOp = (typeof WGSL_OPS)[number];

export interface WgslOptions {
  /** The function's name (default: the op and the format's name, e.g. `decodeBits_float8_e4m3fn`). */
  name?: string;
  /** encodeBits: the projection (default the format's); a stochastic rounding adds the `random` parameter. */
  projection?: Projection;
}

const WGSL_KEYS = ["name", "projection"] as const satisfies readonly (keyof WgslOptions)[];

/** `0x…u`: a u32 literal of a 32-bit pattern. */
export const u32 = (v: number): string => `0x${(v >>> 0).toString(16)}u`;
/** An i32 literal (bit pattern through bitcast, so −2^31 needs no special case). */
const i32 = (v: number): string => ((v | 0) >= 0 ? `${v | 0}i` : `bitcast<i32>(${u32(v)})`);

/**
 * The WGSL source of one self-contained function for a format of at most 16 bits: its helper, if any, is in the
 * text under a name that starts with the function's. `decodeBits`: `fn NAME(code: u32) -> u32`, the float32
 * bits of the code's value (the low K bits of code are read); `decode`: `fn NAME(code: u32) -> f32`; `encodeBits`:
 * `fn NAME(bits: u32) -> u32`, the code of a float32 given as bits under options.projection, integer arithmetic only;
 * under a stochastic rounding `fn NAME(bits: u32, random: u32) -> u32` with R = random < 2^N (P3109 §4.7.4).
 */
export function wgsl(fmt: FormatLike, op: WgslOp, options?: WgslOptions): string {
  const f = resolveFormat(fmt);
  if (f.K > 16) throw new FormatError("fmt", `${f.name} has ${f.K}-bit codes; allowed: a format of at most 16 bits`);
  if (!(WGSL_OPS as readonly string[]).includes(op)) throw new ArgumentTypeError("op", `got ${describe(op)}; allowed: ${WGSL_OPS.join(", ")}`);
  const o = checkOptions(options, WGSL_KEYS);
  const name = o.name ?? `${op}_${f.name}`;
  if (typeof name !== "string" || !/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) {
    throw new ArgumentTypeError("options.name", `got ${describe(name)}; allowed: a WGSL identifier (a letter, then letters, digits, _)`);
  }
  if (op !== "encodeBits" && o.projection !== undefined) throw new ArgumentTypeError("options.projection", `only allowed with op "encodeBits" (op is ${op})`);
  const source = (n: string) => {
    if (op === "encodeBits") return encodeWgsl(f, n, o.projection);
    if (op === "decodeBits") return decodeBitsWgsl(f, n);
    return `${decodeBitsWgsl(f, `${n}_bits`)}
fn ${n}(code: u32) -> f32 {
  return bitcast<f32>(${n}_bits(code));
}
`;
  };
  // The name must not be a keyword nor anything the function itself uses (u32, bitcast, select, max, its locals…):
  // WGSL would fail to compile it, asynchronously, far from this call. Generated once, under a placeholder name.
  const text = source(PLACEHOLDER);
  if (WGSL_KEYWORDS.has(name) || new Set(text.match(/[A-Za-z_][A-Za-z0-9_]*/g)).has(name)) {
    throw new ArgumentTypeError("options.name", `got ${describe(name)}, which is a WGSL keyword or a name this function uses; allowed: another identifier`);
  }
  return text.replaceAll(PLACEHOLDER, name);
}

/** The name the function is generated under (to list the identifiers it uses), then replaced by the caller's. */
const PLACEHOLDER = "minifloat_placeholder_name";
/** WGSL's keywords (W3C WGSL §15.1), which no declaration may take. */
const WGSL_KEYWORDS: ReadonlySet<string> = new Set(
  "alias break case const const_assert continue continuing default diagnostic discard else enable false fn for if let loop override requires return struct switch true var while".split(
    " ",
  ),
);

/** The field arithmetic of every format (decodeTable32 is the proof, not the code: see fieldRule). */
function decodeBitsWgsl(f: Format, name: string): string {
  return fieldDecoder(f, name, decodeTable32(f));
}

/** The rule of a decoder: the generic field arithmetic, and the codes where the table says otherwise. */
interface FieldRule {
  readonly K: number;
  readonly signed: boolean;
  readonly t: number;
  readonly bias: number;
  /** Subnormals: E = 0 has no hidden bit (formats with zero); flushed: their significand is 0. */
  readonly gradual: boolean;
  readonly zero: boolean;
  readonly maxFinite: number;
  readonly infMagnitude: number;
  /** NaN magnitudes: the quiet NaN, or ∞'s bits plus the top-aligned trailing bits (at least 1). */
  readonly nanPayload: boolean;
  /** Whether zeros and NaNs of negative codes carry the sign bit. */
  readonly signedSpecials: boolean;
  readonly exceptions: ReadonlyArray<readonly [number, number]>;
}

/** Codes the generic rule may leave to an explicit list (e.g. P3109's NaN at the negative-zero code). */
const MAX_EXCEPTIONS = 8;

function applyRule(r: FieldRule, code: number): number {
  const magBits = r.signed ? r.K - 1 : r.K;
  const mag = code % 2 ** magBits;
  const negative = r.signed && code >= 2 ** magBits;
  const s = negative ? 0x80000000 : 0;
  if (mag > r.maxFinite) {
    const sign = r.signedSpecials ? s : 0;
    if (mag === r.infMagnitude) return (s | 0x7f800000) >>> 0;
    if (!r.nanPayload) return (sign | 0x7fc00000) >>> 0;
    return (sign | (0x7f800000 + Math.max((mag % 2 ** r.t) * 2 ** (23 - r.t), 1))) >>> 0;
  }
  const E = Math.floor(mag / 2 ** r.t);
  const T = mag % 2 ** r.t;
  const subnormal = E === 0 && r.zero;
  const m = subnormal ? (r.gradual ? T : 0) : T + 2 ** r.t;
  const bits = compose(m, Math.max(E, subnormal ? 1 : E) - r.bias - r.t);
  return (bits | (m === 0 && !r.signedSpecials ? 0 : s)) >>> 0;
}

function fieldRule(f: Format, table: Uint32Array): FieldRule {
  const rule: FieldRule = {
    K: f.K,
    signed: f.signed,
    t: f.trailingBits,
    bias: f.bias,
    gradual: f.subnormals === "gradual",
    zero: f.zero,
    maxFinite: f.maxFiniteMagnitude,
    infMagnitude: f.infinity ? f.infMagnitude : -1,
    nanPayload: f.policy.signedZeroAndNaN && f.policy.nanPayload !== "drop" && f.infinity,
    signedSpecials: f.policy.signedZeroAndNaN,
    exceptions: [],
  };
  const exceptions: [number, number][] = [];
  for (let c = 0; c < table.length; c++) if (applyRule(rule, c) !== table[c]) exceptions.push([c, table[c]!]);
  if (exceptions.length > MAX_EXCEPTIONS) {
    throw new FormatError("fmt", `${f.name}: ${exceptions.length} codes differ from the field rule; allowed: formats whose table the rule reproduces`);
  }
  return { ...rule, exceptions };
}

function fieldDecoder(f: Format, name: string, table: Uint32Array): string {
  const r = fieldRule(f, table);
  const magBits = r.signed ? r.K - 1 : r.K;
  const specials = r.signedSpecials ? "s" : "0u";
  const nan = r.nanPayload ? `${specials} | (0x7f800000u + max((mag & ${u32(2 ** r.t - 1)}) << ${23 - r.t}u, 1u))` : `${specials} | 0x7fc00000u`;
  const m = r.zero ? `select(T | ${u32(2 ** r.t)}, ${r.gradual ? "T" : "0u"}, E == 0u)` : `T | ${u32(2 ** r.t)}`;
  const e = r.zero ? `i32(max(E, 1u)) - ${r.bias + r.t}` : `i32(E) - ${r.bias + r.t}`;
  const zeroSign = r.signedSpecials ? "s" : `select(s, 0u, m == 0u)`;
  // Magnitudes above MaxFinite (∞, NaNs), where the format has any.
  const inf = r.infMagnitude >= 0 ? `    if (mag == ${u32(r.infMagnitude)}) { return s | 0x7f800000u; }\n` : "";
  const specialsWgsl = r.maxFinite < 2 ** magBits - 1 ? `  if (mag > ${u32(r.maxFinite)}) {\n${inf}    return ${nan};\n  }\n` : "";
  return `${composeWgsl(`${name}_compose`)}
fn ${name}(code: u32) -> u32 {
  let c = code & ${u32(2 ** r.K - 1)};
${r.exceptions.map(([c, v]) => `  if (c == ${u32(c)}) { return ${u32(v)}; }\n`).join("")}  let mag = c & ${u32(2 ** magBits - 1)};
  let s = ${r.signed ? `(c >> ${r.K - 1}u) << 31u` : "0u"};
${specialsWgsl}  let E = mag >> ${r.t}u;
  let T = mag & ${u32(2 ** r.t - 1)};
  let m = ${m};
  return ${name}_compose(m, ${e}) | ${zeroSign};
}
`;
}

const INT_MIN = -(2 ** 31);

/** `select(a, b, cond)` as u32, or the one literal when a = b. */
const pick = (a: number, b: number, cond: string): string => (a === b ? u32(a) : `select(${u32(a)}, ${u32(b)}, ${cond})`);
/** A u32 sum without its zero terms. */
const sum = (terms: string[]): string => terms.filter((t) => t !== "0x0u").join(" + ") || "0u";

/** The encoder: the generic kernel's per-lane algorithm (assembly/encode-generic.ts) with integer-only steps. */
function encodeWgsl(f: Format, name: string, projection: Projection | undefined): string {
  const rho = resolveProjection(f, projection, "options.projection");
  const stochastic = isStochastic(rho.rounding);
  if (stochastic && rho.stochasticBits > MAX_KERNEL_STOCHASTIC_BITS) {
    throw new ProjectionError("options.projection.stochasticBits", `is ${rho.stochasticBits}; allowed: at most ${MAX_KERNEL_STOCHASTIC_BITS} in encodeBits`);
  }
  if (!encodeSupported(f, rho)) throw new FormatError("fmt", `${f.name} has no generated encoder; allowed: formats the encode constants cover`);
  const c = encodeConstants(f, rho);
  const threshold = new Uint32Array(new Float32Array([c.quirkThreshold]).buffer)[0]!;
  const lines = [
    `fn ${name}(bits: u32${stochastic ? ", random: u32" : ""}) -> u32 {`,
    "  let a = bits & 0x7fffffffu;",
    "  let neg = (bits >> 31u) != 0u;",
    "  let sub32 = a < 0x00800000u;",
    // The normal path reads float32 bits; a float32 subnormal is renormalised (its exponent field then reads 149 too
    // high), as the Wasm kernel's int → float conversion does, here by counting leading zeros.
    "  let h = 31u - countLeadingZeros(a);",
    "  let renorm = select(0u, ((h + 127u) << 23u) | ((a << (23u - h)) & 0x7fffffu), a != 0u);",
    "  let bn = select(bitcast<i32>(a), bitcast<i32>(renorm) - 0x4a800000i, sub32);",
    `  let magN = (bn >> ${c.shift}u) + ${i32(c.magOffset)};`,
    `  let nuN = bitcast<u32>(bn & ${i32(c.remainderMask)}) << ${c.fractionShift}u;`,
    // The subnormal path: y = |x|·2^scaleExponent exactly, as M·2^s with the float32 significand M; ⌊y⌋ and the
    // fraction ν as 31 bits and a sticky bit.
    "  let M = select((a & 0x7fffffu) | 0x800000u, a, sub32);",
    `  let s = select(i32(a >> 23u) - 150, -149, sub32) + ${c.scaleExponent};`,
    "  var fl = 0i;",
    "  var nuS = 0u;",
    "  if (s >= 0) {",
    "    fl = select(bitcast<i32>(M << u32(s)), 0x7fffffffi, s > 7 && (s > 31 || (M >> u32(31 - s)) != 0u));",
    "  } else {",
    "    let r = u32(-s);",
    "    fl = select(bitcast<i32>(M >> r), 0i, r >= 32u);",
    "    let rem = select(M & ((1u << r) - 1u), M, r >= 32u);",
    "    if (r <= 31u) {",
    "      nuS = (rem << (31u - r)) << 1u;",
    "    } else {",
    "      let k = r - 31u;",
    "      let kept = select(rem >> k, 0u, k >= 32u);",
    "      let lost = select(rem & ((1u << k) - 1u), rem, k >= 32u);",
    "      nuS = (kept << 1u) | select(0u, 1u, lost != 0u);",
    "    }",
    "  }",
    `  let normal = bn >= ${i32(c.normalMin)};`,
    "  let truncated = select(fl, magN, normal);",
    ...(c.stageC
      ? [
          // StochasticC rounds ν to N bits (ties to even) first; that carry is a round-away too.
          "  let nu0 = select(nuS, nuN, normal);",
          `  let nu = nu0 + ${u32(c.cHalf)} + ((nu0 >> ${c.cShift}u) & ${u32(c.cBit)});`,
          "  let carryC = nu < nu0;",
        ]
      : ["  let nu = select(nuS, nuN, normal);"]),
    // RoundAway (P3109 §4.7.4) as the carry out of ν + T.
    `  let t = ${sum([u32(c.tBase), pick(c.tEven, c.tOdd, "(truncated & 1i) != 0i"), pick(c.tPositive, c.tNegative, "neg"), ...(stochastic ? [`(random << ${c.randomShift}u)`] : [])])};`,
    `  let kept = nu & ${u32(c.fractionMask)};`,
    `  let away = kept + t < kept${c.stageC ? " || carryC" : ""};`,
    `  var mag = select(${c.zeroMagnitude ? `fl + ${i32(c.zeroMagnitude)}` : "fl"}, magN, normal) + select(0i, 1i, away);`,
    ...(c.flushBelow !== INT_MIN ? [`  if (mag < ${i32(c.flushBelow)}) { mag = 0i; }`] : []),
    "  let zeroIn = a == 0u;",
    `  let zero = zeroIn || mag == ${i32(c.zeroMagnitude)};`,
    `  let over = mag > ${i32(c.maxMagnitude)};`,
    // ωSaturate/ωEncode (§4.7.5–4.7.6): the outcome codes the host read off the exact reference for this projection.
    `  var code = select(${sum(["bitcast<u32>(mag)", pick(0, c.signBit, "neg")])}, ${pick(0, c.negativeZero, "neg")}, zero);`,
    `  if (over && !(neg || zero)) { code = ${u32(c.above)}; }`,
    `  if (${c.noZero ? "(" : ""}neg && ${c.unsigned ? "(over || !zero)" : "over"}${c.noZero ? ") || zero" : ""}) { code = ${pick(c.belowPositive, c.belowNegative, "neg")}; }`,
    `  if (a == 0x7f800000u) { code = ${pick(c.infPositive, c.infNegative, "neg")}; }`,
    c.keepPayload
      ? `  if (a > 0x7f800000u) { code = ${sum([pick(c.nanPositive, c.nanNegative, "neg"), `max((a & 0x7fffffu) >> ${c.shift}u, 1u)`, u32(c.keepOffset)])}; }`
      : `  if (a > 0x7f800000u) { code = ${pick(c.nanPositive, c.nanNegative, "neg")}; }`,
    // ml_dtypes' float8_e8m0fnu cast: positive float32 subnormals give MinPositive up to its value, the next code above.
    ...(c.quirk ? [`  if (sub32 && !neg && !zeroIn) { code = ${sum([u32(c.minPositive), `select(0u, 1u, a > ${u32(threshold)})`])}; }`] : []),
    "  return code;",
    "}",
  ];
  return `${lines.join("\n")}\n`;
}
