// The ONNX names of the formats (FLOAT8E4M3FN, …) are aliases of the ml_dtypes formats and keep their default
// projection, (NearestTiesToEven, SatNone) = ONNX Cast saturate=0; ONNX's default saturate=1 is
// { saturation: "SatFinite" } (round first, then clamp ±∞ and overflow to ±MaxFinite). Checked against the ONNX
// project's own backend node tests for Cast and CastLike (../shared/golden/onnx-backend); E8M0's round_mode=up cast
// and the Quantize/DequantizeLinear operators are not projections of this kind and are not read here.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decode, dequantize, format, quantize } from "../src/index.js";

interface Tensor {
  readonly dtype: string;
  readonly bits: number[];
}
interface OnnxTest {
  readonly name: string;
  readonly op: string;
  readonly attrs: { saturate?: number; round_mode?: string };
  readonly applicable: boolean;
  readonly dataSets: { inputs: Tensor[]; outputs: Tensor[] }[];
}

const path = new URL("../../shared/golden/onnx-backend/vectors.json", import.meta.url);
if (!existsSync(path)) throw new Error(`missing ${path.pathname}: the ONNX backend vectors live in ../shared/golden next to the repository`);
const tests = (JSON.parse(readFileSync(path, "utf8")) as { tests: OnnxTest[] }).tests;

const MINIFLOATS = ["FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "FLOAT4E2M1", "FLOAT8E8M0"];
/** The value of an input element: FLOAT bits or FLOAT16 bits (both exact in float64). */
function value(dtype: string, bits: number): number {
  if (dtype === "FLOAT") return new Float32Array(Uint32Array.of(bits).buffer)[0]!;
  return decode(bits, "binary16");
}
const casts = tests.filter((t) => (t.op === "Cast" || t.op === "CastLike") && t.applicable && t.attrs.round_mode === undefined);

describe("ONNX Cast/CastLike backend tests with the ONNX format names", () => {
  it("covers every applicable cast between FLOAT/FLOAT16 and the 8- and 4-bit float types", () => {
    expect(casts.length).toBeGreaterThanOrEqual(80);
  });

  for (const t of casts) {
    const { inputs, outputs } = t.dataSets[0]!;
    const input = inputs[0]!;
    const output = outputs[0]!;
    it(t.name, () => {
      if (MINIFLOATS.includes(output.dtype)) {
        // Into a narrow format: saturate=1 (the default) is SatFinite, saturate=0 the format's default projection.
        const x = Float64Array.from(input.bits, (b) => value(input.dtype, b));
        const options = (t.attrs.saturate ?? 1) === 1 ? { saturation: "SatFinite" as const } : {};
        expect(Array.from(quantize(x, output.dtype, options))).toEqual(output.bits);
      } else {
        // Out of a narrow format: exact decoding, NaN codes to NaN (ONNX writes its canonical quiet NaN).
        const y = dequantize(Uint8Array.from(input.bits), input.dtype);
        const got = output.dtype === "FLOAT" ? Array.from(new Uint32Array(y.buffer)) : Array.from(quantize(y, "binary16"));
        const nan = output.dtype === "FLOAT" ? (b: number) => (b & 0x7fffffff) > 0x7f800000 : (b: number) => (b & 0x7fff) > 0x7c00;
        expect(got.map((b) => (nan(b) ? "NaN" : b))).toEqual(output.bits.map((b) => (nan(b) ? "NaN" : b)));
      }
    });
  }

  it("the ONNX names resolve to the ml_dtypes formats themselves", () => {
    expect(format("FLOAT8E4M3FN")).toBe(format("float8_e4m3fn"));
    expect(format("FLOAT8E5M2FNUZ")).toBe(format("float8_e5m2fnuz"));
    expect(format("FLOAT4E2M1")).toBe(format("float4_e2m1fn"));
  });
});
