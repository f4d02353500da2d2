// A reproducible experiment on saturation in low-precision dot products: vectors shaped like transformer activations (randn clipped to ±4, squared with its sign), each row scaled so its
// maximum magnitude is `scale`, cast to float8 (RNE), the first operand made non-negative (ReLU-like), then
// dot products with binary16 partials under OvSAT and OvINF (and OvNAN) against the exact dot product.
import { CodeRangeError, describe, requireInteger } from "../errors.js";
import { randomBits32, seedKeys } from "../random.js";
import { format } from "../format/registry.js";
import { dotRows } from "./index.js";
import { type PartialsName, exponentOf, partialsFormat, pow2, projectPartial, roundNearestEven } from "./partials.js";
import { valueTableOrNaN } from "../exact/tables.js";
import { checkOptions } from "../options.js";

export interface SaturationOptions {
  /** Vector length (notebook: 2048). */
  N?: number;
  /** Batches × pairs per batch (notebook: 100 × 1000). */
  batches?: number;
  batchSize?: number;
  /** BLK (notebook: 16). */
  blockSize?: number;
  /** Row maximum after scaling (notebook: 192, about √65504 / 1.33). */
  scale?: number;
  seed?: number;
  /** Operand format (notebook: float8_e4m3fn) and partials (binary16). */
  format?: string;
  partials?: PartialsName;
  /** Called after every batch (progress). */
  onBatch?: (done: number, total: number) => void;
}

export interface SaturationResult {
  pairs: number;
  /** Share of exact results that are finite in the partials format (notebook "in-range results"). */
  inRange: number;
  /** Among in-range results, the share whose partials overflowed (OvINF result not finite). */
  inRangeOverflowed: number;
  /** NaN results under OvINF (±∞ partials that cancelled) and under OvNAN. */
  nanOvINF: number;
  nanOvNAN: number;
  /** RMS and maximum error against the exact dot product over all pairs: OvSAT, and OvINF with ±∞ → ±MaxFinite and NaN → 0. */
  rmsOvSAT: number;
  maxOvSAT: number;
  rmsOvINF: number;
  maxOvINF: number;
  /** The same over the pairs whose partials overflowed (OvINF result ±∞ or NaN): `overflowedPairs` of them. */
  overflowedPairs: number;
  rmsOvSATOverflowed: number;
  rmsOvINFOverflowed: number;
}

