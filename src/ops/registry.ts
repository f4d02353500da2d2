// The operation catalogue: every P3109 operation minifloat implements, with its kind, arity, Annex G group and
// report section. `specialize` (specialize.ts) and the conformance declarations (conformance.ts) read this table.
import * as A from "./arithmetic.js";
import type { Omega } from "./arithmetic.js";
import * as C from "./comparison.js";
import type { Predicate } from "./comparison.js";
import * as E from "./extrema.js";
import { FORMAT_QUERIES } from "./queries.js";
import * as S from "./scaled.js";
import { TRANSCENDENTAL } from "./transcendental/index.js";

/**
 * numeric: projected floating-point result (ωProject_{fr,ρ} ∘ ωOp ∘ ωDecode); predicate: Boolean; class: §4.13
 * Class name; next: code arithmetic in the operand format (§4.16); query: §4.14 format query (no operands);
 * projection: §4.15 RoundOf/SatOf.
 */
export type OpKind = "numeric" | "predicate" | "class" | "next" | "query" | "projection";

/** Annex G group (A Core, B Basic, C Full, M Meta); "S" for the §5.5 scaled operations, "P" for §4.15 queries. */
export type OpGroup = "A" | "B" | "C" | "M" | "S" | "P";

export interface OpInfo {
  readonly name: string;
  readonly kind: OpKind;
  /** Number of operand codes (scaled operations take (s1, x1, s2, x2)). */
  readonly arity: number;
  readonly group: OpGroup;
  /** Report section that defines the operation. */
  readonly section: string;
  readonly omega?: Omega;
  readonly predicate?: Predicate;
  /** Transcendental ω-functions (helper module src/ops/transcendental). */
  readonly transcendental?: boolean;
}

const table = new Map<string, OpInfo>();

function put(info: OpInfo): void {
  table.set(info.name, Object.freeze(info));
}

const numeric = (name: string, arity: number, group: OpGroup, section: string, omega: Omega): void =>
  put({ name, kind: "numeric", arity, group, section, omega });
const predicate = (name: string, arity: number, group: OpGroup, section: string, p: Predicate): void =>
  put({ name, kind: "predicate", arity, group, section, predicate: p });

// Annex G group A (Core).
numeric("Convert", 1, "A", "§4.9.1", A.Convert);
numeric("Negate", 1, "A", "§4.10", A.Negate);
numeric("Abs", 1, "A", "§4.10", A.Abs);
numeric("Add", 2, "A", "§4.10", A.Add);
numeric("Subtract", 2, "A", "§4.10", A.Subtract);
numeric("Multiply", 2, "A", "§4.10", A.Multiply);
numeric("FMA", 3, "A", "§4.10", A.FMA);
numeric("FAA", 3, "A", "§4.10", A.FAA);
for (const name of E.MIN_MAX_OPS) {
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the catalogue registers the module's operations by their report names
  numeric(name, 2, "A", "§4.11", E[name]);
}
numeric("Clamp", 3, "A", "§4.11", E.Clamp);
for (const name of ["CompareLess", "CompareLessEqual", "CompareEqual", "CompareGreater", "CompareGreaterEqual"] as const) {
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the catalogue registers the module's operations by their report names
  predicate(name, 2, "A", "§4.12", C[name]);
}
for (const name of ["IsZero", "IsOne", "IsNaN", "IsInfinite", "IsFinite", "IsSignMinus", "IsNormal", "IsSubnormal"] as const) {
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the catalogue registers the module's operations by their report names
  predicate(name, 1, "A", "§4.13", C[name]);
}

// Annex G group B (Basic), without the transcendental functions.
numeric("Divide", 2, "B", "§4.10", A.Divide);
numeric("Sqrt", 1, "B", "§4.10", A.Sqrt);
numeric("Recip", 1, "B", "§4.10", A.Recip);
numeric("RSqrt", 1, "B", "§4.10", A.RSqrt);
put({ name: "NextGreaterThan", kind: "next", arity: 1, group: "B", section: "§4.16" });
put({ name: "NextLessThan", kind: "next", arity: 1, group: "B", section: "§4.16" });
numeric("CopySign", 2, "B", "§4.10", A.CopySign);
predicate("TotalOrder", 2, "B", "§4.12", C.TotalOrder);
put({ name: "Class", kind: "class", arity: 1, group: "B", section: "§4.13" });

// Annex G group C (Full), without the transcendental functions.
numeric("Hypot", 2, "C", "§4.10", A.Hypot);

// Annex G group M (Meta) and the §4.15 projection queries.
for (const q of FORMAT_QUERIES) put({ name: q, kind: "query", arity: 0, group: "M", section: "§4.14" });
put({ name: "RoundOf", kind: "projection", arity: 0, group: "P", section: "§4.15" });
put({ name: "SatOf", kind: "projection", arity: 0, group: "P", section: "§4.15" });

// §5.5 scaled operations: operands (s1, x1, s2, x2).
numeric("ScaledAdd", 4, "S", "§5.5", S.ScaledAdd);
numeric("ScaledSubtract", 4, "S", "§5.5", S.ScaledSubtract);
numeric("ScaledMultiply", 4, "S", "§5.5", S.ScaledMultiply);

/** Annex G groups B and C: which transcendental functions belong to B (the rest are C). */
const GROUP_B_TRANSCENDENTAL = new Set(["Exp", "Exp2", "ExpMinusOne", "Log", "Log2", "LogOnePlus", "Softplus"]);

// §4.10 transcendental ω-functions.
for (const [name, { arity, omega }] of Object.entries(TRANSCENDENTAL)) {
  put({ name, kind: "numeric", arity, group: GROUP_B_TRANSCENDENTAL.has(name) ? "B" : "C", section: "§4.10", omega, transcendental: true });
}

/** The operation named `name`, or undefined. */
export function operationInfo(name: string): OpInfo | undefined {
  return table.get(name);
}

/** Every operation name, in catalogue order. */
export function operationNames(): string[] {
  return [...table.keys()];
}
