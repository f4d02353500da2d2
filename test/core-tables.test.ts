// The table service derives its float tables in number arithmetic; here they are checked code by code against the
// BigInt core (decodeExact, then the exact projection into binary32) for every registered format of ≤ 16 bits,
// P3109 formats and custom formats chosen for their edges.
import { describe, expect, it } from "vitest";
import { CodeRangeError } from "../src/errors.js";
import { project } from "../src/exact/cast.js";
import { decodeExact } from "../src/exact/decode.js";
import { resolveProjection } from "../src/exact/projection.js";
import { decodeTable32, valueTable, valueTableOrNaN } from "../src/exact/tables.js";
import { toNumberExact } from "../src/exact/value.js";
import type { Format } from "../src/format/model.js";
import { cfloat16Shp, cfloat8, customFormat, format, p3109, registeredNames } from "../src/format/registry.js";

const BINARY32 = format("binary32");
const RNE = resolveProjection(BINARY32, { rounding: "NearestTiesToEven", saturation: "SatNone" });

const one = new Float64Array(1);
const bits = new BigUint64Array(one.buffer);

const formats: Format[] = [...new Set(registeredNames().map((n) => format(n)))].filter((f) => f.K <= 16);
for (let K = 3; K <= 10; K++) {
  for (let P = 1; P < K; P++) formats.push(p3109(K, P, true, true), p3109(K, P, true, false), p3109(K, P + 1, false, P % 2 === 0));
}
formats.push(p3109(16, 1, true, true), p3109(16, 1, false, false), p3109(16, 8, true, false), p3109(16, 11, true, true), p3109(16, 15, false, true));
formats.push(p3109(12, 7, true, true), p3109(14, 2, false, true), cfloat8(4, 3, 0), cfloat8(5, 2, 63), cfloat16Shp(40));
const custom = { name: "c", K: 8, P: 4, bias: 7, signed: true };
formats.push(
  customFormat({ ...custom, name: "payload-nans", infinity: true, highNaNs: 7, negativeZero: "nan", signedZeroAndNaN: true, nanPayload: "keep" }),
  customFormat({ ...custom, name: "flushed", subnormals: "flush", negativeZero: "zero", signedZeroAndNaN: true }),
  customFormat({ ...custom, name: "flushed-unsigned-zeros-nans", subnormals: "flush", negativeZero: "zero", infinity: true, highNaNs: 3 }),
  customFormat({ ...custom, name: "no-zero", zero: false, signed: false, K: 7 }),
  customFormat({ ...custom, name: "below-binary32", bias: 160, K: 10 }),
  customFormat({ ...custom, name: "above-binary32", bias: -125, K: 10, infinity: true, highNaNs: 1 }),
  customFormat({ ...custom, name: "beyond-float64", bias: -1030, K: 9 }),
  customFormat({ ...custom, name: "under-float64", bias: 1070, K: 9, P: 8, negativeZero: "zero", signedZeroAndNaN: true }),
);

describe("table service vs the BigInt core", () => {
  it(`decodeTable32 equals Convert<f, binary32, (NearestTiesToEven, SatNone)> for ${formats.length} formats`, () => {
    const bad: string[] = [];
    for (const f of formats) {
      const t = decodeTable32(f);
      for (let c = 0; c < f.codeCount && bad.length < 10; c++) {
        const want = project(decodeExact(c, f), BINARY32, RNE);
        if (t[c] !== want) bad.push(`${f.name} code ${c}: ${t[c]!.toString(16)} want ${want.toString(16)}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("valueTableOrNaN equals the exact value (NaN where a float64 cannot hold it); valueTable throws there", () => {
    const bad: string[] = [];
    for (const f of formats) {
      const t = valueTableOrNaN(f);
      let fits = true;
      for (let c = 0; c < f.codeCount && bad.length < 10; c++) {
        const want = toNumberExact(decodeExact(c, f));
        if (want === undefined) fits = false;
        // Bit for bit: NaN entries must be the canonical NaN (a sign bit would propagate through products).
        one[0] = want ?? NaN;
        if (bits[0] !== new BigUint64Array(t.buffer, c * 8, 1)[0]) bad.push(`${f.name} code ${c}: ${t[c]} want ${want}`);
      }
      if (fits) expect(valueTable(f)).toBe(t);
      else expect(() => valueTable(f), f.name).toThrow(CodeRangeError);
    }
    expect(bad).toEqual([]);
  });
});
