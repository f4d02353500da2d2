// Convert<fx, fr, ρ> (§4.9.1) as an operation specialization, against golden/p3109-exhaustive/convert/*: exhaustive
// P3109 → P3109 between 12 formats (18 projections), 8-bit → binary32/binary64/binary16/bfloat16, every binary16 and
// bfloat16 pattern → Binary8p3se/Binary8p4se, and 17.6 k binary32 inputs with deterministic and stochastic columns.
import { describe, expect, it } from "vitest";
import type { Rounding, Saturation } from "../src/exact/projection.js";
import { type CodeArrayLike, codeArrayFor, specialize } from "../src/ops/index.js";
import { format } from "../src/format/registry.js";
import { type P3gvArray, getArray, readP3gv, sharedPath } from "./golden/reader.js";
import { Mismatches } from "./ops-helpers.js";

const path = (file: string) => sharedPath("golden", "p3109-exhaustive", "convert", file);

/** Checks every column of a results array `fx->fr[.det|.stoch]` over the given inputs. */
function checkArray(a: P3gvArray, inputs: CodeArrayLike, m: Mismatches, R?: Uint8Array): void {
  const [fx, fr] = a.name.replace(/\.(det|stoch)$/, "").split("->") as [string, string];
  const columns = a.meta!.columns!;
  const n = inputs.length;
  columns.forEach((col, k) => {
    const s = specialize("Convert", {
      operands: [fx],
      result: fr,
      rounding: col.round as Rounding,
      saturation: col.sat as Saturation,
      ...(col.N !== undefined && { stochasticBits: col.N }),
    });
    let random: Uint8Array | undefined;
    if (col.R === "per-row") random = new Uint8Array(n).map((_, i) => R![i * 9 + col.R_column!]!);
    const got = s.map(inputs, random ? { random } : {});
    for (let i = 0; i < n; i++) {
      const want = a.data[i * columns.length + k]!;
      m.add(got[i] === want, () => `${s.signature}(${inputs[i]}) = ${got[i]}, spec ${want}`);
    }
  });
}

const allCodes = (f: string): CodeArrayLike => {
  const F = format(f);
  return new (codeArrayFor(F) as typeof Uint16Array)(F.codeCount).map((_, i) => i);
};

describe("convert/*.p3gv.gz", () => {
  it.each(["convert_p3109.p3gv.gz", "to_external.p3gv.gz", "from_16bit.p3gv.gz"])("%s: every array, column and input", (file) => {
    const c = readP3gv(path(file));
    const m = new Mismatches();
    let arrays = 0;
    for (const a of c.arrays.values()) {
      if (a.name.includes(".ref_")) continue;
      arrays++;
      checkArray(a, allCodes(a.name.split("->")[0]!), m);
    }
    expect(arrays).toBe({ "convert_p3109.p3gv.gz": 132, "to_external.p3gv.gz": 120, "from_16bit.p3gv.gz": 4 }[file]);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });

  it("from_binary32.p3gv.gz: deterministic and stochastic columns for 5 formats", () => {
    const c = readP3gv(path("from_binary32.p3gv.gz"));
    const x = getArray(c, "x_bits").data as Uint32Array;
    const R = getArray(c, "stoch_R").data as Uint8Array;
    const m = new Mismatches();
    for (const a of c.arrays.values()) if (a.name.startsWith("binary32->") && !a.name.includes(".ref_")) checkArray(a, x, m, R);
    expect(m.checked).toBe(x.length * 45 * 5);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });
});
