// Conformance description (P3109 §4.5, §4.6, in the working group's declaration-file scheme): the mandatory
// specializations, a "is this specialization supported" query, and the four declaration files generated from the
// operation catalogue and from κ measured exhaustively at generation time.
import { ArgumentTypeError, describe as describeValue } from "../errors.js";
import { ROUNDINGS, SATURATIONS, type Rounding, type Saturation } from "../exact/projection.js";
import { type Exact, toNumberExact } from "../exact/value.js";
import { MIN_MAX_OPS } from "./extrema.js";
import { type KappaPiece, approximate, approximationNames, kappaOf } from "./kappa.js";
import { operationInfo, operationNames } from "./registry.js";
import { FORMAT_QUERIES } from "./queries.js";
import { type Specialization, specialize } from "./specialize.js";
import { checkOptions } from "../options.js";

export const IMPLEMENTATION = { name: "minifloat", version: "0.1.0", uri: "https://www.npmjs.com/package/minifloat" } as const;

/** §4.5 format sets: F8, F4 and the external formats this implementation declares (FX: all three allowed). */
export const F8 = ["Binary8p4se", "Binary8p3se"] as const;
export const F4 = ["Binary4p2sf"] as const;
export const FX = ["binary32", "binary16", "bfloat16"] as const;
export const SCALE_FORMAT = "Binary8p1uf";
const RHO = "(NearestTiesToEven, SatNone)";

/** A specialization in report notation with its operand and result formats (ρ = (NearestTiesToEven, SatNone)). */
export interface Mandatory {
  readonly op: string;
  readonly operands: readonly string[];
  readonly result?: string;
  readonly signature: string;
}

/** Every specialization §4.5 requires of a conforming implementation, with FX = {binary32, binary16, bfloat16}. */
export function mandatorySpecializations(): Mandatory[] {
  const out: Mandatory[] = [];
  const small = [...F4, ...F8];
  const all = [...F4, ...F8, ...FX];
  const numeric = (op: string, operands: string[], result: string): void => {
    out.push({ op, operands, result, signature: `${op}<${[...operands, result].join(", ")}, ${RHO}>` });
  };
  const plain = (op: string, operands: string[]): void => {
    out.push({ op, operands, signature: `${op}<${operands.join(", ")}>` });
  };
  for (const f of all) for (const fr of all) numeric("Convert", [f], fr);
  for (const f of all) for (const fr of all) numeric("Recip", [f], fr);
  for (const f of small) for (const op of ["Negate", "Abs"]) numeric(op, [f], f);
  for (const op of ["Add", "Subtract", "Multiply"]) {
    for (const f1 of small) for (const f2 of small) for (const fr of [...F8, ...FX]) numeric(op, [f1, f2], fr);
  }
  for (const op of ["FMA", "FAA"]) for (const f1 of small) for (const f2 of small) for (const fr of FX) numeric(op, [f1, f2, fr], fr);
  for (const f of small) {
    for (const op of MIN_MAX_OPS) numeric(op, [f, f], f);
    for (const op of ["CompareLess", "CompareLessEqual", "CompareEqual", "CompareGreater", "CompareGreaterEqual"]) plain(op, [f, f]);
    for (const op of ["IsZero", "IsOne", "IsNaN", "IsInfinite", "IsFinite", "IsSignMinus", "IsNormal", "IsSubnormal", "NextGreaterThan", "NextLessThan"])
      plain(op, [f]);
  }
  for (const f of all) for (const q of FORMAT_QUERIES) plain(q, [f]);
  for (const op of ["ScaledAdd", "ScaledSubtract", "ScaledMultiply"]) {
    for (const f1 of small) for (const f2 of small) for (const fr of [...F8, ...FX]) numeric(op, [SCALE_FORMAT, f1, SCALE_FORMAT, f2], fr);
  }
  return out;
}

/** Splits "a, (b, c), d" at top-level commas. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "(" || ch === "[") depth++;
    else if (ch === ")" || ch === "]") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (s.trim().length > 0) parts.push(s.slice(start).trim());
  return parts;
}

/**
 * The specialization named by a report-style signature, e.g. "Add<Binary8p3se, Binary8p4se, binary16,
 * (NearestTiesToEven, SatNone)>" (§4.6 naming; ρ may be omitted for the default). Throws the validation error of
 * `specialize` when it is not supported.
 */
