// The dot kernels round products and block sums into the partials format with float64 arithmetic
// (src/dot/partials.ts). That rounding must equal the exact projection: here over every product of every code
// pair of the 8-bit formats a dot product takes, in every partials format and overflow mode.
import { describe, expect, it } from "vitest";
import { decode, encode } from "../src/api/scalar.js";
import { OVERFLOW_MODES, PARTIALS_FORMATS, type OverflowMode, partialsFormat, projectPartial } from "../src/dot/partials.js";
import { format } from "../src/format/registry.js";
import { EIGHT_BIT_FORMATS } from "./format-lists.js";

/** OvSAT is P3109 (NearestTiesToEven, SatFinite); OvINF is (NearestTiesToEven, SatNone); OvNAN turns OvINF's ±∞ into NaN. */
function expected(x: number, partials: string, mode: OverflowMode): number {
  const saturation = mode === "OvSAT" ? "SatFinite" : "SatNone";
  const v = decode(encode(x, partials, { rounding: "NearestTiesToEven", saturation }), partials);
  return mode === "OvNAN" && !Number.isFinite(v) ? Number.NaN : v;
}

/** Every distinct product value of two codes of fa and fb (exact in float64: at most 2·8 significand bits). */
function products(fa: string, fb: string, into: Set<number>): void {
  const a = format(fa);
  const b = format(fb);
  const va = Array.from({ length: a.codeCount }, (_, c) => decode(c, a));
  const vb = Array.from({ length: b.codeCount }, (_, c) => decode(c, b));
  for (const x of va) for (const y of vb) into.add(x * y);
}

function check(values: Iterable<number>): number {
  let count = 0;
  for (const partials of PARTIALS_FORMATS) {
    const p = partialsFormat(partials);
    for (const mode of OVERFLOW_MODES) {
      for (const x of values) {
        const got = projectPartial(x, p, mode);
        const want = expected(x, partials, mode);
        if (!Object.is(got, want)) expect({ x, partials, mode, got }).toEqual({ x, partials, mode, got: want });
        count++;
      }
    }
  }
  return count;
}

const EIGHT_BIT = EIGHT_BIT_FORMATS;

describe("projectPartial equals the exact projection", () => {
  it("on every product of every code pair of each ≤ 8-bit registered format with itself (P3109 K ≤ 8 included)", () => {
    const values = new Set<number>();
    for (const name of EIGHT_BIT) products(name, name, values);
    expect(EIGHT_BIT).toContain("float8_e4m3fn");
    expect(check(values)).toBe(PARTIALS_FORMATS.length * OVERFLOW_MODES.length * values.size);
  });

  it("on every product of mixed OCP/FNUZ/MX operand pairs", () => {
    const mixed = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "float8_e8m0fnu"];
    const values = new Set<number>();
    for (const a of mixed) for (const b of mixed) if (a < b) products(a, b, values);
    check(values);
  });

  it("on sums of two binary16 and two bfloat16 partials (the running sum of a dot product)", () => {
    // A deterministic sweep: every 389th code against every 401st code of the same format.
    const values = new Set<number>();
    for (const name of ["binary16", "bfloat16"]) {
      const f = format(name);
      for (let a = 0; a < f.codeCount; a += 389) for (let b = 0; b < f.codeCount; b += 401) values.add(decode(a, f) + decode(b, f));
    }
    check(values);
  });
});
