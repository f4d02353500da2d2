// Exhaustive independent check: every binary operation (Add, Subtract, Multiply, Divide, Hypot, CopySign, the ten
// Minimum/Maximum variants, the five comparisons and TotalOrder) over ALL code pairs of Binary8p3se and Binary8p4se
// under (NearestTiesToEven, SatNone), plus seeded samples under every deterministic projection, against an evaluation
// written here from scratch: datums from the working group's value tables, rational arithmetic on BigInt
// numerator/denominator, and a rounding that selects among neighbouring datums by comparing with the real result.
import { describe, expect, it } from "vitest";
import type { Rounding, Saturation } from "../src/exact/projection.js";
import { specialize } from "../src/ops/index.js";
import { readValueTable, sharedPath } from "./golden/reader.js";
import { Mismatches } from "./ops-helpers.js";

/** A real in ℝω: a rational n/d (d > 0), ±Inf or NaN. */
type Real = { t: "nan" } | { t: "inf"; s: 1 | -1 } | { t: "q"; n: bigint; d: bigint } | { t: "sqrt"; n: bigint; d: bigint };

const NAN: Real = { t: "nan" };
const inf = (s: number): Real => ({ t: "inf", s: s < 0 ? -1 : 1 });
const q = (n: bigint, d: bigint): Real => (d < 0n ? { t: "q", n: -n, d: -d } : { t: "q", n, d });
const sgnQ = (r: Real): number => (r.t === "q" ? (r.n > 0n ? 1 : r.n < 0n ? -1 : 0) : r.t === "inf" ? r.s : r.t === "sqrt" ? (r.n > 0n ? 1 : 0) : 0);

/** sign(v − a/b) for a real v and a rational a/b (b > 0). */
function cmp(v: Real, a: bigint, b: bigint): number {
  if (v.t === "inf") return v.s;
  if (v.t === "q") {
    const x = v.n * b - a * v.d;
    return x > 0n ? 1 : x < 0n ? -1 : 0;
  }
  if (v.t === "sqrt") {
    if (a < 0n) return 1; // √ ≥ 0 > a/b
    const x = v.n * b * b - a * a * v.d; // sign(n/d − a²/b²)
    return x > 0n ? 1 : x < 0n ? -1 : 0;
  }
  throw new Error("NaN has no order");
}

/** Order of two non-NaN reals of the rational kind or ±Inf. */
function order(x: Real, y: Real): number {
  if (x.t === "inf" || y.t === "inf") {
    const rx = x.t === "inf" ? x.s * 2 : 0;
    const ry = y.t === "inf" ? y.s * 2 : 0;
    if (rx !== 0 || ry !== 0) return Math.sign(rx - ry);
  }
  const a = x as { n: bigint; d: bigint };
  return cmp(y, a.n, a.d) * -1;
}

interface Datum {
  code: number;
  n: bigint; // value = n / S
}

class Independent {
  readonly S: bigint;
  readonly finite: Datum[]; // ascending, zero once, plus the two virtual overflow points at both ends
  readonly value: Real[] = [];
  constructor(readonly name: string) {
    const rows = readValueTable(sharedPath("golden", "p3109-value-tables", `${name}.csv`));
    const minExp = Math.min(...rows.filter((r) => r.value.kind === "finite").map((r) => (r.value as any).exponent as number));
    this.S = 1n << BigInt(-minExp);
    const list: Datum[] = [];
    for (const r of rows) {
      const v = r.value;
      if (v.kind === "nan") this.value[r.code] = NAN;
      else if (v.kind === "infinity") this.value[r.code] = inf(v.sign);
      else {
        const n = BigInt(v.sign) * (v.significand << BigInt(v.exponent - minExp));
        this.value[r.code] = q(n, this.S);
        list.push({ code: r.code, n });
      }
    }
    list.sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
    const top = list[list.length - 1]!;
    const ulp = top.n - list[list.length - 2]!.n;
    // One step beyond ±MaxFinite: where rounding to the grid with unbounded exponent leaves the range ("overflow").
    this.finite = [{ code: -2, n: -(top.n + ulp) }, ...list, { code: -1, n: top.n + ulp }];
  }

