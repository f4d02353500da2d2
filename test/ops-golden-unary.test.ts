// golden/p3109-exhaustive: unary/* (Convert, Negate, Abs, Sqrt, RSqrt, Recip rows over all codes, 18 projections and
// the stochastic containers), decode/predicates_next_k3-8.jsonl (predicate bits, Class, NextGreaterThan/NextLessThan
// of all 120 formats with 3 ≤ K ≤ 8) and special/fma_counterexample.json — bit for bit with `spec`.
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Rounding, Saturation } from "../src/exact/projection.js";
import { CLASS_NAMES, specialize } from "../src/ops/index.js";
import { getArray, readJsonl, readP3gv, sharedPath } from "./golden/reader.js";
import { Mismatches, TRANSCENDENTAL_NAMES } from "./ops-helpers.js";

const unaryDir = sharedPath("golden", "p3109-exhaustive", "unary");
const files = readdirSync(unaryDir).filter((f) => f.endsWith(".p3gv.gz"));

describe("unary/*.p3gv.gz: Convert, Negate, Abs, Sqrt, RSqrt, Recip", () => {
  it("covers the 36 same-format, 4 mixed-format and 3 stochastic containers", () => {
    expect(files.length).toBe(43);
  });
  it.each(files)("%s", (file) => {
    const c = readP3gv(`${unaryDir}/${file}`);
    const fx = c.meta.fx.name as string;
    const fr = c.meta.fr.name as string;
    const a = getArray(c, "results");
    const ops = (a.meta!.axes as any[])[0].op as string[];
    const columns = a.meta!.columns!;
    const [nOps, n, nCols] = a.shape as [number, number, number];
    const data = a.data as Uint8Array | Uint16Array;
    const R = c.arrays.has("R") ? (getArray(c, "R").data as Uint8Array | Uint16Array) : undefined;
    const xs = new (n > 256 ? Uint16Array : Uint8Array)(n).map((_, i) => i);
    const m = new Mismatches();
    let mine = 0;
    for (let o = 0; o < nOps; o++) {
      const op = ops[o]!;
      if (TRANSCENDENTAL_NAMES.has(op)) continue;
      mine++;
      columns.forEach((col, k) => {
        const spec = specialize(op, {
          operands: [fx],
          result: fr,
          rounding: col.round as Rounding,
          saturation: col.sat as Saturation,
          ...(col.N !== undefined && { stochasticBits: col.N }),
        });
        let random: Uint16Array | undefined;
        if (col.R === "per-row") {
          random = new Uint16Array(n);
          for (let x = 0; x < n; x++) random[x] = R![(o * n + x) * 9 + col.R_column!]!;
        }
        const got = spec.map(xs, random ? { random } : {});
        for (let x = 0; x < n; x++) {
          const want = data[(o * n + x) * nCols + k]!;
          m.add(got[x] === want, () => `${spec.signature}(${x}${random ? `, R=${random[x]}` : ""}) = ${got[x]}, spec ${want}`);
        }
      });
    }
    expect(mine).toBe(6);
    expect(m.checked).toBe(6 * nCols * n);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });
});

describe("decode/predicates_next_k3-8.jsonl", () => {
  it("predicate bits, Class and NextGreaterThan/NextLessThan of every code of all 120 formats", async () => {
    const preds = ["IsZero", "IsOne", "IsNaN", "IsInfinite", "IsFinite", "IsSignMinus", "IsNormal", "IsSubnormal"];
    const m = new Mismatches();
    let formats = 0;
    for await (const rec of readJsonl(sharedPath("golden", "p3109-exhaustive", "decode", "predicates_next_k3-8.jsonl"))) {
      formats++;
      const f = rec.fmt as string;
      const p = preds.map((name) => specialize(name, { operands: [f] }));
      const cls = specialize("Class", { operands: [f] });
      const ngt = specialize("NextGreaterThan", { operands: [f] });
      const nlt = specialize("NextLessThan", { operands: [f] });
      (rec.pred as number[]).forEach((want, code) => {
        let bits = CLASS_NAMES.indexOf(cls(code) as never) << 8;
        p.forEach((q, bit) => (bits |= (q(code) ? 1 : 0) << bit));
        m.add(bits === want, () => `${f} ${code}: predicate bits ${bits}, spec ${want}`);
        m.add(ngt(code) === rec.next_greater[code], () => `${f} NextGreaterThan(${code}) = ${ngt(code)}, spec ${rec.next_greater[code]}`);
        m.add(nlt(code) === rec.next_less[code], () => `${f} NextLessThan(${code}) = ${nlt(code)}, spec ${rec.next_less[code]}`);
      });
    }
    expect(formats).toBe(120);
    expect(m.checked).toBe(3 * 13296);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });
});

describe("special/fma_counterexample.json", () => {
  it("FMA<Binary8p3se ×4>(0x1e, 0x7e, 0x01) under all 18 projections (RNE: 0x5d = 160, not binary32's 0x5c)", () => {
    const rec = JSON.parse(readFileSync(sharedPath("golden", "p3109-exhaustive", "special", "fma_counterexample.json"), "utf8"));
    const f = "Binary8p3se";
    expect(rec.cases.length).toBe(18);
    for (const k of rec.cases) {
      const fma = specialize("FMA", { operands: [f, f, f], result: f, rounding: k.round, saturation: k.sat });
      expect(fma(rec.x, rec.y, rec.z), fma.signature).toBe(k.spec);
    }
    const rne = rec.cases.find((k: any) => k.round === "NearestTiesToEven");
    expect(rne.spec).toBe(0x5d);
    expect(rne.via_binary32_then_project).toBe(0x5c);
  });
});
