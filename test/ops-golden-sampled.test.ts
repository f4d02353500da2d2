// Sampled records, bit for bit with `spec`: golden/p3109-exhaustive/sampled/{binary_ops, ternary_ops, scaled_ops}
// (mixed and external formats, every projection incl. stochastic ones) and golden/p3109/{ops8, scaled_blocks}.jsonl.gz
// (the second, independent oracle) for every non-transcendental operation record.
import { describe, expect, it } from "vitest";
import { type Code, type Specialization, specialize } from "../src/ops/index.js";
import { readJsonl, readP3gv, sharedPath } from "./golden/reader.js";
import { Mismatches, TRANSCENDENTAL_NAMES, projectionOf, records } from "./ops-helpers.js";

/** One specialization per distinct (op, formats, projection). */
const cache = new Map<string, Specialization>();
function spec(op: string, operands: string[], result: string | undefined, projection: object): Specialization {
  const key = JSON.stringify([op, operands, result, projection]);
  let s = cache.get(key);
  if (!s) cache.set(key, (s = specialize(op, { operands, ...(result !== undefined && { result }), ...projection })));
  return s;
}

const code = (f: string, v: number): Code => (f === "binary64" ? BigInt(v) : v);

describe("sampled/*.p3gv.gz", () => {
  const dir = ["golden", "p3109-exhaustive", "sampled"];

  it("binary_ops: all non-transcendental records (16 ops × 15 format combos, every projection)", () => {
    const c = readP3gv(sharedPath(...dir, "binary_ops.p3gv.gz"));
    const { ops, combos } = c.meta as { ops: string[]; combos: string[][] };
    const r = records(c);
    const m = new Mismatches();
    const seenOps = new Set<string>();
    for (let i = 0; i < r.length; i++) {
      const op = ops[r.op[i]!]!;
      if (TRANSCENDENTAL_NAMES.has(op)) continue;
      seenOps.add(op);
      const [fx, fy, fr] = combos[r.combo[i]!]!;
      const proj = projectionOf(r.round[i]!, r.sat[i]!, r.N[i]!);
      const s = spec(op, [fx!, fy!], fr!, proj);
      const got = proj.stochasticBits ? s(r.x[i]!, r.y[i]!, { random: r.R[i]! }) : s(r.x[i]!, r.y[i]!);
      m.add(got === r.spec[i], () => `${s.signature}(${r.x[i]}, ${r.y[i]}, R=${r.R[i]}) = ${got}, spec ${r.spec[i]}`);
    }
    expect(seenOps.size).toBe(16);
    expect(m.checked).toBeGreaterThan(150000);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });

  it("ternary_ops: FMA, FAA, Clamp records (P3109 combos and binary32/binary16/bfloat16 addend and result)", () => {
    const c = readP3gv(sharedPath(...dir, "ternary_ops.p3gv.gz"));
    const { ops, combos } = c.meta as { ops: string[]; combos: string[][] };
    const r = records(c);
    const m = new Mismatches();
    const byOp = new Map<string, number>();
    for (let i = 0; i < r.length; i++) {
      const op = ops[r.op[i]!]!;
      byOp.set(op, (byOp.get(op) ?? 0) + 1);
      const [fx, fy, fz, fr] = combos[r.combo[i]!]!;
      const proj = projectionOf(r.round[i]!, r.sat[i]!, r.N[i]!);
      const s = spec(op, [fx!, fy!, fz!], fr!, proj);
      const args = [r.x[i]!, r.y[i]!, r.z[i]!] as const;
      const got = proj.stochasticBits ? s(...args, { random: r.R[i]! }) : s(...args);
      m.add(got === r.spec[i], () => `${s.signature}(${args.join(", ")}, R=${r.R[i]}) = ${got}, spec ${r.spec[i]}`);
    }
    expect([...byOp.keys()].sort()).toEqual(["Clamp", "FAA", "FMA"]);
    expect(m.checked).toBe(r.length);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });

  it("scaled_ops: ScaledAdd, ScaledSubtract, ScaledMultiply with Binary8p1uf scales (operands s1 = z, x1 = x, s2 = w, x2 = y)", () => {
    const c = readP3gv(sharedPath(...dir, "scaled_ops.p3gv.gz"));
    const { ops, combos } = c.meta as { ops: string[]; combos: string[][] };
    const r = records(c);
    const m = new Mismatches();
    for (let i = 0; i < r.length; i++) {
      const op = ops[r.op[i]!]!;
      const [fs1, f1, fs2, f2, fr] = combos[r.combo[i]!]!;
      const proj = projectionOf(r.round[i]!, r.sat[i]!, r.N[i]!);
      const s = spec(op, [fs1!, f1!, fs2!, f2!], fr!, proj);
      const args = [r.z[i]!, r.x[i]!, r.w[i]!, r.y[i]!] as const;
      const got = proj.stochasticBits ? s(...args, { random: r.R[i]! }) : s(...args);
      m.add(got === r.spec[i], () => `${s.signature}(${args.join(", ")}, R=${r.R[i]}) = ${got}, spec ${r.spec[i]}`);
    }
    expect(m.checked).toBe(63000);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });
});

