// Streaming statistics: quantization error of one tensor, and value summaries with a binade histogram.
import { NO_OVERFLOW, errorSums } from "../io/error-sums.js";
import type { ErrorSums, Threshold } from "../wasm/stats.js";
import { num, percent, rate, renderTable } from "./text.js";

/** Error of y (dequantized) against x (original), accumulated chunk by chunk in float64. */
export class ErrorStats {
  elements = 0;
  /** Finite inputs, whose error is measured (NaN and ±Inf inputs are left out). */
  measured = 0;
  sumSquaredError = 0;
  sumSquares = 0;
  /** NaN once any measured error is (an input that became NaN). */
  maxAbsError = 0;
  /** Finite nonzero inputs that became zero. */
  flushed = 0;
  /** Finite inputs that round beyond ±MaxFinite of the (scaled) target: they saturate, or become ±Inf/NaN under SatNone. */
  overflowed = 0;
  seconds = 0;

  /** Adds a chunk; `overflow`: the thresholds of positive and negative inputs, when this chunk's overflows are counted here. */
  add(x: Float32Array | Float64Array, y: Float32Array, overflow: readonly [Threshold, Threshold] = NO_OVERFLOW): void {
    this.addSums(errorSums(x, y, overflow[0], overflow[1]), x.length);
  }

  /** Adds the sums of a chunk of `elements` elements computed elsewhere (a conversion worker). */
  addSums(s: ErrorSums, elements: number): void {
    this.elements += elements;
    this.measured += s.measured;
    this.sumSquaredError += s.sumSquaredError;
    this.sumSquares += s.sumSquares;
    this.maxAbsError = Math.max(this.maxAbsError, s.maxAbsError);
    this.flushed += s.flushed;
    this.overflowed += s.overflowed;
  }

  get rmse(): number {
    return this.measured === 0 ? 0 : Math.sqrt(this.sumSquaredError / this.measured);
  }

  /** ‖y − x‖₂ / ‖x‖₂ over the measured elements. */
  get relativeError(): number {
    if (this.sumSquaredError === 0) return 0;
    return Math.sqrt(this.sumSquaredError / this.sumSquares);
  }
}

/** min, max, mean, standard deviation, zeros and non-finite counts, and |x| per binade. */
export class ValueStats {
  count = 0;
  finite = 0;
  zeros = 0;
  nan = 0;
  infinite = 0;
  min = Infinity;
  max = -Infinity;
  /** Mean of the finite values and the sum of their squared deviations from it (Chan et al.'s pairwise update). */
  private runningMean = 0;
  private m2 = 0;
  /** Count of nonzero finite |x| in [2^e, 2^(e+1)), by e. */
  readonly binades = new Map<number, number>();