export function specializationOf(signature: string): Specialization {
  if (typeof signature !== "string")
    throw new ArgumentTypeError(
      "signature",
      `got ${describeValue(signature)}; allowed: a string like "Add<Binary8p3se, Binary8p3se, Binary8p3se, (NearestTiesToEven, SatNone)>"`,
    );
  const m = /^\s*([A-Za-z0-9]+)\s*<(.*)>\s*$/.exec(signature);
  if (!m) throw new ArgumentTypeError("signature", `got ${JSON.stringify(signature)}; allowed: Op<formats…[, (rounding, saturation)]>`);
  const name = m[1]!;
  const params = splitTopLevel(m[2]!);
  let projection: { rounding?: Rounding; saturation?: Saturation } = {};
  const last = params[params.length - 1];
  if (last?.startsWith("(")) {
    const [rounding, saturation] = splitTopLevel(last.slice(1, -1));
    projection = { rounding: rounding as Rounding, saturation: saturation as Saturation };
    params.pop();
  }
  const info = operationInfo(name);
  if (info?.kind === "numeric") return specialize(name, { operands: params.slice(0, -1), result: params[params.length - 1]!, ...projection });
  return specialize(name, { operands: params, ...projection });
}

/** §4.6 (recommended): whether the specialization named by `signature` is supported. */
export function isSupported(signature: string): boolean {
  try {
    specializationOf(signature);
    return true;
  } catch {
    return false;
  }
}

export interface ConformanceOptions {
  /** ISO timestamp written into every Metadata block (defaults to now). */
  timestamp?: string;
  provider?: string;
  email?: string;
}

const CONFORMANCE_KEYS = ["timestamp", "provider", "email"] as const satisfies readonly (keyof ConformanceOptions)[];

function metadata(file: string, o: ConformanceOptions): string {
  return [
    "Metadata:",
    '  conformance: "IEEE SA P3109"',
    '  version: "3.2.0"',
    `  provider: "${o.provider ?? "minifloat contributors"}"`,
    "  contact:",
    `    email: "${o.email ?? ""}"`,
    `    uri: "${IMPLEMENTATION.uri}"`,
    "  implementation:",
    `    name: "${IMPLEMENTATION.name}"`,
    `    version: "${IMPLEMENTATION.version}"`,
    `    timestamp: "${o.timestamp ?? new Date().toISOString()}"`,
    `  uri: "${file}"`,
    "",
  ].join("\n");
}

const DETERMINISTIC = ROUNDINGS.filter((r) => !r.startsWith("Stochastic") && r !== "TowardMaxMagnitude");

function configurations(o: ConformanceOptions): string {
  const lines = [
    metadata("Configurations.yaml", o),
    "# Every P3109 operation minifloat implements accepts every P3109 format (3 <= K <= 16) and the external",
    "# formats below as operands and results, under every projection listed here (report v4.0).",
    "Configurations:",
    "  Exact:",
    "    IEEE754: [binary16, bfloat16, binary32, binary64]",
    "    Projections:",
    "      Rounding:",
    ...DETERMINISTIC.map((r) => `        - ${r}`),
    ...(["StochasticA", "StochasticB", "StochasticC"] as const).map((r) =>
      [
        `        - ${r}:`,
        "            - bits: ('1:32')",
        '              notes: "R supplied per element by the caller, or N bits of a counter-based lowbias32 stream keyed by (seed, index)"',
      ].join("\n"),
    ),
    `      Saturation: [${SATURATIONS.join(", ")}]`,
    "    BlockSizes:",
    "      core: [1]",
    "      accelerated: [1]",
    "      supported: [1]",
    `    KappaApproximate: [${approximationNames().join(", ")}]`,
    "",
  ];
  return lines.join("\n");
}

function profiles(o: ConformanceOptions): string {
  return [
    metadata("Profiles.yaml", o),
    "Profiles:",
    "  Exact:",
    "    formats:",
    `      - (' [ "Binary$(K)p$(P)s$(d)" for K in 3:16 for P in 1:(K-1) for d in ["e", "f"] ] ')`,
    `      - (' [ "Binary$(K)p$(P)u$(d)" for K in 3:16 for P in 1:K for d in ["e", "f"] ] ')`,
    "      - binary16",
    "      - bfloat16",
    "      - binary32",
    "      - binary64",
    "",
  ].join("\n");
}

function constraints(o: ConformanceOptions): string {
  const p3109Only = `(' fx not in [binary16, bfloat16, binary32, binary64] ')`;
  return [
    metadata("Constraints.yaml", o),
    "Constraints:",
    "  Exact:",
    '    "NextGreaterThan<fx>(x) -> r":',
    `      Requires: [${p3109Only}]`,
    '    "NextLessThan<fx>(x) -> r":',
    `      Requires: [${p3109Only}]`,
    '    "ScaledAdd<(fs, fx), (fs, fy), fr, ρ>(sx, x, sy, y) -> r":',
    "      Requires: [(' BlockSize == 1 ')]",
    '    "ScaledSubtract<(fs, fx), (fs, fy), fr, ρ>(sx, x, sy, y) -> r":',
    "      Requires: [(' BlockSize == 1 ')]",
    '    "ScaledMultiply<(fs, fx), (fs, fy), fr, ρ>(sx, x, sy, y) -> r":',
    "      Requires: [(' BlockSize == 1 ')]",
    "",
  ].join("\n");
}

