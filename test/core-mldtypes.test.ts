// ml_dtypes 0.6.0 golden vectors (`astype`): every code decoded to float32 bits, and every float32 → code record
// encoded with the DEFAULT projection, bit-exactly (NaN codes and signs included).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dequantize, quantize, quantizeReference } from "../src/api/bulk.js";
import { decodeTable32 } from "../src/exact/tables.js";
import { planQuantize } from "../src/api/plan.js";
import { decode, encode } from "../src/api/scalar.js";
import { format } from "../src/format/registry.js";
import { sharedPath } from "./golden/reader.js";

const manifest = JSON.parse(readFileSync(sharedPath("golden", "ml_dtypes", "manifest.json"), "utf8"));
const DTYPES = Object.keys(manifest.dtypes) as string[];

function decodeBits(dtype: string): Uint32Array {
  const buf = readFileSync(sharedPath("golden", "ml_dtypes", `${dtype}.decode.bin`));
  const out = new Uint32Array(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readUInt32LE(i * 4);
  return out;
}

function encodeRecords(dtype: string): { input: Uint32Array; code: Uint32Array } {
  const buf = readFileSync(sharedPath("golden", "ml_dtypes", `${dtype}.encode.bin`));
  const wide = manifest.dtypes[dtype].bits > 8;
  const size = wide ? 6 : 5;
  const n = buf.length / size;
  const input = new Uint32Array(n);
  const code = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    input[i] = buf.readUInt32LE(i * size);
    code[i] = wide ? buf.readUInt16LE(i * size + 4) : buf[i * size + 4]!;
  }
  return { input, code };
}

const hex = (v: number, w = 2) => `0x${v.toString(16).toUpperCase().padStart(w, "0")}`;

describe("ml_dtypes golden vectors", () => {
  it("covers the 13 dtypes of the manifest, each a registry name; float16 is numpy's float16 = binary16", () => {
    expect(DTYPES.length).toBe(13);
    for (const d of DTYPES) {
      const f = format(d);
      const p = manifest.dtypes[d].params;
      expect(f.K, d).toBe(manifest.dtypes[d].bits);
      expect(f.P, d).toBe(p.mantissa_bits + 1);
      expect(f.signed, d).toBe(p.signed);
      expect(2 ** f.K, d).toBe(manifest.dtypes[d].num_codes);
    }
    expect(format("float16")).toBe(format("binary16"));
  });

  for (const dtype of DTYPES) {
    describe(dtype, () => {
      const m = manifest.dtypes[dtype];
      const f = format(dtype);
      const hexWidth = f.K > 8 ? 4 : 2;

      it(`decode: dequantize of all ${m.num_codes} codes gives ml_dtypes' float32 bits (NaN bits included)`, () => {
        const want = decodeBits(dtype);
        expect(want.length).toBe(m.decode.count);
        const Codes = f.K <= 8 ? Uint8Array : Uint16Array;
        const codes = new Codes(want.length);
        for (let i = 0; i < codes.length; i++) codes[i] = i;
        const got = new Uint32Array(dequantize(codes, f).buffer);
        // The exact core's table (dequantize may take a Wasm fast path; this is the reference behind it).
        const table = decodeTable32(f);
        const bad: string[] = [];
        for (let i = 0; i < want.length; i++) {
          if (got[i] !== want[i] && bad.length < 10) bad.push(`dequantize ${hex(i, hexWidth)}: ${hex(got[i]!, 8)} want ${hex(want[i]!, 8)}`);
          if (table[i] !== want[i] && bad.length < 10) bad.push(`decodeTable32 ${hex(i, hexWidth)}: ${hex(table[i]!, 8)} want ${hex(want[i]!, 8)}`);
        }
        expect(bad).toEqual([]);
        // The scalar decode agrees wherever the value is not NaN (float32 values are float64 values).
        const f32 = new Float32Array(want.buffer);
        for (let i = 0; i < want.length; i++) {
          if (!Number.isNaN(f32[i]!)) expect(Object.is(decode(i, f), f32[i]), `${dtype} ${hex(i)}`).toBe(true);
        }
      });

      it(`encode: quantize(Float32Array) and the exact reference, default projection, give ml_dtypes' code for all ${m.encode.count} records`, () => {
        const { input, code } = encodeRecords(dtype);
        expect(input.length).toBe(m.encode.count);
        const src = new Float32Array(input.buffer);
        const got = quantize(src, f);
        // The exact reference behind quantize (quantize may take a Wasm fast path for float32 input).
        const ref = new (f.K <= 8 ? Uint8Array : Uint16Array)(src.length);
        const { rho } = planQuantize(src, f, undefined);
        quantizeReference(src, f, rho, ref);
        const bad: string[] = [];
        const byCategory = new Map<string, number>();
        for (const [path, out] of [
          ["quantize", got],
          ["reference", ref],
        ] as const) {
          for (let i = 0; i < input.length; i++) {
            if (out[i] !== code[i]) {
              const cat = `${path}:${(m.encode.categories as { name: string; start: number; count: number }[]).find((c) => i >= c.start && i < c.start + c.count)?.name ?? "?"}`;
              byCategory.set(cat, (byCategory.get(cat) ?? 0) + 1);
              if (bad.length < 12) bad.push(`[${cat}] in ${hex(input[i]!, 8)} (${src[i]}): got ${hex(out[i]!, hexWidth)} want ${hex(code[i]!, hexWidth)}`);
            }
          }
        }
        expect({ mismatches: Object.fromEntries(byCategory), first: bad }).toEqual({ mismatches: {}, first: [] });
      });

      it("encode: scalar encode (float64 of the float32 input) agrees with the records, spot-checked every 97th record and all specials", () => {
        const { input, code } = encodeRecords(dtype);
        const src = new Float32Array(input.buffer);
        const specials = (m.encode.categories as { name: string; start: number; count: number }[]).find((c) => c.name === "specials")!;
        let checked = 0;
        for (let i = 0; i < input.length; i++) {
          if (i % 97 !== 0 && !(i >= specials.start && i < specials.start + specials.count)) continue;
          // NaN payloads do not survive a float32 → float64 JS number conversion reliably: compare NaN-ness only there.
          const got = encode(src[i]!, f);
          if (Number.isNaN(src[i]!)) {
            const isNaNCode = f.hasNaN ? f.isNaNCode(got) === f.isNaNCode(code[i]!) : got === code[i];
            expect(isNaNCode, `${dtype} NaN input ${hex(input[i]!, 8)}`).toBe(true);
          } else expect(got, `${dtype} input ${hex(input[i]!, 8)} (${src[i]})`).toBe(code[i]);
          checked++;
        }
        expect(checked).toBeGreaterThan(input.length / 100);
      });
    });
  }
});