  add(x: Float32Array | Float64Array): void {
    this.count += x.length;
    const before = this.finite;
    // Sums of x − shift (the chunk's first value): small next to x when the spread is, so the mean keeps its digits.
    let shift = Number.NaN;
    let sum = 0;
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!;
      if (Number.isNaN(v)) this.nan++;
      else if (!Number.isFinite(v)) this.infinite++;
      else {
        this.finite++;
        if (shift !== shift) shift = v;
        sum += v - shift;
        if (v < this.min) this.min = v;
        if (v > this.max) this.max = v;
        if (v === 0) this.zeros++;
        else {
          const e = binade(v);
          this.binades.set(e, (this.binades.get(e) ?? 0) + 1);
        }
      }
    }
    // A second pass for the chunk's squared deviations from its own mean: Σx² − n·mean² would cancel
    // catastrophically when the spread is small next to the mean (norm gains near 1).
    const n = this.finite - before;
    if (n === 0) return;
    const mean = shift + sum / n;
    let m2 = 0;
    for (let i = 0; i < x.length; i++) {
      const d = x[i]! - mean;
      if (Number.isFinite(d)) m2 += d * d;
    }
    this.combine(n, mean, m2);
  }

  /** Adds a group of n finite values with mean `mean` and squared deviations m2 to the running moments. */
  private combine(n: number, mean: number, m2: number): void {
    const before = this.finite - n;
    const delta = mean - this.runningMean;
    this.runningMean += (delta * n) / this.finite;
    this.m2 += m2 + ((delta * delta * before) / this.finite) * n;
  }

  merge(other: ValueStats): void {
    this.count += other.count;
    this.finite += other.finite;
    this.zeros += other.zeros;
    this.nan += other.nan;
    this.infinite += other.infinite;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
    if (other.finite > 0) this.combine(other.finite, other.runningMean, other.m2);
    for (const [e, n] of other.binades) this.binades.set(e, (this.binades.get(e) ?? 0) + n);
  }

  get mean(): number {
    return this.finite === 0 ? NaN : this.runningMean;
  }

  /** The population standard deviation of the finite values (NumPy's np.std). */
  get std(): number {
    return this.finite === 0 ? NaN : Math.sqrt(this.m2 / this.finite);
  }
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** ⌊log2 |v|⌋ of a nonzero finite float64, exactly (from the exponent bits; subnormals rescaled first). */
export function binade(v: number): number {
  f64[0] = Math.abs(v);
  let e = (u32[1]! >>> 20) & 0x7ff;
  if (e !== 0) return e - 1023;
  f64[0] = Math.abs(v) * 2 ** 64;
  e = (u32[1]! >>> 20) & 0x7ff;
  return e - 1023 - 64;
}

/** Text histogram of |x| by binade: at most `rows` binades from the largest down, smaller ones summed. */
export function binadeHistogram(s: ValueStats, rows = 24, width = 40): string {
  const es = [...s.binades.keys()].sort((a, b) => b - a);
  if (es.length === 0 && s.zeros === 0) return "(no finite values)\n";
  const top = es[0] ?? 0;
  const shown: [string, number][] = [];
  let rest = 0;
  for (let e = top; es.length > 0 && e >= es[es.length - 1]!; e--) {
    const n = s.binades.get(e) ?? 0;
    if (shown.length < rows) shown.push([`[2^${e}, 2^${e + 1})`, n]);
    else rest += n;
  }
  if (rest > 0) shown.push([`< 2^${top - rows + 1}`, rest]);
  if (s.zeros > 0) shown.push(["0", s.zeros]);
  if (s.nan + s.infinite > 0) shown.push(["NaN/Inf", s.nan + s.infinite]);
  const peak = Math.max(...shown.map(([, n]) => n));
  const label = Math.max(...shown.map(([l]) => l.length));
  return `${shown
    .map(([l, n]) => `${l.padStart(label)} | ${"#".repeat(Math.round((width * n) / peak)).padEnd(width)} ${n} (${((100 * n) / s.count).toFixed(2)}%)`)
    .join("\n")}\n`;
}

/** Smaller tensors convert in well under a millisecond: their rate would measure call overhead, not throughput. */
export const MIN_TIMED_ELEMENTS = 65536;

/**
 * The per-tensor error table of quantize: elements, RMSE, max |error|, relative error, % saturated (when counted),
 * % flushed to zero and throughput.
 */
export function errorReport(stats: ReadonlyMap<string, ErrorStats>, columns: { saturated: boolean }): string {
  const rows = [...stats].map(([name, s]) => [
    name,
    String(s.elements),
    num(s.rmse),
    num(s.maxAbsError),
    `${num(100 * s.relativeError)}%`,
    ...(columns.saturated ? [percent(s.overflowed, s.elements)] : []),
    percent(s.flushed, s.elements),
    s.elements >= MIN_TIMED_ELEMENTS ? rate(s.elements, s.seconds) : "-",
  ]);
  const head = ["tensor", "elements", "RMSE", "max |err|", "rel err", ...(columns.saturated ? ["saturated"] : []), "flushed", "throughput"];
  return renderTable(head, rows, head.map((_, i) => i).slice(1));
}
