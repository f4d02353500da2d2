// P3109 v4.0 decode and Convert vectors (golden/p3109-exhaustive): decode JSONL (exact hex and float64 values),
// convert/convert_p3109, convert/to_external, convert/from_16bit, convert/from_binary32 and the Convert rows
// (op index 0) of every unary container. Convert<fx, fr, ρ>(x) = ωProject_{fr,ρ}(ωDecode_fx(x)).
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { quantize, quantizeReference, resolveQuantize } from "../src/api/bulk.js";
import { decode, decodeExact, encodeExact } from "../src/api/scalar.js";
import { projectBig } from "../src/exact/project.js";
import { type Projection, type Rounding, type Saturation, resolveProjection } from "../src/exact/projection.js";
import { type Exact, normalize } from "../src/exact/value.js";
import type { Format } from "../src/format/model.js";
import { format } from "../src/format/registry.js";
import { type Column, type P3gvArray, getArray, parseHexFloat, readP3gv, sharedPath } from "./golden/reader.js";

const EX = (...p: string[]) => sharedPath("golden", "p3109-exhaustive", ...p);

function sameExact(a: Exact, b: Exact): boolean {
  const x = normalize(a);
  const y = normalize(b);
  if (x.kind !== y.kind) return false;
  if (x.kind === "nan") return true;
  if (x.kind === "infinity") return x.sign === y.sign;
  const yf = y as typeof x;
  if (x.significand === 0n) return yf.significand === 0n; // P3109 has one zero
  return x.sign === yf.sign && x.significand === yf.significand && x.exponent === yf.exponent;
}

function projection(col: Column, R?: number): Projection {
  const p: Projection = { rounding: col.round as Rounding, saturation: col.sat as Saturation };
  if (col.N !== undefined) {
    p.stochasticBits = col.N;
    p.random = R;
  }
  return p;
}

/** Whether an IEEE bit pattern of the given external format is a NaN. */
function isExternalNaN(f: Format, bits: bigint): boolean {
  const mag = bits & ((1n << BigInt(f.K - 1)) - 1n);
  return mag > BigInt(f.infMagnitude);
}

describe("P3109 decode vectors", () => {
  for (const [file, count] of [
    ["decode_k3-8.jsonl", 13296],
    ["decode_k10-12-16_sample.jsonl", 146 * 272],
  ] as const) {
    it(`${file}: decodeExact equals the exact hex value and decode equals the float64 (or throws) for all ${count} codes`, () => {
      const lines = readFileSync(EX("decode", file), "utf8").split("\n").filter((l) => l.length > 0);
      let n = 0;
      const failures: string[] = [];
      for (const line of lines) {
        const r = JSON.parse(line);
        const f = format(r.fmt);
        expect([f.K, f.P, f.signed, f.infinity, f.bias], r.fmt).toEqual([r.format.K, r.format.P, r.format.signed, r.format.extended, r.format.bias]);
        expect([f.nanCode, f.maxFiniteCode, f.minFiniteCode], r.fmt).toEqual([r.format.nan_code, r.format.max_finite_code, r.format.min_finite_code]);
        expect(f.infinity ? [f.posInfCode, f.negInfCode === -1 ? null : f.negInfCode] : [null, null], r.fmt).toEqual([r.format.pinf_code, r.format.ninf_code]);
        const codes: number[] = r.codes ?? r.values.map((_: unknown, i: number) => i);
        codes.forEach((code, i) => {
          n++;
          const want = parseHexFloat(r.values[i]);
          const got = decodeExact(code, f);
          if (!sameExact(got, want)) failures.push(`${r.fmt} ${code}: decodeExact ${JSON.stringify(got, (_, v) => (typeof v === "bigint" ? `${v}` : v))} want ${r.values[i]}`);
          const v = r.f64[i];
          if (v === null) {
            expect(() => decode(code, f), `${r.fmt} ${code}`).toThrow(/a float64 cannot hold exactly/);
          } else {
            const wantNum = v === "NaN" ? NaN : v === "Inf" ? Infinity : v === "-Inf" ? -Infinity : (v as number);
            const d = decode(code, f);
            if (!(Object.is(d, wantNum) || (Number.isNaN(d) && Number.isNaN(wantNum)))) failures.push(`${r.fmt} ${code}: decode ${d} want ${v}`);
          }
          // P3109 formats re-encode every code (one NaN, no −0) under the default projection.
          expect(encodeExact(got, f), `${r.fmt} ${code}`).toBe(code);
        });
      }
      expect(failures.slice(0, 20)).toEqual([]);
      expect(n).toBe(count);
    });
  }
});

