// ONNX tensor data types (TensorProto.DataType): names, storage bits and where typed fields keep their values.

export const DataType = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  UINT16: 4,
  INT16: 5,
  INT32: 6,
  INT64: 7,
  STRING: 8,
  BOOL: 9,
  FLOAT16: 10,
  DOUBLE: 11,
  UINT32: 12,
  UINT64: 13,
  COMPLEX64: 14,
  COMPLEX128: 15,
  BFLOAT16: 16,
  FLOAT8E4M3FN: 17,
  FLOAT8E4M3FNUZ: 18,
  FLOAT8E5M2: 19,
  FLOAT8E5M2FNUZ: 20,
  UINT4: 21,
  INT4: 22,
  FLOAT4E2M1: 23,
  FLOAT8E8M0: 24,
  UINT2: 25,
  INT2: 26,
  FLOAT6E2M3: 27,
  FLOAT6E3M2: 28,
} as const;

/** Bits per element of each data type (0 for STRING: variable). */
const BITS: Readonly<Record<number, number>> = {
  1: 32,
  2: 8,
  3: 8,
  4: 16,
  5: 16,
  6: 32,
  7: 64,
  8: 0,
  9: 8,
  10: 16,
  11: 64,
  12: 32,
  13: 64,
  14: 64,
  15: 128,
  16: 16,
  17: 8,
  18: 8,
  19: 8,
  20: 8,
  21: 4,
  22: 4,
  23: 4,
  24: 8,
  25: 2,
  26: 2,
  27: 6,
  28: 6,
};

const NAMES = new Map<number, string>(Object.entries(DataType).map(([name, code]) => [code, name]));

/** The name of a data type code ("FLOAT", …), or "type <n>" for a code ONNX does not define. */
export function dataTypeName(code: number): string {
  return NAMES.get(code) ?? `type ${code}`;
}

/** Bits per element, undefined for a code ONNX does not define. */
export function dataTypeBits(code: number): number | undefined {
  return BITS[code];
}

/** Bytes of n elements in raw_data (sub-byte types packed, the first element in the low bits). */
export function rawBytes(code: number, n: number): number {
  return Math.ceil((n * (BITS[code] ?? 0)) / 8);
}