  private readonly maxCode = () => this.finite[this.finite.length - 2]!.code;
  private readonly minCode = () => this.finite[1]!.code;

  /** ωProject of a real, by neighbour selection (P3109 signed extended formats). */
  project(v: Real, rounding: Rounding, sat: Saturation): number {
    const codes = { nan: 0x80, pinf: 0x7f, ninf: 0xff };
    if (v.t === "nan") return codes.nan;
    if (v.t === "inf") return sat === "SatFinite" ? (v.s > 0 ? this.maxCode() : this.minCode()) : v.s > 0 ? codes.pinf : codes.ninf;
    const F = this.finite;
    // Largest datum ≤ v (binary search over the extended grid; v below the lowest virtual point is "overflow").
    let lo = -1;
    let hi = F.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (cmp(v, F[mid]!.n, this.S) >= 0) lo = mid;
      else hi = mid;
    }
    let pick: Datum;
    if (lo === -1) pick = F[0]!;
    else if (lo === F.length - 1 || cmp(v, F[lo]!.n, this.S) === 0) pick = F[lo]!;
    else {
      const a = F[lo]!;
      const b = F[lo + 1]!;
      const c = cmp(v, a.n + b.n, 2n * this.S); // v vs the midpoint
      const mag = (d: Datum): number => (d.code < 0 ? 0x7f : d.code & 0x7f);
      const even = mag(a) % 2 === 0 ? a : b;
      const odd = even === a ? b : a;
      const positive = sgnQ(v) > 0;
      const towardZero = positive ? a : b;
      const awayFromZero = positive ? b : a;
      switch (rounding) {
        case "TowardZero":
          pick = towardZero;
          break;
        case "TowardPositive":
          pick = b;
          break;
        case "TowardNegative":
          pick = a;
          break;
        case "ToOdd":
          pick = odd;
          break;
        case "NearestTiesToAway":
          pick = c === 0 ? awayFromZero : c < 0 ? a : b;
          break;
        default:
          pick = c === 0 ? even : c < 0 ? a : b;
      }
    }
    if (pick.code >= 0) return pick.code;
    // Rounded beyond ±MaxFinite: saturation (report §4.7.5 for signed extended formats).
    const up = pick.code === -1;
    if (sat !== "SatNone") return up ? this.maxCode() : this.minCode();
    if (up) return rounding === "TowardZero" || rounding === "TowardNegative" ? this.maxCode() : codes.pinf;
    return rounding === "TowardZero" || rounding === "TowardPositive" ? this.minCode() : codes.ninf;
  }
}

// Real-number semantics with the report's special cases, written independently of src/ops.
const isNaNReal = (x: Real): boolean => x.t === "nan";
const isInf = (x: Real, s?: number): boolean => x.t === "inf" && (s === undefined || x.s === s);
const isZero = (x: Real): boolean => x.t === "q" && x.n === 0n;
const sign = (x: Real): number => sgnQ(x);
const rat = (x: Real): { n: bigint; d: bigint } => x as { n: bigint; d: bigint };

