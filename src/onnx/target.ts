// What a weight becomes: an element format (with ONNX's data type where ONNX has one) or a block scheme.
import { MX_SCHEMES, type SchemeName, blockScheme } from "../block/index.js";
import type { BlockScheme } from "../block/mx.js";
import { FormatError } from "../errors.js";
import type { Format } from "../format/model.js";
import { format, integerFormat } from "../format/registry.js";
import { DataType } from "./dtypes.js";

/**
 * ONNX INT4 as a sign–magnitude format whose values are the integers −7…7 (P = 3, bias −1: subnormals 0…3,
 * normals 4…7), so the library's quantize rounds x/scale to an integer (ties to even) and saturates at ±7.
 * Codes become two's complement nibbles when stored; −8 is never produced (symmetric quantization).
 */
export const INT4: Format = integerFormat("onnx_int4", "Custom", 4, -1);

export type Target =
  | { readonly kind: "element"; readonly name: string; readonly format: Format; readonly onnxType: number | undefined }
  | { readonly kind: "block"; readonly name: string; readonly scheme: BlockScheme; readonly onnxType: number | undefined };

/** The ONNX data types DequantizeLinear takes that a library format encodes exactly. */
const ONNX_TYPES: readonly [string, number][] = [
  ["float8_e4m3fn", DataType.FLOAT8E4M3FN],
  ["float8_e5m2", DataType.FLOAT8E5M2],
  ["float4_e2m1fn", DataType.FLOAT4E2M1],
];

/**
 * The MX schemes whose blocks DequantizeLinear computes exactly: their elements are ONNX types and their scales
 * 2^e (−127 ≤ e ≤ 127) are float32 values. (NVFP4's scale S · T has up to 28 significant bits: no float32 holds it.)
 */
const MX_TYPES: Readonly<Record<string, number>> = {
  mxfp8_e4m3: DataType.FLOAT8E4M3FN,
  mxfp8_e5m2: DataType.FLOAT8E5M2,
  mxfp4: DataType.FLOAT4E2M1,
};

/** Resolves --to: "int4", a block scheme name (mxfp8_e4m3, mxfp4, nvfp4, …) or any format name the library knows. */
export function resolveTarget(name: string, argument: string): Target {
  const key = typeof name === "string" ? name.toLowerCase() : name;
  if (key === "int4") return { kind: "element", name: "INT4", format: INT4, onnxType: DataType.INT4 };
  if ((MX_SCHEMES as readonly string[]).includes(key)) {
    return { kind: "block", name: key, scheme: blockScheme(key as SchemeName, argument), onnxType: MX_TYPES[key] };
  }
  let f: Format;
  try {
    f = format(name);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    // The same words under this call's argument name.
    throw new FormatError(argument, `${e.message.slice(e.argument.length + 2)}; also allowed: int4 or a block scheme (${MX_SCHEMES.join(", ")})`);
  }
  // Weights are float32/float16: wider targets gain nothing, and the exactness argument of quantize.ts needs ≤ 16 bits.
  if (f.K > 16) throw new FormatError(argument, `${f.name} has ${f.K} bits; allowed: formats of at most 16 bits, int4 or a block scheme`);
  const onnx = ONNX_TYPES.find(([n]) => format(n) === f);
  return { kind: "element", name: f.name, format: f, onnxType: onnx?.[1] };
}

/** The DequantizeLinear data types, for messages. */
export const QDQ_TYPES = "FLOAT8E4M3FN (float8_e4m3fn, mxfp8_e4m3), FLOAT8E5M2 (float8_e5m2, mxfp8_e5m2), FLOAT4E2M1 (float4_e2m1fn, mxfp4) or INT4 (int4)";