describe("golden/p3109 (second oracle)", () => {
  it("ops8.jsonl.gz: every record of a non-transcendental operation", async () => {
    const m = new Mismatches();
    const byOp = new Map<string, number>();
    for await (const rec of readJsonl(sharedPath("golden", "p3109", "ops8.jsonl.gz"))) {
      const op = rec.op as string;
      if (TRANSCENDENTAL_NAMES.has(op)) continue;
      byOp.set(op, (byOp.get(op) ?? 0) + 1);
      const operands = [rec.fx, rec.fy, rec.fz].filter((f) => f !== undefined) as string[];
      const args = [rec.x, rec.y, rec.z].slice(0, operands.length).map((v, k) => code(operands[k]!, v));
      const numeric = rec.rnd !== undefined;
      const proj = numeric ? { rounding: rec.rnd, saturation: rec.sat, ...(rec.N !== undefined && { stochasticBits: rec.N }) } : {};
      const result = op.startsWith("Next") || !numeric ? undefined : rec.fr;
      const s = spec(op, operands, result, proj);
      const got = rec.R !== undefined ? s(...args, { random: rec.R }) : s(...args);
      m.add(got === rec.r, () => `${s.signature}(${args.join(", ")}${rec.R !== undefined ? `, R=${rec.R}` : ""}) = ${got}, spec ${rec.r}`);
    }
    expect(Object.fromEntries(byOp)).toMatchObject({
      FMA: 36001,
      FAA: 36000,
      Add: 30000,
      Divide: 30000,
      Hypot: 30000,
      Convert: 15144,
      NextGreaterThan: 1360,
      CompareLess: 15000,
      Sqrt: 1024,
      RSqrt: 1024,
      Recip: 1024,
    });
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });

  it("scaled_blocks.jsonl.gz: every ScaledAdd / ScaledSubtract / ScaledMultiply record", async () => {
    const m = new Mismatches();
    for await (const rec of readJsonl(sharedPath("golden", "p3109", "scaled_blocks.jsonl.gz"))) {
      if (!String(rec.op).startsWith("Scaled")) continue;
      const s = spec(rec.op, [rec.fsx, rec.fx, rec.fsy, rec.fy], rec.fr, {
        rounding: rec.rnd,
        saturation: rec.sat,
        ...(rec.N !== undefined && { stochasticBits: rec.N }),
      });
      const args = [rec.sx, rec.x, rec.sy, rec.y];
      const got = rec.R !== undefined ? s(...args, { random: rec.R }) : s(...args);
      m.add(got === rec.r, () => `${s.signature}(${args.join(", ")}) = ${got}, spec ${rec.r}`);
    }
    expect(m.checked).toBe(24000);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });
});
