// Property tests of decode and projection over every format with K ≤ 12 (all 280 P3109 formats) and the vendor
// formats (ml_dtypes/OCP/FNUZ/MX, binary16, bfloat16, Tesla). Each expectation is the rule, not a copied table.
import { describe, expect, it } from "vitest";
import { decodeExact, encodeExact } from "../src/api/scalar.js";
import type { Rounding, Saturation } from "../src/exact/projection.js";
import { type Exact, type Finite, NAN, NEG_INF, POS_INF, compareFinite, finite, normalize } from "../src/exact/value.js";
import type { Format } from "../src/format/model.js";
import { format, registeredNames } from "../src/format/registry.js";

const P3109: Format[] = [];
for (let K = 3; K <= 12; K++) {
  for (const s of ["s", "u"]) {
    for (let P = 1; P <= (s === "s" ? K - 1 : K); P++) for (const d of ["e", "f"]) P3109.push(format(`Binary${K}p${P}${s}${d}`));
  }
}
const VENDOR: Format[] = [
  ...new Set(
    registeredNames()
      .map((n) => format(n))
      .filter((f) => f.K <= 16),
  ),
  format("cfloat8_1_4_3", { bias: 7 }),
  format("cfloat8_1_5_2", { bias: 15 }),
  format("cfloat8_1_4_3", { bias: 0 }),
  format("cfloat8_1_5_2", { bias: 63 }),
  format("cfloat16_shp", { bias: 15 }),
];
const ALL = [...P3109, ...VENDOR];

const DETERMINISTIC: Rounding[] = ["TowardZero", "TowardPositive", "TowardNegative", "NearestTiesToAway", "NearestTiesToEven", "ToOdd", "TowardMaxMagnitude"];
const SATURATIONS: Saturation[] = ["SatFinite", "SatPropagate", "SatNone"];

/** Deterministic pseudo-random integers (xorshift32), so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

const neg = (x: Finite): Finite => finite(x.sign === 1 ? -1 : 1, x.significand, x.exponent);
function asFinite(x: Exact): Finite {
  if (x.kind !== "finite") throw new Error("expected a finite value");
  return x;
}

/** Code of −(value of magnitude code mag): sign–magnitude; the zero is +0 unless the format keeps −0. */
function negCode(f: Format, mag: number): number {
  if (mag === 0) return f.policy.signedZeroAndNaN && f.negativeZero === "zero" ? f.signBit : 0;
  return mag + f.signBit;
}

/** a and b on a common exponent with `room` spare low bits: returns integers A, B and the exponent. */
function align(a: Finite, b: Finite, room: number): { A: bigint; B: bigint; e: number } {
  const ea = a.significand === 0n ? b.exponent : a.exponent;
  const e = Math.min(ea, b.exponent) - room;
  return { A: a.significand << BigInt(ea - e), B: b.significand << BigInt(b.exponent - e), e };
}

/** The finite magnitudes in code order (flushed subnormals and −0 excluded). */
function magnitudes(f: Format): { mag: number; x: Finite }[] {
  const out: { mag: number; x: Finite }[] = [];
  const lo = f.subnormals === "flush" ? f.minNormalCode : 0;
  if (f.subnormals === "flush") out.push({ mag: 0, x: asFinite(decodeExact(0, f)) });
  for (let m = lo; m <= f.maxFiniteMagnitude; m++) if (!(f.subnormals === "flush" && m === 0)) out.push({ mag: m, x: asFinite(decodeExact(m, f)) });
  return out;
}

/** Collects failures without the cost of an assertion per check (hot loops run millions of checks). */
class Checks {
  count = 0;
  failures: string[] = [];
  eq(got: unknown, want: unknown, what: () => string): void {
    this.count++;
    if (got !== want && this.failures.length < 20) this.failures.push(`${what()}: got ${String(got)}, want ${String(want)}`);
  }
}

