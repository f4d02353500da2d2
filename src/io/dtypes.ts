// safetensors dtypes (safetensors/src/tensor.rs) and how minifloat formats map onto them.
import { FormatError } from "../errors.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { SafetensorsError } from "./errors.js";

export type DtypeKind = "float" | "int" | "other";

export interface DtypeInfo {
  readonly name: string;
  /** Bits per element; 4 and 6 are densely bit-packed. */
  readonly bits: number;
  readonly kind: DtypeKind;
  /** The minifloat format of a floating-point dtype. */
  readonly format?: string;
}

const TABLE: readonly DtypeInfo[] = [
  { name: "F64", bits: 64, kind: "float", format: "binary64" },
  { name: "F32", bits: 32, kind: "float", format: "binary32" },
  { name: "F16", bits: 16, kind: "float", format: "binary16" },
  { name: "BF16", bits: 16, kind: "float", format: "bfloat16" },
  { name: "F8_E4M3", bits: 8, kind: "float", format: "float8_e4m3fn" },
  { name: "F8_E5M2", bits: 8, kind: "float", format: "float8_e5m2" },
  { name: "F8_E8M0", bits: 8, kind: "float", format: "float8_e8m0fnu" },
  { name: "F8_E4M3FNUZ", bits: 8, kind: "float", format: "float8_e4m3fnuz" },
  { name: "F8_E5M2FNUZ", bits: 8, kind: "float", format: "float8_e5m2fnuz" },
  { name: "F6_E2M3", bits: 6, kind: "float", format: "float6_e2m3fn" },
  { name: "F6_E3M2", bits: 6, kind: "float", format: "float6_e3m2fn" },
  { name: "F4", bits: 4, kind: "float", format: "float4_e2m1fn" },
  { name: "BOOL", bits: 8, kind: "other" },
  { name: "U8", bits: 8, kind: "int" },
  { name: "I8", bits: 8, kind: "int" },
  { name: "U16", bits: 16, kind: "int" },
  { name: "I16", bits: 16, kind: "int" },
  { name: "U32", bits: 32, kind: "int" },
  { name: "I32", bits: 32, kind: "int" },
  { name: "U64", bits: 64, kind: "int" },
  { name: "I64", bits: 64, kind: "int" },
  { name: "C64", bits: 64, kind: "other" },
];
const BY_NAME = new Map(TABLE.map((d) => [d.name, d]));

export const DTYPES: readonly string[] = TABLE.map((d) => d.name);

/** Metadata key recording the real format of a tensor stored as U8/U16 codes. */
export const FORMAT_KEY_PREFIX = "minifloat.dtype.";

export function dtypeInfo(dtype: unknown, argument = "dtype"): DtypeInfo {
  const info = typeof dtype === "string" ? BY_NAME.get(dtype) : undefined;
  if (!info) throw new SafetensorsError(argument, `unknown dtype ${JSON.stringify(dtype)}; allowed: ${DTYPES.join(", ")}`);
  return info;
}

/** Bytes of n elements: ceil(n·bits/8) (F4 and F6 are bit-packed; their last byte is zero-padded). */
export function byteLength(info: DtypeInfo, n: number): number {
  return Math.ceil((n * info.bits) / 8);
}

/** Name of a format that `format()` resolves back to the same format (Tesla names carry their bias). */
export function recordableName(f: Format): string {
  const tesla = /^(cfloat8_1_[45]_[32]|cfloat16_shp)\(bias=(\d+)\)$/.exec(f.name);
  let back: Format | undefined;
  try {
    back = tesla ? format(tesla[1]!, { bias: Number(tesla[2]) }) : format(f.name);
  } catch {
    back = undefined;
  }
  if (!back || !sameFormat(back, f)) {
    throw new FormatError("fmt", `${f.name} has no registered name, so a file could not record it; allowed: formats format() resolves by name`);
  }
  return f.name;
}

/** Resolves a recorded format name (including "cfloat8_1_4_3(bias=15)"). */
export function formatFromRecordedName(name: string, argument: string): Format {
  const tesla = /^(cfloat8_1_[45]_[32]|cfloat16_shp)\(bias=(\d+)\)$/.exec(name);
  try {
    return tesla ? format(tesla[1]!, { bias: Number(tesla[2]) }) : format(name);
  } catch (e) {
    throw new SafetensorsError(argument, `records format ${JSON.stringify(name)}, which minifloat does not know (${(e as Error).message})`);
  }
}

/** Formats match by name and parameters, not identity: a Format may come from another copy of the library. */
function sameFormat(a: Format, b: Format): boolean {
  return a.name === b.name && a.K === b.K && a.P === b.P && a.bias === b.bias && a.signed === b.signed;
}

/**
 * How a format is stored: its own safetensors dtype where one exists and every safetensors reader decodes it the
 * same way (F64 … F4), otherwise its codes as U8 (K ≤ 8) or U16 (K ≤ 16) with the format recorded in metadata.
 * FNUZ formats are recorded rather than stored as F8_E4M3FNUZ/F8_E5M2FNUZ, which older readers reject.
 */
export function storageOf(f: Format): { dtype: string; recorded: boolean } {
  const own = TABLE.find((d) => d.format !== undefined && !d.format.includes("fnuz") && sameFormat(format(d.format), f));
  if (own) return { dtype: own.name, recorded: false };
  recordableName(f);
  if (f.K <= 8) return { dtype: "U8", recorded: true };
  if (f.K <= 16) return { dtype: "U16", recorded: true };
  throw new FormatError("fmt", `${f.name} has ${f.K}-bit codes; safetensors storage holds formats of up to 16 bits besides F32 and F64`);
}