/** Normal variates by Box–Muller from the counter-based generator (two per counter pair). */
function normals(out: Float64Array, k0: number, k1: number, first: number): void {
  for (let i = 0; i < out.length; i += 2) {
    const u1 = (randomBits32(k0, k1, first + i) + 0.5) / 2 ** 32;
    const u2 = (randomBits32(k0, k1, first + i + 1) + 0.5) / 2 ** 32;
    const r = Math.sqrt(-2 * Math.log(u1));
    out[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
}

/** The magnitude code of a non-negative value already on the format's grid (IEEE-style layout, gradual subnormals). */
function gridCode(v: number, f: ReturnType<typeof format>): number {
  const m = f.P - 1;
  if (v < pow2(1 - f.bias)) return v * pow2(-f.minQuantumExponent); // subnormal: v / quantum (exact)
  const E = exponentOf(v);
  return ((E + f.bias) << m) + (v * pow2(m - E) - (1 << m)); // exponent field, then the trailing bits
}

/** One row of `randvals` scaled to max |v| = scale and rounded into the format (RNE; values stay in range). */
function randomRow(
  codes: Uint8Array,
  offset: number,
  n: number,
  scale: number,
  k0: number,
  k1: number,
  first: number,
  fmt: ReturnType<typeof format>,
  max: number,
  tmp: Float64Array,
): void {
  normals(tmp, k0, k1, first);
  let rowMax = 0;
  for (let i = 0; i < n; i++) {
    const c = Math.max(-4, Math.min(4, tmp[i]!));
    tmp[i] = c * c * Math.sign(c);
    rowMax = Math.max(rowMax, Math.abs(tmp[i]!));
  }
  for (let i = 0; i < n; i++) {
    const v = roundNearestEven((tmp[i]! / rowMax) * scale, fmt.P, fmt.minQuantumExponent);
    const a = Math.abs(v);
    if (!(a <= max)) throw new RangeError(`value ${v} is outside ${fmt.name}'s finite range`);
    codes[offset + i] = gridCode(a, fmt) + (v < 0 ? fmt.signBit : 0);
  }
}

const SATURATION_KEYS = [
  "N",
  "batches",
  "batchSize",
  "blockSize",
  "scale",
  "seed",
  "format",
  "partials",
  "onBatch",
] as const satisfies readonly (keyof SaturationOptions)[];

export function saturationExperiment(options: SaturationOptions = {}): SaturationResult {
  checkOptions(options, SATURATION_KEYS);
  const N = requireInteger("options.N", options.N ?? 2048, 1, 2 ** 20);
  const batches = requireInteger("options.batches", options.batches ?? 100, 1, 2 ** 20);
  const batchSize = requireInteger("options.batchSize", options.batchSize ?? 1000, 1, 2 ** 20);
  const blockSize = requireInteger("options.blockSize", options.blockSize ?? 16, 1, 2 ** 20);
  const scale = options.scale ?? 192;
  if (typeof scale !== "number" || !(scale > 0) || !Number.isFinite(scale))
    throw new CodeRangeError("options.scale", `got ${describe(scale)}; allowed: a positive finite number`);
  requireInteger("options.seed", options.seed ?? 1, 0, 0xffffffff);
  if (batchSize * N > 2 ** 28) throw new CodeRangeError("options", `batchSize × N = ${batchSize * N}; allowed: at most 2^28 elements per batch`);
  const f = format(options.format ?? "float8_e4m3fn");
  const partials = options.partials ?? "binary16";
  const p = partialsFormat(partials);
  const values = valueTableOrNaN(f);
  const max = values[f.maxFiniteMagnitude]!;
  const [k0, k1] = seedKeys(options.seed ?? 1);
  const a = new Uint8Array(batchSize * N);
  const b = new Uint8Array(batchSize * N);
  const tmp = new Float64Array(N);
  let counter = 0;
  let inRange = 0,
    overflowed = 0,
    nanInf = 0,
    nanNan = 0,
    sumSat = 0,
    sumInf = 0,
    maxSat = 0,
    maxInf = 0;
  let over = 0,
    overSat = 0,
    overInf = 0;
  for (let batch = 0; batch < batches; batch++) {
    for (let r = 0; r < batchSize; r++) {
      randomRow(a, r * N, N, scale, k0, k1, counter, f, max, tmp);
      counter += N + (N & 1);
      randomRow(b, r * N, N, scale, k0, k1, counter, f, max, tmp);
      counter += N + (N & 1);
    }
    for (let i = 0; i < a.length; i++) if (a[i]! & f.signBit) a[i] = a[i]! - f.signBit; // v1 = |v1|
    const common = { formats: f, partials, blockSize } as const;
    const sat = dotRows(a, b, batchSize, N, { ...common, overflow: "OvSAT" });
    const inf = dotRows(a, b, batchSize, N, { ...common, overflow: "OvINF" });
    const nan = dotRows(a, b, batchSize, N, { ...common, overflow: "OvNAN" });
    for (let r = 0; r < batchSize; r++) {
      // Exact: E4M3 products are multiples of 2^−18 below 2^18, so 2048 of them sum exactly in float64.
      let exact = 0;
      for (let i = r * N; i < (r + 1) * N; i++) exact += values[a[i]!]! * values[b[i]!]!;
      const finiteResult = Number.isFinite(projectPartial(exact, p, "OvINF"));
      const vInf = inf[r]!;
      if (finiteResult) {
        inRange++;
        if (!Number.isFinite(vInf)) overflowed++;
      }
      if (Number.isNaN(vInf)) nanInf++;
      if (Number.isNaN(nan[r]!)) nanNan++;
      const eSat = Math.abs(sat[r]! - exact);
      const best = Number.isNaN(vInf) ? 0 : vInf === Infinity ? p.max : vInf === -Infinity ? -p.max : vInf;
      const eInf = Math.abs(best - exact);
      sumSat += eSat * eSat;
      sumInf += eInf * eInf;
      maxSat = Math.max(maxSat, eSat);
      maxInf = Math.max(maxInf, eInf);
      if (!Number.isFinite(vInf)) {
        over++;
        overSat += eSat * eSat;
        overInf += eInf * eInf;
      }
    }
    options.onBatch?.(batch + 1, batches);
  }
  const pairs = batches * batchSize;
  return {
    pairs,
    inRange: inRange / pairs,
    inRangeOverflowed: inRange ? overflowed / inRange : 0,
    nanOvINF: nanInf,
    nanOvNAN: nanNan,
    rmsOvSAT: Math.sqrt(sumSat / pairs),
    maxOvSAT: maxSat,
    rmsOvINF: Math.sqrt(sumInf / pairs),
    maxOvINF: maxInf,
    overflowedPairs: over,
    rmsOvSATOverflowed: over ? Math.sqrt(overSat / over) : 0,
    rmsOvINFOverflowed: over ? Math.sqrt(overInf / over) : 0,
  };
}