/** Checks a [rows, columns] results array of Convert<fx, fr> against codes or IEEE bit patterns. */
function checkConvertTable(a: P3gvArray, fx: Format, fr: Format, inputs: (i: number) => Exact, R?: (i: number, c: number) => number): { checked: number; failures: string[] } {
  const [rows, cols] = [a.shape[0]!, a.shape[1]!];
  const columns = a.meta!.columns as Column[];
  expect(columns.length).toBe(cols);
  const external = fr.family === "IEEE";
  const failures: string[] = [];
  let checked = 0;
  for (let c = 0; c < cols; c++) {
    const col = columns[c]!;
    // Convert is a P3109 operation: its results are P3109 datums (+0, one NaN) also in external formats (§4.8).
    const rho = resolveProjection(fr, projection(col, col.N !== undefined ? 0 : undefined), "options", "P3109");
    for (let i = 0; i < rows; i++) {
      const x = inputs(i);
      const want = BigInt(a.data[i * cols + c]!);
      const got = projectBig(x, fr, rho, R ? R(i, col.R_column!) : 0);
      checked++;
      const ok = external && isExternalNaN(fr, want) ? isExternalNaN(fr, got) : got === want;
      if (!ok && failures.length < 10) {
        failures.push(`${fx.name}->${fr.name} row ${i} ${col.round}${col.N ? `/N=${col.N}` : ""}/${col.sat}: got 0x${got.toString(16)} want 0x${want.toString(16)}`);
      }
    }
  }
  return { checked, failures };
}