const arithmetic: Record<string, (x: Real, y: Real) => Real> = {
  Add(x, y) {
    if (isNaNReal(x) || isNaNReal(y)) return NAN;
    if (isInf(x) && isInf(y)) return sign(x) === sign(y) ? x : NAN;
    if (isInf(x)) return x;
    if (isInf(y)) return y;
    return q(rat(x).n * rat(y).d + rat(y).n * rat(x).d, rat(x).d * rat(y).d);
  },
  Subtract(x, y) {
    const negY: Real = y.t === "inf" ? inf(-y.s) : y.t === "q" ? q(-y.n, y.d) : y;
    return arithmetic.Add!(x, negY);
  },
  Multiply(x, y) {
    if (isNaNReal(x) || isNaNReal(y)) return NAN;
    if ((isInf(x) && isZero(y)) || (isZero(x) && isInf(y))) return NAN;
    if (isInf(x) || isInf(y)) return inf(sign(x) * sign(y));
    return q(rat(x).n * rat(y).n, rat(x).d * rat(y).d);
  },
  Divide(x, y) {
    if (isNaNReal(x) || isNaNReal(y) || (isInf(x) && isInf(y)) || isZero(y)) return NAN;
    if (isInf(x)) return inf(sign(x) * sign(y));
    if (isInf(y)) return q(0n, 1n);
    return q(rat(x).n * rat(y).d, rat(x).d * rat(y).n);
  },
  Hypot(x, y) {
    if (isNaNReal(x) || isNaNReal(y)) return NAN;
    if (isInf(x) || isInf(y)) return inf(1);
    const a = rat(x);
    const b = rat(y);
    return { t: "sqrt", n: a.n * a.n * b.d * b.d + b.n * b.n * a.d * a.d, d: a.d * a.d * b.d * b.d };
  },
  CopySign(x, y) {
    if (isNaNReal(x) || isNaNReal(y)) return NAN;
    const s = sign(y) < 0 ? -1 : 1;
    if (isInf(x)) return inf(s);
    const a = rat(x);
    return q(BigInt(s) * (a.n < 0n ? -a.n : a.n), a.d);
  },
};

const absR = (x: Real): Real => (x.t === "inf" ? inf(1) : q(rat(x).n < 0n ? -rat(x).n : rat(x).n, rat(x).d));
const pickMin = (x: Real, y: Real): Real => (order(x, y) <= 0 ? x : y);
const pickMax = (x: Real, y: Real): Real => (order(x, y) >= 0 ? x : y);
const ignoreNaN =
  (f: (x: Real, y: Real) => Real) =>
  (x: Real, y: Real): Real =>
    isNaNReal(x) && isNaNReal(y) ? NAN : isNaNReal(x) ? y : isNaNReal(y) ? x : f(x, y);
const nanIfAny =
  (f: (x: Real, y: Real) => Real) =>
  (x: Real, y: Real): Real =>
    isNaNReal(x) || isNaNReal(y) ? NAN : f(x, y);
const minMag = (x: Real, y: Real): Real => {
  const c = order(absR(x), absR(y));
  return c < 0 ? x : c > 0 ? y : pickMin(x, y);
};
const maxMag = (x: Real, y: Real): Real => {
  const c = order(absR(x), absR(y));
  return c > 0 ? x : c < 0 ? y : pickMax(x, y);
};
const finitePreferred =
  (f: (x: Real, y: Real) => Real) =>
  (x: Real, y: Real): Real =>
    isInf(x) && !isInf(y) ? y : isInf(y) && !isInf(x) ? x : f(x, y);

const extrema: Record<string, (x: Real, y: Real) => Real> = {
  Minimum: nanIfAny(pickMin),
  Maximum: nanIfAny(pickMax),
  MinimumNumber: ignoreNaN(pickMin),
  MaximumNumber: ignoreNaN(pickMax),
  MinimumMagnitude: nanIfAny(minMag),
  MaximumMagnitude: nanIfAny(maxMag),
  MinimumMagnitudeNumber: ignoreNaN(minMag),
  MaximumMagnitudeNumber: ignoreNaN(maxMag),
  MinimumFinite: ignoreNaN(finitePreferred(pickMin)),
  MaximumFinite: ignoreNaN(finitePreferred(pickMax)),
};

