// Every derived per-code table of a format, built once per Format object. Formats are interned (makeFormat), so
// object identity is the only cache key needed and the tables go when the format does.
import { ArgumentTypeError, CodeRangeError } from "../errors.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { decodeExact, operandValue } from "./decode.js";
import { project } from "./cast.js";
import { resolveProjection } from "./projection.js";
import { type Exact, toNumberExact } from "./value.js";

/** Tables enumerate every code, so they exist for formats of up to 16 bits (65 536 entries). */
function requireTableFormat(f: Format): void {
  if (f.K > 16) throw new ArgumentTypeError("fmt", `${f.name} has ${f.K}-bit codes; allowed: a format of at most 16 bits (per-code tables)`);
}

function cached<T>(cache: WeakMap<Format, T>, f: Format, build: () => T): T {
  let t = cache.get(f);
  if (t === undefined) {
    requireTableFormat(f);
    t = build();
    cache.set(f, t);
  }
  return t;
}

const exactCache = new WeakMap<Format, readonly Exact[]>();

/** ωDecode of every code as the ω-functions see it (P3109 §4.8: −0 is 0, every NaN the one NaN). */
export function exactValues(f: Format): readonly Exact[] {
  return cached(exactCache, f, () => Object.freeze(Array.from({ length: f.codeCount }, (_, c) => operandValue(c, f))));
}

/** float64 values of every code and the first code whose value a float64 cannot hold (−1 when none). */
interface Float64Values {
  readonly values: Float64Array;
  readonly firstInexact: number;
}
const float64Cache = new WeakMap<Format, Float64Values>();

function float64Values(f: Format): Float64Values {
  return cached(float64Cache, f, () => {
    const values = new Float64Array(f.codeCount);
    let firstInexact = -1;
    for (let c = 0; c < f.codeCount; c++) {
      const v = toNumberExact(decodeExact(c, f));
      if (v === undefined && firstInexact < 0) firstInexact = c;
      values[c] = v ?? NaN;
    }
    return { values, firstInexact };
  });
}

/**
 * The exact value of every code as a float64: NaN for NaN codes, −0 for a negative-zero code. Throws
 * CodeRangeError for a format with a value a float64 cannot hold (only custom formats with extreme biases), as
 * the scalar `decode` does for that code.
 */
export function valueTable(f: Format): Float64Array {
  const { values, firstInexact } = float64Values(f);
  if (firstInexact >= 0) {
    throw new CodeRangeError("fmt", `code ${firstInexact} of ${f.name} has a value a float64 cannot hold exactly; allowed: formats whose values fit float64 (use decodeExact)`);
  }
  return values;
}

/**
 * As `valueTable`, but a value a float64 cannot hold is NaN instead of an error: the dot-product and block
 * references read their (≤ 8-bit) operand values from here and treat such codes as NaN.
 */
export function valueTableOrNaN(f: Format): Float64Array {
  return float64Values(f).values;
}

/** MaxFinite of a format as a float64 (NaN when it does not fit one). */
export function maxFiniteValue(f: Format): number {
  return valueTableOrNaN(f)[f.maxFiniteMagnitude]!;
}

const BINARY32 = format("binary32");
const RNE_SATNONE = resolveProjection(BINARY32, { rounding: "NearestTiesToEven", saturation: "SatNone" });
const float32Cache = new WeakMap<Format, Uint32Array>();

/**
 * float32 bit patterns of every code: Convert<f, binary32, (NearestTiesToEven, SatNone)> (P3109 §4.9.1), exact
 * for every format whose values fit binary32; vendor formats keep NaN signs and payloads as ml_dtypes does.
 */
export function decodeTable32(f: Format): Uint32Array {
  return cached(float32Cache, f, () => {
    const t = new Uint32Array(f.codeCount);
    for (let c = 0; c < f.codeCount; c++) t[c] = project(decodeExact(c, f), BINARY32, RNE_SATNONE);
    return t;
  });
}
