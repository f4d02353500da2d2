// Typed-array-style constructors bound to one format: `new Float8E4M3FNArray(n)`, `BFloat16Array.from(x)`.
import { type FormatLike, resolveFormat } from "../api/scalar.js";
import type { Format } from "../format/model.js";
import { type FromOptions, MiniFloatArray, type MiniFloatSource } from "./minifloat-array.js";

export interface MiniFloatArrayType {
  /** `length` zero codes of the format. */
  new (length: number): MiniFloatArray;
  readonly format: Format;
  readonly BYTES_PER_ELEMENT: number;
  from(source: MiniFloatSource, options?: FromOptions): MiniFloatArray;
  fromCodes(codes: ArrayLike<number>): MiniFloatArray;
  fromPacked(bytes: Uint8Array, length: number): MiniFloatArray;
}

/**
 * A constructor of MiniFloatArrays of one format. `instanceof` is true for every MiniFloatArray of the format,
 * however it was made (from(), subarray(), slice()).
 */
export function miniFloatArrayType(fmt: FormatLike): MiniFloatArrayType {
  const f = resolveFormat(fmt);
  const Bound = class extends MiniFloatArray {
    constructor(length: number) {
      super(f, length);
    }

    static [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof MiniFloatArray && value.format === f;
    }
  };
  Object.defineProperties(Bound, {
    name: { value: `MiniFloatArray<${f.name}>` },
    format: { value: f },
    BYTES_PER_ELEMENT: { value: f.K <= 8 ? 1 : 2 },
    from: { value: (source: MiniFloatSource, options?: FromOptions) => MiniFloatArray.from(source, f, options) },
    fromCodes: { value: (codes: ArrayLike<number>) => MiniFloatArray.fromCodes(codes, f) },
    fromPacked: { value: (bytes: Uint8Array, length: number) => MiniFloatArray.fromPacked(bytes, f, length) },
  });
  return Bound as unknown as MiniFloatArrayType;
}

export const Float8E4M3FNArray = /* @__PURE__ */ miniFloatArrayType("float8_e4m3fn");
export const Float8E5M2Array = /* @__PURE__ */ miniFloatArrayType("float8_e5m2");
export const Float8E4M3FNUZArray = /* @__PURE__ */ miniFloatArrayType("float8_e4m3fnuz");
export const Float8E5M2FNUZArray = /* @__PURE__ */ miniFloatArrayType("float8_e5m2fnuz");
export const Float8E8M0FNUArray = /* @__PURE__ */ miniFloatArrayType("float8_e8m0fnu");
export const Float6E3M2FNArray = /* @__PURE__ */ miniFloatArrayType("float6_e3m2fn");
export const Float6E2M3FNArray = /* @__PURE__ */ miniFloatArrayType("float6_e2m3fn");
export const Float4E2M1FNArray = /* @__PURE__ */ miniFloatArrayType("float4_e2m1fn");
export const BFloat16Array = /* @__PURE__ */ miniFloatArrayType("bfloat16");