/** The formats and projections whose κ is measured and declared for each approximate function. */
export const KAPPA_VARIANTS: readonly { format: string; rounding: Rounding; saturation: Saturation }[] = [
  { format: "Binary8p4se", rounding: "NearestTiesToEven", saturation: "SatNone" },
  { format: "Binary8p3se", rounding: "NearestTiesToEven", saturation: "SatNone" },
  { format: "Binary8p4se", rounding: "TowardZero", saturation: "SatFinite" },
  { format: "Binary8p3se", rounding: "TowardZero", saturation: "SatFinite" },
  { format: "Binary8p4se", rounding: "TowardPositive", saturation: "SatNone" },
  { format: "Binary8p3se", rounding: "TowardPositive", saturation: "SatNone" },
];

/** κ of every declared variant, measured exhaustively now (the numbers of Kappas.yaml). */
export function declaredKappas(): DeclaredKappa[] {
  const out: DeclaredKappa[] = [];
  for (const name of approximationNames()) {
    let i = 0;
    for (const v of KAPPA_VARIANTS) {
      const a = approximate(name, { operands: [v.format], result: v.format, rounding: v.rounding, saturation: v.saturation });
      const k = kappaOf(a, { pieces: PIECES[name] ?? WHOLE_LINE });
      out.push({
        name,
        variant: `${name}.${++i}`,
        format: v.format,
        rounding: v.rounding,
        saturation: v.saturation,
        approximates: a.approximates,
        kappa: k.kappa,
        pieces: k.pieces!,
      });
    }
  }
  return out;
}

export interface DeclaredKappa {
  name: string;
  variant: string;
  format: string;
  rounding: Rounding;
  saturation: Saturation;
  approximates: string;
  kappa: number;
  /** κ per interval of the operand (a disjoint cover of [−Inf, Inf] plus NaN). */
  pieces: { label: string; kappa: number }[];
}

/** x < c for an operand value (−∞ included; NaN in no piece but the whole line's). */
const below =
  (c: number) =>
  ([x]: Exact[]): boolean =>
    x!.kind === "infinity" ? x!.sign < 0 : x!.kind === "finite" && (toNumberExact(x!) ?? 0) < c;
const notBelow =
  (c: number) =>
  ([x]: Exact[]): boolean =>
    x!.kind !== "nan" && !below(c)([x!]);
const WHOLE_LINE: KappaPiece[] = [{ label: "[ -Inf, Inf ]", contains: ([x]) => x!.kind !== "nan" }];
/** ExpFast flushes e^x to 0 below float64's subnormal range (x < −745), where Exp still gives a positive result. */
const PIECES: Record<string, KappaPiece[]> = {
  ExpFast: [
    { label: "[ -Inf, -745 )", contains: below(-745) },
    { label: "[ -745, Inf ]", contains: notBelow(-745) },
  ],
};

function yamlNumber(k: number): string {
  return Number.isNaN(k) ? ".nan" : k === Infinity ? ".inf" : String(k);
}

function kappas(o: ConformanceOptions): string {
  const lines = [metadata("Kappas.yaml", o), "Kappas:"];
  for (const k of declaredKappas()) {
    const op = k.approximates.split("<")[0];
    lines.push(
      `  ${k.variant}:`,
      `    Approximates: "${op}<fx, fr, ρ>(x) -> r"`,
      `    Requires: [(' fx == fr '), (' fx == ${k.format} ')]`,
      `    Projections: [[${k.rounding}, ${k.saturation}]]`,
      "    Kappas:",
      ...(Number.isFinite(k.kappa) ? k.pieces : [{ label: "[ -Inf, Inf ]", kappa: k.kappa }]).map(
        (p) => `      - {interval: '${p.label}', kappa: ${yamlNumber(p.kappa)}}`,
      ),
      "    Verification:",
      `      method: "exhaustive: every code of ${k.format}, compared with the exact ${k.approximates}"`,
      "      function:",
      '        uri: "src/ops/kappa.ts"',
    );
  }
  lines.push("");
  return lines.join("\n");
}

/** The four declaration files of a conforming implementation (Exemplars scheme), generated from the catalogue. */
export function conformanceFiles(options: ConformanceOptions = {}): Record<string, string> {
  checkOptions(options, CONFORMANCE_KEYS);
  return {
    "Configurations.yaml": configurations(options),
    "Profiles.yaml": profiles(options),
    "Constraints.yaml": constraints(options),
    "Kappas.yaml": kappas(options),
  };
}

export { operationNames };
