// The ONNX fixtures of test/fixtures/onnx (built by scripts/fixtures/onnx.py with onnx, NumPy and ml_dtypes), their
// expected values, and a runner that evaluates a model in onnxruntime-web's WebAssembly backend.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-web";
import { dequantize } from "../src/index.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "onnx");

export interface Quantized {
  codes: string;
  scale: string;
  scaleShape: number[];
  values: string;
}
export interface ModelExpected {
  x: string;
  xShape: number[];
  y: string;
  yShape: number[];
  qdq?: Record<string, Record<string, Quantized>>;
  fake?: Record<string, Record<string, string>>;
}

export const expected: Record<"mlp" | "conv" | "mlp16" | "ir3" | "top16", ModelExpected> = JSON.parse(readFileSync(join(FIXTURES, "expected.json"), "utf8"));

export function fixture(name: string): Uint8Array {
  return readFileSync(join(FIXTURES, `${name}.onnx`));
}

export function bytes(base64: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64, "base64"));
}

/** Float32 or float16 little-endian bytes as exact values. */
export function values(b: Uint8Array, float16: boolean): Float64Array {
  const copy = new Uint8Array(b);
  return Float64Array.from(float16 ? dequantize(new Uint16Array(copy.buffer), "binary16") : new Float32Array(copy.buffer));
}

ort.env.wasm.numThreads = 1;

/** Runs a fixture-shaped model (input x, output y) on the fixture's input; returns y as exact values. */
export async function run(model: Uint8Array, name: keyof typeof expected): Promise<Float64Array> {
  const e = expected[name];
  const float16 = name === "mlp16" || name === "top16";
  const x = bytes(e.x);
  const input = float16 ? new ort.Tensor("float16", new Uint16Array(x.buffer), e.xShape) : new ort.Tensor("float32", new Float32Array(x.buffer), e.xShape);
  const session = await ort.InferenceSession.create(model);
  try {
    const y = (await session.run({ x: input })).y!;
    const data = y.data as Float32Array | Uint16Array;
    return float16 ? Float64Array.from(dequantize(new Uint16Array(data), "binary16")) : Float64Array.from(data as Float32Array);
  } finally {
    await session.release();
  }
}

/** max |a − b| / max |b|. */
export function relativeMaxDifference(a: Float64Array, b: Float64Array): number {
  let d = 0;
  let m = 0;
  for (let i = 0; i < b.length; i++) {
    d = Math.max(d, Math.abs(a[i]! - b[i]!));
    m = Math.max(m, Math.abs(b[i]!));
  }
  return d / m;
}