describe("decode order", () => {
  it(`is strictly increasing in magnitude code order (and mirrored for negatives) in all ${ALL.length} formats`, () => {
    const c = new Checks();
    let pairs = 0;
    for (const f of ALL) {
      let prev: Finite | undefined;
      for (let m = 0; m <= f.maxFiniteMagnitude; m++) {
        const x = asFinite(decodeExact(m, f));
        const flushed = f.subnormals === "flush" && m > 0 && m < f.minNormalCode;
        if (flushed) {
          c.eq(x.significand, 0n, () => `${f.name} ${m} flushes to 0`);
          continue;
        }
        if (prev) {
          c.eq(compareFinite(prev, x), -1, () => `${f.name} magnitude ${m - 1} < ${m}`);
          pairs++;
        }
        prev = x;
        if (f.signed && m > 0) {
          const y = decodeExact(m + f.signBit, f);
          c.eq(y.kind === "finite" && compareFinite(y, neg(x)) === 0, true, () => `${f.name} ${m + f.signBit} = −decode(${m})`);
        }
      }
      if (f.infinity) expect(decodeExact(f.posInfCode, f)).toEqual(POS_INF);
      if (f.infinity && f.signed) expect(decodeExact(f.negInfCode, f)).toEqual(NEG_INF);
    }
    expect(c.failures).toEqual([]);
    expect(pairs).toBeGreaterThan(100_000);
  });
});

describe("rounding between neighbours", () => {
  it("NearestTiesToEven: midpoints go to the even code, midpoint ± tiny to the nearer neighbour; NTTA ties away", () => {
    const c = new Checks();
    for (const f of ALL) {
      const mags = magnitudes(f);
      // Flushing formats send everything below MinNormal to 0: start at the first normal interval.
      for (let i = f.subnormals === "flush" ? 1 : 0; i + 1 < mags.length; i++) {
        const lo = mags[i]!;
        const hi = mags[i + 1]!;
        const { A, B, e } = align(lo.x, hi.x, 34);
        const mid = finite(1, (A + B) >> 1n, e);
        const d = (B - A) >> 32n;
        const even = lo.mag % 2 === 0 ? lo.mag : hi.mag;
        const what = () => `${f.name} (${lo.mag}, ${hi.mag})`;
        const opts = { rounding: "NearestTiesToEven", saturation: "SatFinite" } as const;
        c.eq(encodeExact(mid, f, opts), even, () => `${what()} RNE midpoint`);
        c.eq(encodeExact(finite(1, ((A + B) >> 1n) - d, e), f, opts), lo.mag, () => `${what()} RNE midpoint − tiny`);
        c.eq(encodeExact(finite(1, ((A + B) >> 1n) + d, e), f, opts), hi.mag, () => `${what()} RNE midpoint + tiny`);
        c.eq(encodeExact(mid, f, { rounding: "NearestTiesToAway", saturation: "SatFinite" }), hi.mag, () => `${what()} NTTA midpoint`);
        if (f.signed) {
          const negEven = lo.mag % 2 === 0 ? negCode(f, lo.mag) : negCode(f, hi.mag);
          c.eq(encodeExact(neg(mid), f, opts), negEven, () => `${what()} RNE −midpoint`);
          c.eq(encodeExact(neg(finite(1, ((A + B) >> 1n) + d, e)), f, opts), negCode(f, hi.mag), () => `${what()} RNE −(midpoint + tiny)`);
        }
      }
    }
    expect(c.failures).toEqual([]);
    expect(c.count).toBeGreaterThan(1_000_000);
  });

  it("directed modes bracket the input: TowardNegative ≤ x ≤ TowardPositive on adjacent codes, TowardZero toward 0, ToOdd picks the odd code, RNE the nearer", () => {
    const next = rng(3109);
    const c = new Checks();
    for (const f of ALL) {
      const mags = magnitudes(f);
      for (let i = f.subnormals === "flush" ? 1 : 0; i + 1 < mags.length; i++) {
        const lo = mags[i]!;
        const hi = mags[i + 1]!;
        const { A, B, e } = align(lo.x, hi.x, 24);
        let k = (next() % (2 ** 20 - 1)) + 1; // 0 < k < 2^20: strictly inside the interval
        if (k === 2 ** 19) k++;
        const x = finite(1, A + (((B - A) * BigInt(k)) >> 20n), e);
        const what = () => `${f.name} x = ${lo.mag} + ${k}/2^20 ulp`;
        const sat = "SatNone" as const;
        const down = encodeExact(x, f, { rounding: "TowardNegative", saturation: sat });
        const up = encodeExact(x, f, { rounding: "TowardPositive", saturation: sat });
        c.eq(down, lo.mag, () => `${what()} TowardNegative`);
        c.eq(up, hi.mag, () => `${what()} TowardPositive`);
        // The bracket in values (independent of the code layout): decode(down) < x < decode(up).
        c.eq(compareFinite(asFinite(decodeExact(down, f)), x), -1, () => `${what()} decode(TowardNegative) < x`);
        c.eq(compareFinite(asFinite(decodeExact(up, f)), x), 1, () => `${what()} decode(TowardPositive) > x`);
        c.eq(encodeExact(x, f, { rounding: "TowardZero", saturation: sat }), lo.mag, () => `${what()} TowardZero`);
        c.eq(encodeExact(x, f, { rounding: "TowardMaxMagnitude", saturation: sat }), hi.mag, () => `${what()} TowardMaxMagnitude`);
        c.eq(encodeExact(x, f, { rounding: "ToOdd", saturation: sat }), lo.mag % 2 === 1 ? lo.mag : hi.mag, () => `${what()} ToOdd`);
        c.eq(encodeExact(x, f, { rounding: "NearestTiesToEven", saturation: sat }), k < 2 ** 19 ? lo.mag : hi.mag, () => `${what()} RNE`);
        if (f.signed) {
          const nx = neg(x);
          c.eq(encodeExact(nx, f, { rounding: "TowardNegative", saturation: sat }), negCode(f, hi.mag), () => `${what()} −x TowardNegative`);
          c.eq(encodeExact(nx, f, { rounding: "TowardPositive", saturation: sat }), negCode(f, lo.mag), () => `${what()} −x TowardPositive`);
          c.eq(encodeExact(nx, f, { rounding: "TowardZero", saturation: sat }), negCode(f, lo.mag), () => `${what()} −x TowardZero`);
        }
      }
      // Exact values are fixed points of every mode.
      for (const { mag, x } of [mags[0]!, mags[mags.length >> 1]!, mags[mags.length - 1]!]) {
        for (const r of DETERMINISTIC) c.eq(encodeExact(x, f, { rounding: r, saturation: "SatNone" }), mag, () => `${f.name} exact ${mag} ${r}`);
      }
    }
    expect(c.failures).toEqual([]);
    expect(c.count).toBeGreaterThan(1_000_000);
  });
});