const comparisons: Record<string, (x: Real, y: Real) => boolean> = {
  CompareLess: (x, y) => !isNaNReal(x) && !isNaNReal(y) && order(x, y) < 0,
  CompareLessEqual: (x, y) => !isNaNReal(x) && !isNaNReal(y) && order(x, y) <= 0,
  CompareEqual: (x, y) => !isNaNReal(x) && !isNaNReal(y) && order(x, y) === 0,
  CompareGreater: (x, y) => !isNaNReal(x) && !isNaNReal(y) && order(x, y) > 0,
  CompareGreaterEqual: (x, y) => !isNaNReal(x) && !isNaNReal(y) && order(x, y) >= 0,
  TotalOrder: (x, y) => (isNaNReal(x) ? true : isNaNReal(y) ? false : order(x, y) <= 0),
};

const ROUNDINGS: Rounding[] = ["TowardZero", "TowardPositive", "TowardNegative", "NearestTiesToAway", "NearestTiesToEven", "ToOdd"];
const SATURATIONS: Saturation[] = ["SatFinite", "SatPropagate", "SatNone"];

/** Deterministic pseudo-random pairs (xorshift32), the same on every run. */
function samplePairs(count: number, seed: number): [number, number][] {
  let s = seed >>> 0 || 1;
  const next = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return Array.from({ length: count }, () => [next() & 255, next() & 255] as [number, number]);
}

describe.each(["Binary8p3se", "Binary8p4se"])("%s: independent rational evaluation", (name) => {
  const ind = new Independent(name);
  const xs = new Uint8Array(65536).map((_, i) => i >> 8);
  const ys = new Uint8Array(65536).map((_, i) => i & 255);

  it("the value tables give 256 codes with one NaN and ±Inf", () => {
    expect(ind.value.length).toBe(256);
    expect(ind.value.filter((v) => v.t === "nan").length).toBe(1);
    expect(ind.finite.length).toBe(256 - 3 + 2);
  });

  it.each([...Object.keys(arithmetic), ...Object.keys(extrema)])("%s over all 65 536 pairs, (NearestTiesToEven, SatNone)", (op) => {
    const f = arithmetic[op] ?? extrema[op]!;
    const got = specialize(op, { operands: [name, name], result: name }).map(xs, ys);
    const m = new Mismatches();
    for (let i = 0; i < 65536; i++) {
      const want = ind.project(f(ind.value[xs[i]!]!, ind.value[ys[i]!]!), "NearestTiesToEven", "SatNone");
      m.add(got[i] === want, () => `${op}(${xs[i]}, ${ys[i]}) = ${got[i]}, independent ${want}`);
    }
    expect(m.checked).toBe(65536);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });

  it.each(Object.keys(comparisons))("%s over all 65 536 pairs", (op) => {
    const got = specialize(op, { operands: [name, name] }).map(xs, ys);
    const m = new Mismatches();
    for (let i = 0; i < 65536; i++) {
      const want = comparisons[op]!(ind.value[xs[i]!]!, ind.value[ys[i]!]!) ? 1 : 0;
      m.add(got[i] === want, () => `${op}(${xs[i]}, ${ys[i]}) = ${got[i]}, independent ${want}`);
    }
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });

  it("every deterministic projection (6 roundings × 3 saturations) on 1 500 seeded pairs per arithmetic op", () => {
    const pairs = samplePairs(1500, name.length * 7919);
    const m = new Mismatches();
    for (const op of Object.keys(arithmetic)) {
      for (const rounding of ROUNDINGS) {
        for (const saturation of SATURATIONS) {
          const s = specialize(op, { operands: [name, name], result: name, rounding, saturation });
          for (const [x, y] of pairs) {
            const want = ind.project(arithmetic[op]!(ind.value[x]!, ind.value[y]!), rounding, saturation);
            const got = s(x, y);
            m.add(got === want, () => `${s.signature}(${x}, ${y}) = ${got}, independent ${want}`);
          }
        }
      }
    }
    expect(m.checked).toBe(6 * 18 * 1500);
    expect(m.summary()).toEqual({ count: 0, first: [] });
  });
});
