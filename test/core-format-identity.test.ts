// One format identity: equal defining parameters give the same Format object, whatever the route (name, alias,
// customFormat, a spec serialised to a worker), and the per-code tables are built once per Format.
import { describe, expect, it } from "vitest";
import { decode } from "../src/api/scalar.js";
import { CodeRangeError } from "../src/errors.js";
import { decodeTable32, exactValues, valueTable, valueTableOrNaN } from "../src/exact/tables.js";
import { FORMAT_FIELDS, type FormatSpec, makeFormat } from "../src/format/model.js";
import { cfloat8, customFormat, format, formatFromSpec, p3109, registeredNames } from "../src/format/registry.js";

const SAMPLE = [...new Set(registeredNames().map((n) => format(n)))];

describe("format identity", () => {
  it("names, aliases and P3109 parameters resolve to one object", () => {
    expect(format("Binary12p7se")).toBe(format("binary12p7se"));
    expect(format("Binary8p3sf")).toBe(p3109(8, 3, true, false));
    expect(format("E4M3")).toBe(format("float8_e4m3fn"));
    expect(format("cfloat8_1_4_3", { bias: 7 })).toBe(cfloat8(4, 3, 7));
  });

  it("customFormat of a format's own parameters returns that format", () => {
    for (const f of [...SAMPLE, format("Binary10p4ue")]) expect(customFormat(f.toJSON())).toBe(f);
  });

  it("formatFromSpec inverts toJSON, also through JSON text (the worker boundary)", () => {
    for (const f of [...SAMPLE, format("Binary16p11se"), format("cfloat16_shp", { bias: 40 })]) {
      expect(formatFromSpec(f.toJSON())).toBe(f);
      expect(formatFromSpec(JSON.parse(JSON.stringify(f)) as FormatSpec)).toBe(f);
    }
  });

  it("toJSON holds exactly the defining fields", () => {
    const f = format("bfloat16");
    expect(Object.keys(f.toJSON())).toEqual([...FORMAT_FIELDS]);
    const extra = { ...f.toJSON(), note: "ignored" } as FormatSpec;
    expect(makeFormat(extra)).toBe(f);
    expect("note" in makeFormat(extra)).toBe(false);
  });

  it("a different parameter gives a different format", () => {
    const spec = format("float8_e4m3fn").toJSON();
    expect(makeFormat({ ...spec, name: "other" })).not.toBe(format("float8_e4m3fn"));
    expect(makeFormat({ ...spec, nanPayload: "keep" })).not.toBe(format("float8_e4m3fn"));
  });
});

describe("table service", () => {
  it("builds each table once per format", () => {
    const f = format("Binary8p3se");
    expect(valueTable(f)).toBe(valueTable(format("binary8p3se")));
    expect(decodeTable32(f)).toBe(decodeTable32(f));
    expect(exactValues(f)).toBe(exactValues(f));
  });

  it("valueTable equals scalar decode, NaN codes NaN and −0 kept", () => {
    for (const f of SAMPLE.filter((g) => g.K <= 16)) {
      const t = valueTable(f);
      for (let c = 0; c < f.codeCount; c += f.K > 8 ? 97 : 1) expect(Object.is(t[c], decode(c, f))).toBe(true);
    }
    expect(Object.is(valueTable(format("float8_e4m3fn"))[0x80], -0)).toBe(true);
  });

  it("a value a float64 cannot hold: valueTable throws, valueTableOrNaN gives NaN", () => {
    const huge = customFormat({ name: "huge-bias", K: 8, P: 3, bias: -2000, signed: true });
    expect(() => valueTable(huge)).toThrow(CodeRangeError);
    expect(valueTableOrNaN(huge)[0]).toBe(0);
    expect(valueTableOrNaN(huge)[1]).toBeNaN();
  });

  it("tables need formats of at most 16 bits", () => {
    expect(() => decodeTable32(format("binary32"))).toThrow(/at most 16 bits/);
  });
});
