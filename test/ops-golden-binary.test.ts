// golden/p3109-exhaustive/binary/*: Add, Subtract, Multiply, Divide × 18 projections, Hypot, CopySign and the ten
// Minimum/Maximum variants × NearestTiesToEven × 3 saturations, and the five comparisons, over ALL code pairs of five
// formats — bit for bit with `spec`. (ArcTan2/ArcTan2Pi rows belong to the transcendental tests.)
import { describe, expect, it } from "vitest";
import type { Rounding, Saturation } from "../src/exact/projection.js";
import { specialize } from "../src/ops/index.js";
import { getArray, readP3gv, sharedPath } from "./golden/reader.js";
import { Mismatches, TRANSCENDENTAL_NAMES } from "./ops-helpers.js";

const FORMATS = ["Binary8p3se", "Binary8p4se", "Binary8p4uf", "Binary6p3sf", "Binary4p2sf"];

describe.each(FORMATS)("binary/%s.p3gv.gz", (name) => {
  const c = readP3gv(sharedPath("golden", "p3109-exhaustive", "binary", `${name}.p3gv.gz`));
  const n = 2 ** c.meta.format.K;
  const xs = new Uint8Array(n * n);
  const ys = new Uint8Array(n * n);
  for (let i = 0; i < n * n; i++) {
    xs[i] = Math.floor(i / n);
    ys[i] = i % n;
  }

  for (const table of ["arith", "other"]) {
    it(`${table}: every op × column × code pair equals spec`, () => {
      const a = getArray(c, table);
      const ops = (a.meta!.axes as any[])[0].op as string[];
      const columns = a.meta!.columns!;
      const data = a.data as Uint8Array;
      const m = new Mismatches();
      let checkedOps = 0;
      ops.forEach((op, o) => {
        if (TRANSCENDENTAL_NAMES.has(op)) return;
        checkedOps++;
        columns.forEach((col, k) => {
          const spec = specialize(op, { operands: [name, name], result: name, rounding: col.round as Rounding, saturation: col.sat as Saturation });
          const got = spec.map(xs, ys) as Uint8Array;
          for (let i = 0; i < n * n; i++) {
            const want = data[(o * n * n + i) * columns.length + k]!;
            m.add(got[i] === want, () => `${spec.signature}(${xs[i]}, ${ys[i]}) = ${got[i]}, spec ${want}`);
          }
        });
      });
      expect(checkedOps).toBe(table === "arith" ? 4 : 12);
      expect(m.checked).toBe(checkedOps * columns.length * n * n);
      expect(m.summary()).toEqual({ count: 0, first: [] });
    });
  }

  it("compare: the 5-bit mask (Less, LessEqual, Equal, Greater, GreaterEqual) of every code pair", () => {
    const data = getArray(c, "compare").data as Uint8Array;
    const names = ["CompareLess", "CompareLessEqual", "CompareEqual", "CompareGreater", "CompareGreaterEqual"];
    const results = names.map((op) => specialize(op, { operands: [name, name] }).map(xs, ys) as Uint8Array);
    const m = new Mismatches();
    for (let i = 0; i < n * n; i++) {
      let mask = 0;
      results.forEach((r, bit) => (mask |= r[i]! << bit));
      m.add(mask === data[i], () => `compare(${xs[i]}, ${ys[i]}) mask ${mask}, spec ${data[i]}`);
    }
    expect(m.checked).toBe(n * n);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });
});