/**
 * The expected code of an input above MaxFinite after rounding (report v4.0 §4.7.5, rules 3–25; vendor formats
 * without infinities send SatNone overflow to NaN where `finiteOverflow` says so (OCP E4M3FN, FNUZ)).
 * `overflows` says whether the rounded value exceeds MaxFinite.
 */
function expectedHigh(f: Format, rnd: Rounding, sat: Saturation, negative: boolean, overflows: boolean, infinite: boolean): number | "nan" {
  const max = f.maxFiniteMagnitude;
  const pos = (code: number) => (negative ? (code === f.posInfCode && f.infinity ? f.negInfCode : code + f.signBit) : code);
  if (!overflows) return pos(max);
  if (sat === "SatFinite") return pos(max);
  if (sat === "SatPropagate") return infinite && f.infinity ? pos(f.posInfCode) : pos(max);
  // SatNone
  if (infinite) return f.infinity ? pos(f.posInfCode) : f.policy.finiteOverflow === "nan" ? "nan" : pos(max);
  const towardZero = rnd === "TowardZero" || (negative ? rnd === "TowardPositive" : rnd === "TowardNegative");
  if (towardZero) return pos(max);
  if (rnd === "ToOdd" && !f.signed && f.infinity) return pos(max);
  if (f.infinity) return pos(f.posInfCode);
  return f.policy.finiteOverflow === "nan" ? "nan" : pos(max);
}