describe("P3109 Convert vectors", () => {
  it("convert_p3109: all 132 ordered pairs of 12 formats × all codes × 18 projections", () => {
    const c = readP3gv(EX("convert", "convert_p3109.p3gv.gz"));
    const names = [...c.arrays.keys()].filter((k) => /^Binary\w+->Binary\w+$/.test(k));
    expect(names.length).toBe(132);
    let checked = 0;
    const failures: string[] = [];
    for (const name of names) {
      const [fxName, frName] = name.split("->") as [string, string];
      const fx = format(fxName);
      const fr = format(frName);
      const a = getArray(c, name);
      expect(a.shape).toEqual([fx.codeCount, 18]);
      const r = checkConvertTable(a, fx, fr, (i) => decodeExact(i, fx));
      checked += r.checked;
      failures.push(...r.failures);
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(checked).toBeGreaterThan(132 * 256 * 18 * 0.9);
  });

  it("to_external: all 30 eight-bit formats → binary32 / binary64 (3 projections), binary16 / bfloat16 (18 projections)", () => {
    const c = readP3gv(EX("convert", "to_external.p3gv.gz"));
    const names = [...c.arrays.keys()].filter((k) => /->(binary32|binary64|binary16|bfloat16)$/.test(k));
    expect(names.length).toBe(120);
    let checked = 0;
    const failures: string[] = [];
    for (const name of names) {
      const [fxName, frName] = name.split("->") as [string, string];
      const fx = format(fxName);
      const fr = format(frName);
      const r = checkConvertTable(getArray(c, name), fx, fr, (i) => decodeExact(i, fx));
      checked += r.checked;
      failures.push(...r.failures);
    }
    expect(failures.slice(0, 30)).toEqual([]);
    expect(checked).toBe(30 * 256 * (3 + 3 + 18 + 18));
  });

  it("from_16bit: all 65,536 binary16 and bfloat16 patterns → Binary8p3se / Binary8p4se × 9 projections", () => {
    const c = readP3gv(EX("convert", "from_16bit.p3gv.gz"));
    let checked = 0;
    const failures: string[] = [];
    for (const src of ["binary16", "bfloat16"]) {
      const fx = format(src);
      const decoded = Array.from({ length: 65536 }, (_, i) => decodeExact(i, fx));
      for (const dst of ["Binary8p3se", "Binary8p4se"]) {
        const r = checkConvertTable(getArray(c, `${src}->${dst}`), fx, format(dst), (i) => decoded[i]!);
        checked += r.checked;
        failures.push(...r.failures);
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(checked).toBe(4 * 65536 * 9);
  });

  it("from_binary32: every input × 5 formats × 18 deterministic and 27 stochastic columns (per-row R), via quantize(Float32Array) and the exact reference", () => {
    const c = readP3gv(EX("convert", "from_binary32.p3gv.gz"));
    const bits = getArray(c, "x_bits").data as Uint32Array;
    const src = new Float32Array(bits.buffer, bits.byteOffset, bits.length);
    const n = bits.length;
    const R = getArray(c, "stoch_R");
    const targets = [...c.arrays.keys()].filter((k) => /^binary32->\w+\.det$/.test(k)).map((k) => k.slice("binary32->".length, -".det".length));
    expect(targets.length).toBe(5);
    let checked = 0;
    const failures: string[] = [];
    for (const t of targets) {
      const f = format(t);
      for (const table of ["det", "stoch"] as const) {
        const a = getArray(c, `binary32->${t}.${table}`);
        const cols = a.shape[1]!;
        const columns = a.meta!.columns as Column[];
        for (let k = 0; k < cols; k++) {
          const col = columns[k]!;
          const options: Parameters<typeof quantize>[2] = { rounding: col.round as Rounding, saturation: col.sat as Saturation };
          if (table === "stoch") {
            options.stochasticBits = col.N!;
            const r = new Uint8Array(n);
            for (let i = 0; i < n; i++) r[i] = Number(R.data[i * 9 + col.R_column!]);
            options.random = r;
          }
          const got = quantize(src, f, options);
          // Also the exact reference behind quantize (float32 input may take a Wasm fast path).
          const ref = new Uint8Array(n);
          const q = resolveQuantize(f, n, options);
          quantizeReference(src, f, q.rho, ref, q.random);
          for (let i = 0; i < n; i++) {
            checked++;
            const want = Number(a.data[i * cols + k]);
            if ((got[i] !== want || ref[i] !== want) && failures.length < 20) {
              failures.push(`0x${bits[i]!.toString(16)} → ${t} ${col.round}${col.N ? `/N=${col.N}` : ""}/${col.sat}: quantize ${got[i]} reference ${ref[i]} want ${want}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(n * 5 * 45);
  });

  it("unary containers: the Convert rows (op 0) of every same-format, mixed-format and stochastic file", () => {
    const files = readdirSync(EX("unary")).filter((n) => n.endsWith(".p3gv.gz")).sort();
    expect(files.length).toBe(43);
    let checked = 0;
    const failures: string[] = [];
    for (const file of files) {
      const c = readP3gv(EX("unary", file));
      const fx = format(c.meta.fx.name);
      const fr = format(c.meta.fr.name);
      const a = getArray(c, "results");
      const [ops, codes, cols] = a.shape as [number, number, number];
      expect((a.meta!.axes as [{ op: string[] }])[0].op[0]).toBe("Convert");
      expect(ops).toBe(31);
      expect(codes).toBe(fx.codeCount);
      // Op 0 is the leading [codes, cols] block of the row-major array.
      const convert: P3gvArray = { ...a, shape: [codes, cols], data: a.data.subarray(0, codes * cols) as P3gvArray["data"] };
      const R = file.startsWith("stochastic_") ? getArray(c, "R") : undefined;
      const r = checkConvertTable(convert, fx, fr, (i) => decodeExact(i, fx), R ? (i, j) => Number(R.data[i * 9 + j]) : undefined);
      checked += r.checked;
      failures.push(...r.failures.map((s) => `${file}: ${s}`));
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(checked).toBeGreaterThan(40 * 256 * 18);
  });
});
