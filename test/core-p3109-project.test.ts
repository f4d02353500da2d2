// P3109 v4.0 ωProject over binary64 inputs (golden/p3109-exhaustive/project): 47 formats, every input × every
// deterministic column (7 roundings incl. TowardMaxMagnitude × 3 saturations) and every stochastic column
// (A/B/C × N ∈ {1, 3, 8} × 3 saturations, R per row from stoch_R). Expected = the `spec` arrays.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { quantize } from "../src/api/bulk.js";
import type { Rounding, Saturation } from "../src/exact/projection.js";
import { format } from "../src/format/registry.js";
import { type Column, type TypedArray, getArray, readP3gv, sharedPath } from "./golden/reader.js";

const DIR = sharedPath("golden", "p3109-exhaustive", "project");
const FILES = readdirSync(DIR)
  .filter((n) => n.endsWith(".p3gv.gz"))
  .sort();

/** Column c of a row-major [rows, cols] array. */
function column(a: TypedArray, rows: number, cols: number, c: number): number[] {
  const out = new Array<number>(rows);
  for (let r = 0; r < rows; r++) out[r] = Number(a[r * cols + c]!);
  return out;
}

describe("P3109 exhaustive projection vectors (binary64 inputs)", () => {
  it("has the 47 formats of the README", () => {
    expect(FILES.length).toBe(47);
  });

  for (const file of FILES) {
    const name = file.replace(".p3gv.gz", "");
    it(`${name}: quantize(Float64Array) equals spec for every input × 21 deterministic and 27 stochastic columns`, () => {
      const c = readP3gv(`${DIR}/${file}`);
      const f = format(name);
      expect(c.meta.format.name).toBe(name);
      expect(c.meta.format.nan_code).toBe(f.nanCode);
      expect(c.meta.format.max_finite_code).toBe(f.maxFiniteCode);
      const x = getArray(c, "x").data as Float64Array;
      const n = x.length;
      const failures: string[] = [];
      let checked = 0;
      for (const table of ["det", "stoch"] as const) {
        const a = getArray(c, table);
        const cols = a.shape[1]!;
        const columns = a.meta!.columns as Column[];
        expect(columns.length).toBe(cols);
        expect(cols).toBe(table === "det" ? 21 : 27);
        const R = table === "stoch" ? getArray(c, "stoch_R") : undefined;
        for (let k = 0; k < cols; k++) {
          const col = columns[k]!;
          const want = column(a.data, n, cols, k);
          const options: Parameters<typeof quantize>[2] = { rounding: col.round as Rounding, saturation: col.sat as Saturation };
          if (R) {
            expect(col.R).toBe("per-row");
            expect(col.R_column).toBe(k % 9);
            options.stochasticBits = col.N!;
            options.random = Uint8Array.from(column(R.data, n, 9, col.R_column!));
          }
          const got = quantize(x, f, options);
          for (let i = 0; i < n; i++) {
            checked++;
            if (got[i] !== want[i] && failures.length < 20) {
              failures.push(`x=${x[i]} ${col.round}${col.N ? `/N=${col.N}/R=${options.random![i]}` : ""}/${col.sat}: got ${got[i]} want ${want[i]}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
      expect(checked).toBe(n * 48);
    });
  }
});
