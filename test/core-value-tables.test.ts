// Every row of the P3109 working group's value tables (all 504 formats, 3 ≤ K ≤ 16):
// decodeExact, decode (float64), the subnormal flag and the encode∘decode round trip.
import { readFileSync, readdirSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { CodeRangeError } from "../src/errors.js";
import { decode, decodeExact, encodeExact } from "../src/api/scalar.js";
import { format } from "../src/format/registry.js";
import type { Format } from "../src/format/model.js";
import { sharedPath } from "./golden/reader.js";

const DIR = sharedPath("golden", "p3109-value-tables");
const FILES = readdirSync(DIR)
  .filter((n) => /^Binary\d+p\d+[su][ef]\.csv(\.gz)?$/.test(n))
  .sort();

/** A value in canonical small-number form: odd significand m (or 0), exponent e; or a special. */
type Canon = { kind: "finite"; sign: 1 | -1; m: number; e: number } | { kind: "nan" } | { kind: "inf"; sign: 1 | -1 };

const HEX = /^(-?)0x([0-9a-f]+)(?:\.([0-9a-f]*))?p([+-]\d+)$/;

/** Parses a table value with plain numbers (table significands have at most 16 significant bits). */
function parseCell(s: string): Canon {
  if (s === "NaN") return { kind: "nan" };
  if (s === "Inf") return { kind: "inf", sign: 1 };
  if (s === "-Inf") return { kind: "inf", sign: -1 };
  const g = HEX.exec(s);
  if (!g) throw new Error(`unexpected value cell ${JSON.stringify(s)}`);
  const frac = g[3] ?? "";
  const digits = (g[2]! + frac).replace(/^0+/, "") || "0";
  if (digits.length > 13) throw new Error(`significand too wide for the fast parser: ${s}`);
  return canonFinite(g[1] === "-" ? -1 : 1, parseInt(digits, 16), Number(g[4]) - 4 * frac.length);
}

function canonFinite(sign: 1 | -1, m: number, e: number): Canon {
  if (m === 0) return { kind: "finite", sign: 1, m: 0, e: 0 };
  while (m % 2 === 0) {
    m /= 2;
    e += 1;
  }
  return { kind: "finite", sign, m, e };
}

function canonOf(code: number, f: Format): Canon {
  const x = decodeExact(code, f);
  if (x.kind === "nan") return { kind: "nan" };
  if (x.kind === "infinity") return { kind: "inf", sign: x.sign };
  return canonFinite(x.sign, Number(x.significand), x.exponent);
}

/** The float64 equal to a canonical finite value, or undefined when float64 cannot hold it. */
function toFloat64(c: Canon): number | undefined {
  if (c.kind === "nan") return NaN;
  if (c.kind === "inf") return c.sign * Infinity;
  if (c.m === 0) return 0;
  const top = Math.floor(Math.log2(c.m)) + c.e;
  if (c.e < -1074 || top > 1023) return undefined;
  // m < 2^16 and 2^e is a float64 for e in [−1074, 1023]; the product is exact because the result is representable.
  return c.sign * (c.e >= -1022 ? c.m * 2 ** c.e : c.m * 2 ** (c.e + 100) * 2 ** -100);
}

function same(a: Canon, b: Canon): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "nan") return true;
  if (a.kind === "inf") return a.sign === (b as typeof a).sign;
  const bb = b as typeof a;
  return a.sign === bb.sign && a.m === bb.m && a.e === bb.e;
}

function show(c: Canon): string {
  if (c.kind === "nan") return "NaN";
  if (c.kind === "inf") return c.sign > 0 ? "Inf" : "-Inf";
  return `${c.sign < 0 ? "-" : ""}${c.m}·2^${c.e}`;
}

interface Summary {
  rows: number;
  float64Rows: number;
  throwsRows: number;
  subnormalRows: number;
  failures: string[];
}