/** Which way an input strictly between MaxFinite and the next binade value rounds (true: up, past MaxFinite). */
function roundsUp(f: Format, rnd: Rounding, negative: boolean, tie: boolean, aboveTie: boolean): boolean {
  switch (rnd) {
    case "TowardZero":
      return false;
    case "TowardPositive":
      return !negative;
    case "TowardNegative":
      return negative;
    case "TowardMaxMagnitude":
      return true;
    case "ToOdd":
      return f.maxFiniteMagnitude % 2 === 0; // jam to the odd code of the pair (MaxFinite, next)
    case "NearestTiesToAway":
      return tie || aboveTie;
    case "NearestTiesToEven":
      return tie ? f.maxFiniteMagnitude % 2 === 1 : aboveTie;
    default:
      throw new Error(rnd);
  }
}

function checkCode(f: Format, got: number, want: number | "nan", negative: boolean, what: string) {
  if (want === "nan") {
    expect(f.isNaNCode(got), `${what}: NaN code, got ${got}`).toBe(true);
    if (f.signed && f.policy.signedZeroAndNaN && f.highNaNs > 0) expect(f.isNegativeCode(got), `${what}: NaN keeps the sign`).toBe(negative);
  } else expect(got, what).toBe(want);
}

describe("saturation at the top of the range (every format × 7 roundings × 3 saturations)", () => {
  it("MaxFinite, MaxFinite + ½ulp (± tiny), the Inf code position, 2·MaxFinite, 2^(bias+200), ±∞ and NaN, both signs", () => {
    let checked = 0;
    for (const f of ALL) {
      const maxX = asFinite(decodeExact(f.maxFiniteMagnitude, f));
      // The value the next magnitude code would have if the exponent were unbounded: MaxFinite + ulp.
      const ulpExp = Math.max(maxX.exponent + (Number(maxX.significand.toString(2).length) - 1) - (f.P - 1), f.minQuantumExponent);
      const maxN = normalize(maxX) as Finite;
      const room = 40;
      const base = maxN.significand << BigInt(maxN.exponent - (ulpExp - room));
      const ulp = 1n << BigInt(room);
      const at = (num: bigint) => finite(1, num, ulpExp - room);
      const inputs: { x: Exact; tie: boolean; aboveTie: boolean; beyond: boolean; label: string }[] = [
        { x: at(base + ulp / 2n), tie: true, aboveTie: false, beyond: false, label: "Max+½ulp" },
        { x: at(base + ulp / 2n - 1n), tie: false, aboveTie: false, beyond: false, label: "Max+½ulp−tiny" },
        { x: at(base + ulp / 2n + 1n), tie: false, aboveTie: true, beyond: false, label: "Max+½ulp+tiny" },
        { x: at(base + 1n), tie: false, aboveTie: false, beyond: false, label: "Max+tiny" },
        { x: at(base + ulp), tie: false, aboveTie: true, beyond: true, label: "Inf code position (Max+ulp)" },
        { x: finite(1, maxN.significand, maxN.exponent + 1), tie: false, aboveTie: true, beyond: true, label: "2·Max" },
        { x: finite(1, 3n, f.bias + 200), tie: false, aboveTie: true, beyond: true, label: "3·2^(bias+200)" },
      ];
      for (const rnd of DETERMINISTIC) {
        for (const sat of SATURATIONS) {
          const o = { rounding: rnd, saturation: sat };
          // MaxFinite itself is in range for every mode.
          expect(encodeExact(maxX, f, o), `${f.name} Max ${rnd}/${sat}`).toBe(f.maxFiniteMagnitude);
          for (const inp of inputs) {
            for (const negative of f.signed ? [false, true] : [false]) {
              const x = negative ? neg(inp.x as Finite) : inp.x;
              const overflows = inp.beyond || roundsUp(f, rnd, negative, inp.tie, inp.aboveTie);
              const want = expectedHigh(f, rnd, sat, negative, overflows, false);
              checkCode(f, encodeExact(x, f, o), want, negative, `${f.name} ${negative ? "−" : ""}${inp.label} ${rnd}/${sat}`);
              checked++;
            }
          }
          // ±∞
          checkCode(f, encodeExact(POS_INF, f, o), expectedHigh(f, rnd, sat, false, true, true), false, `${f.name} +Inf ${rnd}/${sat}`);
          if (f.signed) checkCode(f, encodeExact(NEG_INF, f, o), expectedHigh(f, rnd, sat, true, true, true), true, `${f.name} −Inf ${rnd}/${sat}`);
          // NaN: the NaN code where the format has one (Tesla: clamp to MaxFinite; MX: ml_dtypes' −0 artefact).
          const nan = encodeExact(NAN, f, o);
          if (f.hasNaN) expect(f.isNaNCode(nan), `${f.name} NaN`).toBe(true);
          else if (f.policy.nanSubstitute === "maxfinite") expect(nan).toBe(f.maxFiniteMagnitude);
          else expect(nan).toBe(f.signBit);
          checked += 3;
        }
      }
    }
    expect(checked).toBeGreaterThan(80_000);
  });
});

