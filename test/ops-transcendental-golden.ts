// Shared driver of the transcendental golden tests: decodes operands, evaluates the ω-operation once per exact
// input (at the largest precision any column of the table needs) and projects it for every column.
import { readdirSync } from "node:fs";
import { decodeExact } from "../src/exact/decode.js";
import { project } from "../src/exact/cast.js";
import type { ResolvedProjection, Rounding, Saturation } from "../src/exact/projection.js";
import { type Exact, NAN, ZERO, normalize } from "../src/exact/value.js";
import type { Format } from "../src/format/model.js";
import { format } from "../src/format/registry.js";
import { TRANSCENDENTAL } from "../src/ops/transcendental/index.js";
import { type Column, getArray, readP3gv, sharedPath } from "./golden/reader.js";

export const EXHAUSTIVE = (...p: string[]): string => sharedPath("golden", "p3109-exhaustive", ...p);

/** Lists unary container names (without extension) matching a predicate. */
export function unaryFiles(pred: (name: string) => boolean): string[] {
  return readdirSync(EXHAUSTIVE("unary"))
    .filter((n) => n.endsWith(".p3gv.gz"))
    .map((n) => n.slice(0, -".p3gv.gz".length))
    .filter(pred)
    .sort();
}

/** An operand as the ω-operations receive it: a normalised datum, no −0, unsigned NaN. */
export function operand(code: number, f: Format): Exact {
  const x = decodeExact(code, f);
  if (x.kind === "nan") return NAN;
  if (x.kind === "finite" && x.significand === 0n) return ZERO;
  return normalize(x);
}

export function rho(rounding: string, saturation: string, N = 0): ResolvedProjection {
  return { rounding: rounding as Rounding, saturation: saturation as Saturation, stochasticBits: N, vendor: "none" };
}

function key(x: Exact): string {
  return x.kind === "finite" ? `${x.sign}:${x.significand}:${x.exponent}` : `${x.kind}:${x.sign}`;
}

const cache = new Map<string, Exact>();

/** ω(args) at `precision`, memoised per (op, exact arguments, precision). */
export function omegaCached(op: string, args: Exact[], precision: number): Exact {
  const k = `${op}|${args.map(key).join("|")}|${precision}`;
  let r = cache.get(k);
  if (r === undefined) {
    r = TRANSCENDENTAL[op]!.omega(args, precision);
    cache.set(k, r);
  }
  return r;
}

export interface Mismatch {
  op: string;
  x: number;
  y?: number;
  column: string;
  expected: number;
  got: number;
}

export interface Outcome {
  checked: number;
  mismatches: Mismatch[];
  ops: string[];
}

function columnName(c: Column): string {
  return `${c.round}/${c.sat}${c.N ? `/N${c.N}` : ""}`;
}

/** Checks every transcendental row of a unary container (deterministic or stochastic). */
export function checkUnary(name: string): Outcome {
  const c = readP3gv(EXHAUSTIVE("unary", `${name}.p3gv.gz`));
  const fx = format(c.meta.fx.name as string);
  const fr = format(c.meta.fr.name as string);
  const results = getArray(c, "results");
  const Rs = c.arrays.get("R");
  const axisOps = (results.meta!.axes as [{ op: string[] }])[0].op;
  const columns = results.meta!.columns!;
  const [nOps, nCodes, nCols] = results.shape as [number, number, number];
  if (axisOps.length !== nOps || columns.length !== nCols) throw new Error(`${name}: unexpected layout`);
  const rhos = columns.map((col) => rho(col.round, col.sat, col.N ?? 0));
  const precision = Math.max(...rhos.map((r) => fr.P + r.stochasticBits + 3));
  const out: Outcome = { checked: 0, mismatches: [], ops: [] };
  for (let o = 0; o < nOps; o++) {
    const op = axisOps[o]!;
    if (!(op in TRANSCENDENTAL)) continue;
    out.ops.push(op);
    for (let x = 0; x < nCodes; x++) {
      const v = omegaCached(op, [operand(x, fx)], precision);
      for (let col = 0; col < nCols; col++) {
        const column = columns[col]!;
        const R = column.R === "per-row" ? Number(Rs!.data[(o * nCodes + x) * Rs!.shape[2]! + column.R_column!]) : Number(column.R ?? 0);
        const got = project(v, fr, rhos[col]!, R);
        const expected = Number(results.data[(o * nCodes + x) * nCols + col]);
        out.checked++;
        if (got !== expected && out.mismatches.length < 20) out.mismatches.push({ op, x, column: columnName(column), expected, got });
      }
    }
  }
  return out;
}

/** Checks the ArcTan2 / ArcTan2Pi rows of a binary container (y = x_code axis, x = y_code axis). */
export function checkBinaryAtan2(name: string): Outcome {
  const c = readP3gv(EXHAUSTIVE("binary", `${name}.p3gv.gz`));
  const f = format(c.meta.format.name as string);
  const other = getArray(c, "other");
  const axisOps = (other.meta!.axes as [{ op: string[] }])[0].op;
  const columns = other.meta!.columns!;
  const [, n, , nCols] = other.shape as [number, number, number, number];
  const rhos = columns.map((col) => rho(col.round, col.sat));
  const precision = f.P + 3;
  const out: Outcome = { checked: 0, mismatches: [], ops: [] };
  const decoded = Array.from({ length: n }, (_, i) => operand(i, f));
  for (const op of ["ArcTan2", "ArcTan2Pi"]) {
    const o = axisOps.indexOf(op);
    if (o < 0) throw new Error(`${name}: no ${op} rows`);
    out.ops.push(op);
    for (let yc = 0; yc < n; yc++) {
      for (let xc = 0; xc < n; xc++) {
        const v = atan2Cached(op, decoded[yc]!, decoded[xc]!, precision);
        for (let col = 0; col < nCols; col++) {
          const got = project(v, f, rhos[col]!, 0);
          const expected = Number(other.data[((o * n + yc) * n + xc) * nCols + col]);
          out.checked++;
          if (got !== expected && out.mismatches.length < 20) {
            out.mismatches.push({ op, x: yc, y: xc, column: columnName(columns[col]!), expected, got });
          }
        }
      }
    }
  }
  return out;
}

/**
 * ArcTan2 depends on (Y, X) only through the ratio and the signs for finite nonzero operands of one scale:
 * (Y·2^k, X·2^k) give the same value. Memoising on the operands shifted to X's exponent 0 removes most repeats.
 */
function atan2Cached(op: string, y: Exact, x: Exact, precision: number): Exact {
  if (y.kind === "finite" && x.kind === "finite" && y.significand !== 0n && x.significand !== 0n) {
    const s = x.exponent;
    return omegaCached(
      op,
      [
        { ...y, exponent: y.exponent - s },
        { ...x, exponent: 0 },
      ],
      precision,
    );
  }
  return omegaCached(op, [y, x], precision);
}
