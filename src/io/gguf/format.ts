// GGUF container constants and type tables (restated from ggml's ggml.h and gguf.h): metadata value types and
// ggml tensor types with their block sizes.

/** "GGUF" as the first four bytes. */
export const GGUF_MAGIC = 0x46554747;
/** Versions with 64-bit counts and lengths (version 1 used 32-bit ones). */
export const GGUF_VERSIONS: readonly number[] = [2, 3];
export const GGUF_VERSION = 3;
export const DEFAULT_ALIGNMENT = 32;
export const ALIGNMENT_KEY = "general.alignment";
/** ggml tensors have at most four dimensions (GGML_MAX_DIMS). */
export const MAX_DIMS = 4;

export const VALUE_TYPES = ["UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"] as const;
export type GgufValueType = (typeof VALUE_TYPES)[number];
export type GgufScalarType = Exclude<GgufValueType, "ARRAY" | "STRING">;

/** Bytes of each fixed-size value type. */
export const SCALAR_BYTES: Readonly<Record<GgufScalarType, number>> = {
  UINT8: 1,
  INT8: 1,
  BOOL: 1,
  UINT16: 2,
  INT16: 2,
  UINT32: 4,
  INT32: 4,
  FLOAT32: 4,
  UINT64: 8,
  INT64: 8,
  FLOAT64: 8,
};

/** Fewest bytes one value of a type occupies in a file (a string is at least its 8-byte length; an array 12). */
export function minimumBytes(type: GgufValueType): number {
  return type === "STRING" ? 8 : type === "ARRAY" ? 12 : SCALAR_BYTES[type];
}

export type GgufScalar = number | bigint | boolean | string;
/** A metadata value with its type: numbers for ≤ 32-bit integers and floats, bigint for 64-bit integers. */
export type GgufValue =
  | { readonly type: Exclude<GgufValueType, "ARRAY">; readonly value: GgufScalar }
  | { readonly type: "ARRAY"; readonly itemType: Exclude<GgufValueType, "ARRAY">; readonly value: readonly GgufScalar[] }
  | { readonly type: "ARRAY"; readonly itemType: "ARRAY"; readonly value: readonly GgufValue[] };

export interface GgmlType {
  readonly id: number;
  readonly name: string;
  /** Elements per block and bytes per block (1 and the element size for plain types). */
  readonly blockSize: number;
  readonly typeSize: number;
}

const K = 256;
const TYPES: readonly GgmlType[] = [
  ["F32", 0, 1, 4],
  ["F16", 1, 1, 2],
  ["Q4_0", 2, 32, 18],
  ["Q4_1", 3, 32, 20],
  ["Q5_0", 6, 32, 22],
  ["Q5_1", 7, 32, 24],
  ["Q8_0", 8, 32, 34],
  ["Q8_1", 9, 32, 40],
  ["Q2_K", 10, K, 84],
  ["Q3_K", 11, K, 110],
  ["Q4_K", 12, K, 144],
  ["Q5_K", 13, K, 176],
  ["Q6_K", 14, K, 210],
  ["Q8_K", 15, K, 292],
  ["IQ2_XXS", 16, K, 66],
  ["IQ2_XS", 17, K, 74],
  ["IQ3_XXS", 18, K, 98],
  ["IQ1_S", 19, K, 50],
  ["IQ4_NL", 20, 32, 18],
  ["IQ3_S", 21, K, 110],
  ["IQ2_S", 22, K, 82],
  ["IQ4_XS", 23, K, 136],
  ["I8", 24, 1, 1],
  ["I16", 25, 1, 2],
  ["I32", 26, 1, 4],
  ["I64", 27, 1, 8],
  ["F64", 28, 1, 8],
  ["IQ1_M", 29, K, 56],
  ["BF16", 30, 1, 2],
  ["TQ1_0", 34, K, 54],
  ["TQ2_0", 35, K, 66],
  ["MXFP4", 39, 32, 17],
  ["NVFP4", 40, 64, 36],
  ["Q1_0", 41, 128, 18],
].map(([name, id, blockSize, typeSize]) => ({ name, id, blockSize, typeSize }) as GgmlType);
const BY_ID = new Map(TYPES.map((t) => [t.id, t]));
const BY_NAME = new Map(TYPES.map((t) => [t.name, t]));

/** The ggml type with this id, or undefined for an id this table does not know. */
export function ggmlTypeById(id: number): GgmlType | undefined {
  return BY_ID.get(id);
}

export function ggmlTypeByName(name: string): GgmlType | undefined {
  return BY_NAME.get(name);
}

/** The types GgufReader decodes to float32 and GgufWriter writes. */
export const DECODABLE_TYPES = ["F32", "F16", "BF16", "Q8_0", "MXFP4", "NVFP4"] as const;
export type GgufTensorType = (typeof DECODABLE_TYPES)[number];

export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}