function checkFile(file: string): Summary {
  const name = file.replace(/\.csv(\.gz)?$/, "");
  const f = format(name);
  const raw = readFileSync(`${DIR}/${file}`);
  const text = (file.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
  const lines = text.split("\n");
  const s: Summary = { rows: 0, float64Rows: 0, throwsRows: 0, subnormalRows: 0, failures: [] };
  const fail = (msg: string) => {
    if (s.failures.length < 10) s.failures.push(`${name} ${msg}`);
  };
  if (lines[0] !== "codepoint,value,subnormal") fail(`header ${JSON.stringify(lines[0])}`);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length === 0) continue;
    const c1 = line.indexOf(",");
    const c2 = line.indexOf(",", c1 + 1);
    const code = parseInt(line.slice(2, c1), 16);
    const want = parseCell(line.slice(c1 + 1, c2));
    const flag = line.slice(c2 + 1) === "*";
    if (code !== s.rows) fail(`row ${i}: code ${code}, expected ${s.rows} (rows in code order)`);
    s.rows++;
    // decodeExact
    const got = canonOf(code, f);
    if (!same(got, want)) fail(`code 0x${code.toString(16)}: decodeExact ${show(got)}, table ${show(want)}`);
    // subnormal flag: the format's subnormal codes (magnitude in [1, MinNormal code)) and, independently, the value
    const mag = f.magnitudeOf(code);
    const subnormalCode = !f.isNaNCode(code) && mag >= 1 && mag < f.minNormalCode;
    if (subnormalCode !== flag) fail(`code 0x${code.toString(16)}: subnormal code ${subnormalCode}, table ${flag}`);
    if (want.kind === "finite" && want.m !== 0) {
      const isSub = Math.floor(Math.log2(want.m)) + want.e < 1 - f.bias; // |x| < MinNormal = 2^(1−B)
      if (isSub !== flag) fail(`code 0x${code.toString(16)}: value-based subnormal ${isSub}, table ${flag}`);
    }
    if (flag) s.subnormalRows++;
    // decode (float64)
    const v = toFloat64(want);
    if (v !== undefined) {
      s.float64Rows++;
      const d = decode(code, f);
      if (!(Object.is(d, v) || (Number.isNaN(d) && Number.isNaN(v)))) fail(`code 0x${code.toString(16)}: decode ${d}, table ${v}`);
    } else {
      s.throwsRows++;
      let err: unknown;
      try {
        decode(code, f);
      } catch (e) {
        err = e;
      }
      if (!(err instanceof CodeRangeError) || !/decodeExact/.test(err.message)) fail(`code 0x${code.toString(16)}: decode did not throw CodeRangeError`);
    }
    // encode ∘ decode = identity (default projection: NearestTiesToEven, SatNone)
    const back = encodeExact(decodeExact(code, f), f);
    if (back !== code) fail(`code 0x${code.toString(16)}: encodeExact(decodeExact) = 0x${back.toString(16)}`);
  }
  if (s.rows !== f.codeCount) fail(`has ${s.rows} rows, expected 2^K = ${f.codeCount}`);
  return s;
}

describe("P3109 value tables (504 formats, every code)", () => {
  it("lists all 504 formats: 4K − 2 per K for 3 ≤ K ≤ 16", () => {
    expect(FILES.length).toBe(504);
    for (let K = 3; K <= 16; K++) expect(FILES.filter((n) => n.startsWith(`Binary${K}p`)).length).toBe(4 * K - 2);
  });

  const groups: [string, (K: number) => boolean][] = [
    ["K ≤ 12", (K) => K <= 12],
    ["K = 13", (K) => K === 13],
    ["K = 14", (K) => K === 14],
    ["K = 15", (K) => K === 15],
    ["K = 16", (K) => K === 16],
  ];
  for (const [label, pick] of groups) {
    it(`${label}: decodeExact, decode, subnormal flag and encodeExact∘decodeExact agree with every row`, () => {
      // Most rows of the 50 formats beyond float64 expect decode to throw; stack capture would dominate the run time.
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        checkGroup(pick);
      } finally {
        Error.stackTraceLimit = limit;
      }
    });
  }
  function checkGroup(pick: (K: number) => boolean): void {
    const files = FILES.filter((n) => pick(Number(/^Binary(\d+)/.exec(n)![1])));
    const total: Summary = { rows: 0, float64Rows: 0, throwsRows: 0, subnormalRows: 0, failures: [] };
    let expectedRows = 0;
    for (const file of files) {
      const s = checkFile(file);
      expectedRows += 2 ** Number(/^Binary(\d+)/.exec(file)![1]);
      total.rows += s.rows;
      total.float64Rows += s.float64Rows;
      total.throwsRows += s.throwsRows;
      total.subnormalRows += s.subnormalRows;
      total.failures.push(...s.failures);
    }
    expect(total.failures.slice(0, 40)).toEqual([]);
    expect(total.rows).toBe(expectedRows);
    expect(total.float64Rows + total.throwsRows).toBe(total.rows);
    expect(total.subnormalRows).toBeGreaterThan(0);
  }

  it("decode throws CodeRangeError exactly for the 50 formats whose values exceed float64 (K−P > 11 signed, > 10 unsigned)", () => {
    for (const file of FILES) {
      const f = format(file.replace(/\.csv(\.gz)?$/, ""));
      const fits = f.signed ? f.K - f.P <= 11 : f.K - f.P <= 10;
      let threw = false;
      for (const code of [f.maxFiniteCode, f.minPositiveCode]) {
        try {
          decode(code, f);
        } catch (e) {
          expect(e).toBeInstanceOf(CodeRangeError);
          threw = true;
        }
      }
      expect(threw, f.name).toBe(!fits);
    }
    expect(
      FILES.filter((n) => {
        const f = format(n.replace(/\.csv(\.gz)?$/, ""));
        return f.signed ? f.K - f.P > 11 : f.K - f.P > 10;
      }).length,
    ).toBe(50);
  });
});
