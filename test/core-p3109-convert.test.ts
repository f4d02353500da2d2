// P3109 v4.0 decode vectors (golden/p3109-exhaustive decode/*.jsonl: exact hex and float64 values) and
// convert/from_binary32 through the bulk quantize API. Convert<fx, fr, ρ>(x) = ωProject_{fr,ρ}(ωDecode_fx(x)).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { quantize, quantizeReference } from "../src/api/bulk.js";
import { planQuantize } from "../src/api/plan.js";
import { decode, decodeExact, encodeExact } from "../src/api/scalar.js";
import type { Rounding, Saturation } from "../src/exact/projection.js";
import { type Exact, normalize } from "../src/exact/value.js";
import { format } from "../src/format/registry.js";
import { type Column, getArray, parseHexFloat, readP3gv, sharedPath } from "./golden/reader.js";

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

describe("P3109 decode vectors", () => {
  for (const [file, count] of [
    ["decode_k3-8.jsonl", 13296],
    ["decode_k10-12-16_sample.jsonl", 146 * 272],
  ] as const) {
    it(`${file}: decodeExact equals the exact hex value and decode equals the float64 (or throws) for all ${count} codes`, () => {
      const lines = readFileSync(EX("decode", file), "utf8")
        .split("\n")
        .filter((l) => l.length > 0);
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
          if (!sameExact(got, want))
            failures.push(`${r.fmt} ${code}: decodeExact ${JSON.stringify(got, (_, v) => (typeof v === "bigint" ? `${v}` : v))} want ${r.values[i]}`);
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

// Convert<binary32, f> through the bulk API (the Wasm kernel and the exact reference). The other Convert tables
// (convert_p3109, to_external, from_16bit, the unary files' Convert rows) are checked through the operation
// Convert in ops-golden-convert and ops-golden-unary.
describe("P3109 Convert vectors", () => {
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
          const q = planQuantize(src, f, options);
          quantizeReference(src, f, q.rho, ref, q.random?.at);
          for (let i = 0; i < n; i++) {
            checked++;
            const want = Number(a.data[i * cols + k]);
            if ((got[i] !== want || ref[i] !== want) && failures.length < 20) {
              failures.push(
                `0x${bits[i]!.toString(16)} → ${t} ${col.round}${col.N ? `/N=${col.N}` : ""}/${col.sat}: quantize ${got[i]} reference ${ref[i]} want ${want}`,
              );
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(n * 5 * 45);
  });
});