describe("unsigned formats: negative inputs (v4.0 rules 5, 11, 16, 20, 22)", () => {
  it("rounded negative nonzero → 0 under SatFinite/SatPropagate and under SatNone with TowardZero/TowardPositive, else NaN; negatives rounding to 0 give 0", () => {
    let checked = 0;
    for (const f of ALL.filter((g) => !g.signed && g.zero)) {
      // The smallest positive value (MinNormal where subnormals are flushed).
      const minPos = asFinite(decodeExact(f.subnormals === "flush" ? f.minNormalCode : f.minPositiveCode, f));
      const cases: { x: Exact; roundsToZero: (r: Rounding) => boolean; label: string }[] = [
        { x: neg(minPos), roundsToZero: () => false, label: "−MinPositive" },
        {
          x: neg(finite(1, minPos.significand, minPos.exponent - 2)),
          // Flushing formats (UHP) flush every result below MinNormal to 0 before saturation.
          roundsToZero: (r) =>
            f.subnormals === "flush" || r === "TowardZero" || r === "TowardPositive" || r === "NearestTiesToEven" || r === "NearestTiesToAway",
          label: "−MinPositive/4",
        },
        { x: finite(-1, 1n, 0), roundsToZero: () => false, label: "−1" },
        { x: NEG_INF, roundsToZero: () => false, label: "−Inf" },
      ];
      for (const rnd of DETERMINISTIC) {
        for (const sat of SATURATIONS) {
          for (const c of cases) {
            const got = encodeExact(c.x, f, { rounding: rnd, saturation: sat });
            const isInf = c.x.kind === "infinity";
            let want: number | "nan";
            if (!isInf && c.roundsToZero(rnd)) want = 0;
            else if (sat !== "SatNone") want = 0;
            else if (!isInf && (rnd === "TowardZero" || rnd === "TowardPositive")) want = 0;
            else want = "nan";
            checkCode(f, got, want, true, `${f.name} ${c.label} ${rnd}/${sat}`);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });
});

describe("bottom of the range", () => {
  it("MinPositive/2 ties to 0 (even) under RNE, rounds up under NTTA; below it TowardPositive gives MinPositive, TowardZero 0 (formats with zero and gradual subnormals)", () => {
    for (const f of ALL.filter((g) => g.zero && g.subnormals === "gradual")) {
      const minPos = asFinite(decodeExact(f.minPositiveCode, f));
      const half = finite(1, minPos.significand, minPos.exponent - 1);
      const tiny = finite(1, 1n, minPos.exponent - 60);
      expect(encodeExact(half, f, { rounding: "NearestTiesToEven", saturation: "SatNone" }), f.name).toBe(0);
      expect(encodeExact(half, f, { rounding: "NearestTiesToAway", saturation: "SatNone" }), f.name).toBe(f.minPositiveCode);
      expect(encodeExact(tiny, f, { rounding: "TowardPositive", saturation: "SatNone" }), f.name).toBe(f.minPositiveCode);
      expect(encodeExact(tiny, f, { rounding: "TowardZero", saturation: "SatNone" }), f.name).toBe(0);
      expect(encodeExact(tiny, f, { rounding: "ToOdd", saturation: "SatNone" }), f.name).toBe(f.minPositiveCode);
    }
  });
});

describe("stochastic rounding (§4.7.4): how many of the 2^N values of R round away", () => {
  /** ⌊y⌋ rounded to nearest, ties to even, for y = num / 2^s. */
  const rnite = (num: bigint, s: number): bigint => {
    const fl = num >> BigInt(s);
    const rem = num - (fl << BigInt(s));
    const half = 1n << BigInt(s - 1);
    return rem > half || (rem === half && (fl & 1n) === 1n) ? fl + 1n : fl;
  };

  it("a worked table: Binary8p4se, X = 1 + ν/8, N = 2", () => {
    const f = format("Binary8p4se");
    const table: [number, string[], string[], string[]][] = [
      [0, [], [], []],
      [1 / 16, [], [], []],
      [1 / 4, ["3"], ["3"], ["3"]],
      [5 / 16, ["3"], ["3"], ["3"]],
      [3 / 8, ["3"], ["2", "3"], ["2", "3"]],
      [5 / 8, ["2", "3"], ["1", "2", "3"], ["2", "3"]],
      [15 / 16, ["1", "2", "3"], ["0", "1", "2", "3"], ["0", "1", "2", "3"]],
    ];
    const base = encodeExact(finite(1, 1n, 0), f);
    for (const [nu, a, b, c] of table) {
      const x = finite(1, BigInt(128 + nu * 16), -7); // 1 + ν/8 = (128 + 16ν)/128
      for (const [mode, want] of [
        ["StochasticA", a],
        ["StochasticB", b],
        ["StochasticC", c],
      ] as const) {
        const up = [0, 1, 2, 3].filter((R) => encodeExact(x, f, { rounding: mode, stochasticBits: 2, random: R }) === base + 1).map(String);
        expect(up, `${mode} ν = ${nu}`).toEqual(want);
      }
    }
  });

  it("A rounds away for ⌊ν2^N⌋ values of R, B for ⌊(⌊ν2^(N+1)⌋ + 1)/2⌋, C for RNITE(ν2^N) (the largest R), in every format with K ≤ 8", () => {
    const next = rng(7);
    const c = new Checks();
    for (const f of ALL.filter((g) => g.K <= 8 && g.policy.defaultProjection !== "ml_dtypes_e8m0")) {
      const mags = magnitudes(f);
      for (let t = 0; t < 40; t++) {
        const i = next() % (mags.length - 1);
        const lo = mags[i]!;
        const hi = mags[i + 1]!;
        if (f.subnormals === "flush" && lo.mag < f.minNormalCode) continue;
        const { A, B, e } = align(lo.x, hi.x, 16);
        const k = BigInt(next() % 2 ** 16); // ν = k / 2^16 of the spacing
        const x = finite(1, A + (((B - A) * k) >> 16n), e);
        for (const N of [1, 2, 3, 5]) {
          const expected = {
            StochasticA: k >> BigInt(16 - N),
            StochasticB: ((k >> BigInt(15 - N)) + 1n) >> 1n,
            StochasticC: rnite(k, 16 - N),
          };
          for (const mode of ["StochasticA", "StochasticB", "StochasticC"] as const) {
            let up = 0;
            for (let R = 0; R < 2 ** N; R++) {
              const got = encodeExact(x, f, { rounding: mode, stochasticBits: N, random: R, saturation: "SatFinite" });
              if (got === hi.mag) {
                up++;
                c.eq(R >= 2 ** N - Number(expected[mode]), true, () => `${f.name} ${mode} N=${N} ν=${k}/2^16: R=${R} rounds up but is not among the largest`);
              } else c.eq(got, lo.mag, () => `${f.name} ${mode} N=${N}: result is neither neighbour`);
            }
            c.eq(BigInt(up), expected[mode], () => `${f.name} ${mode} N=${N} ν=${k}/2^16: round-up count`);
          }
        }
      }
    }
    expect(c.failures).toEqual([]);
    expect(c.count).toBeGreaterThan(50_000);
  });
});
