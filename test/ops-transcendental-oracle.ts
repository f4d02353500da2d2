// An independent high-precision model of the transcendental functions for the tests: plain fixed-point BigInt
// arithmetic with F fraction bits and algorithms deliberately different from src/ops/transcendental (exp by
// repeated squaring only, log by Newton–Halley iteration on exp, arctan by Euler's series, π by Störmer's
// formula, sin/cos by reduction modulo 2π). Accurate to far better than 2^−200 absolute for the arguments used
// (|x| ≤ 64 for exp; any 8-bit format value elsewhere); callers compare with a 2^−200 tolerance.

export const F = 512;
export const ONE = 1n << BigInt(F);

export type OracleValue = { kind: "nan" } | { kind: "inf"; sign: 1 | -1 } | { kind: "approx"; v: bigint };

const NANV: OracleValue = { kind: "nan" };
const approx = (v: bigint): OracleValue => ({ kind: "approx", v });

const mul = (a: bigint, b: bigint): bigint => (a * b) >> BigInt(F);
const div = (a: bigint, b: bigint): bigint => (a << BigInt(F)) / b;

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((n.toString(2).length + 1) >> 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}
const sqrt = (a: bigint): bigint => isqrt(a << BigInt(F));

/** Σ 1/((2k+1)·n^(2k+1)) with alternating signs, in fixed point. */
function atanInv(n: bigint): bigint {
  let p = ONE / n;
  let s = 0n;
  for (let k = 0n; p !== 0n; k++) {
    s += (k % 2n === 0n ? 1n : -1n) * (p / (2n * k + 1n));
    p /= n * n;
  }
  return s;
}

/** Störmer: π = 24·arctan(1/8) + 8·arctan(1/57) + 4·arctan(1/239). */
export const PI = 24n * atanInv(8n) + 8n * atanInv(57n) + 4n * atanInv(239n);

/** e^x for |x| ≤ 64 (fixed point): Taylor series of x/2^24, then 24 squarings. */
export function expF(x: bigint): bigint {
  if (x < 0n) return div(ONE, expF(-x));
  const r = x >> 24n;
  let sum = ONE;
  let term = ONE;
  for (let n = 1n; term !== 0n; n++) {
    term = mul(term, r) / n;
    sum += term;
  }
  for (let i = 0; i < 24; i++) sum = mul(sum, sum);
  return sum;
}

/** ln x for x > 0 by Halley's iteration y ← y + 2(x − e^y)/(x + e^y) from a float64 start. */
export function logF(x: bigint): bigint {
  const xf = Number(x >> BigInt(F - 60)) / 2 ** 60;
  let y = BigInt(Math.round(Math.log(xf) * 2 ** 50)) << BigInt(F - 50);
  for (let i = 0; i < 8; i++) {
    const e = expF(y);
    y += div(2n * (x - e), x + e);
  }
  return y;
}

/** arctan x by Euler's series Σ 2^(2k)(k!)²/(2k+1)! · x^(2k+1)/(1+x²)^(k+1), |x| ≤ 1; reflected beyond. */
export function atanF(x: bigint): bigint {
  if (x < 0n) return -atanF(-x);
  if (x > ONE) return PI / 2n - atanF(div(ONE, x));
  const x2 = mul(x, x);
  const q = div(x2, ONE + x2);
  let term = div(x, ONE + x2);
  let sum = term;
  for (let k = 1n; term !== 0n; k++) {
    term = (mul(term, q) * (2n * k)) / (2n * k + 1n);
    sum += term;
  }
  return sum;
}

/** sin and cos by reduction modulo 2π and Taylor series on [−π, π]. */
function reduce2Pi(x: bigint): bigint {
  const twoPi = 2n * PI;
  let r = x - (x / twoPi) * twoPi;
  if (r > PI) r -= twoPi;
  if (r < -PI) r += twoPi;
  return r;
}

export function sinF(x: bigint): bigint {
  const r = reduce2Pi(x);
  const r2 = mul(r, r);
  let term = r;
  let sum = r;
  for (let n = 1n; term !== 0n; n++) {
    term = -mul(term, r2) / (2n * n * (2n * n + 1n));
    sum += term;
  }
  return sum;
}

export function cosF(x: bigint): bigint {
  const r = reduce2Pi(x);
  const r2 = mul(r, r);
  let term = ONE;
  let sum = ONE;
  for (let n = 1n; term !== 0n; n++) {
    term = -mul(term, r2) / ((2n * n - 1n) * (2n * n));
    sum += term;
  }
  return sum;
}

const LN2 = logF(2n * ONE);

/**
 * The oracle for one unary op at a finite or special argument. `x` is the exact argument as m·2^e (or a special);
 * arguments with e + F < 0 do not occur for the 8-bit formats used.
 */
export function oracle(op: string, arg: { kind: "nan" } | { kind: "inf"; sign: 1 | -1 } | { kind: "finite"; m: bigint; e: number }): OracleValue {
  if (arg.kind === "nan") return NANV;
  if (arg.kind === "inf") return oracleInf(op, arg.sign);
  const x = arg.e >= -F ? arg.m << BigInt(arg.e + F) : 0n;
  const big = x > 64n * ONE || x < -64n * ONE;
  const pos = x > 0n;
  const inf = (sign: 1 | -1): OracleValue => ({ kind: "inf", sign });
  // Far beyond 8-bit ranges (|result| > 2^90 or < 2^−90) the exact result only matters through its sign.
  const hugePos = approx(1n << BigInt(F + 100));
  const tinyPos = approx(1n << BigInt(F - 100));
  switch (op) {
    case "Exp":
      return big ? (pos ? hugePos : tinyPos) : approx(expF(x));
    case "Exp2":
      return big ? (pos ? hugePos : tinyPos) : approx(expF(mul(x, LN2)));
    case "ExpMinusOne":
      return big ? (pos ? hugePos : approx(-ONE + (1n << BigInt(F - 100)))) : approx(expF(x) - ONE);
    case "Log":
      return x < 0n ? NANV : x === 0n ? inf(-1) : approx(logF(x));
    case "Log2":
      return x < 0n ? NANV : x === 0n ? inf(-1) : approx(div(logF(x), LN2));
    case "LogOnePlus":
      return x < -ONE ? NANV : x === -ONE ? inf(-1) : approx(logF(ONE + x));
    case "Softplus":
      if (big) return pos ? approx(x + (1n << BigInt(F - 100))) : tinyPos;
      return approx(logF(ONE + expF(x)));
    case "Sin":
      return approx(sinF(x));
    case "Cos":
      return approx(cosF(x));
    case "Tan":
      return approx(div(sinF(x), cosF(x)));
    case "ArcSin":
      if (x > ONE || x < -ONE) return NANV;
      if (x === ONE || x === -ONE) return approx(x > 0n ? PI / 2n : -PI / 2n);
      return approx(atanF(div(x, sqrt(ONE - mul(x, x)))));
    case "ArcCos":
      if (x > ONE || x < -ONE) return NANV;
      if (x === -ONE) return approx(PI);
      if (x === ONE) return approx(0n);
      return approx(PI / 2n - atanF(div(x, sqrt(ONE - mul(x, x)))));
    case "ArcTan":
      return approx(atanF(x));
    case "Sinh":
      return big ? (pos ? hugePos : approx(-(1n << BigInt(F + 100)))) : approx((expF(x) - expF(-x)) / 2n);
    case "Cosh":
      return big ? hugePos : approx((expF(x) + expF(-x)) / 2n);
    case "Tanh": {
      if (big) return approx(pos ? ONE - (1n << BigInt(F - 100)) : -ONE + (1n << BigInt(F - 100)));
      const a = expF(x);
      const b = expF(-x);
      return approx(div(a - b, a + b));
    }
    case "ArcSinh":
      return approx(pos ? logF(x + sqrt(mul(x, x) + ONE)) : -logF(-x + sqrt(mul(x, x) + ONE)));
    case "ArcCosh":
      return x < ONE ? NANV : approx(logF(x + sqrt(mul(x, x) - ONE)));
    case "ArcTanh":
      if (x > ONE || x < -ONE) return NANV;
      if (x === ONE || x === -ONE) return inf(pos ? 1 : -1);
      return approx(logF(div(ONE + x, ONE - x)) / 2n);
    case "SinPi":
      return approx(sinF(mul(x, PI)));
    case "CosPi":
      return approx(cosF(mul(x, PI)));
    case "TanPi": {
      const c = cosF(mul(x, PI));
      if (c < 1n << BigInt(F - 300) && c > -(1n << BigInt(F - 300))) return NANV;
      return approx(div(sinF(mul(x, PI)), c));
    }
    case "ArcSinPi":
      if (x > ONE || x < -ONE) return NANV;
      if (x === ONE || x === -ONE) return approx(x / 2n);
      return approx(div(atanF(div(x, sqrt(ONE - mul(x, x)))), PI));
    case "ArcCosPi":
      if (x > ONE || x < -ONE) return NANV;
      if (x === -ONE) return approx(ONE);
      if (x === ONE) return approx(0n);
      return approx(ONE / 2n - div(atanF(div(x, sqrt(ONE - mul(x, x)))), PI));
    case "ArcTanPi":
      return approx(div(atanF(x), PI));
    default:
      throw new Error(`oracle: unknown op ${op}`);
  }
}

function oracleInf(op: string, sign: 1 | -1): OracleValue {
  const pos = sign > 0;
  switch (op) {
    case "Exp":
    case "Exp2":
    case "Softplus":
      return pos ? { kind: "inf", sign: 1 } : approx(0n);
    case "ExpMinusOne":
      return pos ? { kind: "inf", sign: 1 } : approx(-ONE);
    case "Log":
    case "Log2":
    case "LogOnePlus":
    case "ArcCosh":
      return pos ? { kind: "inf", sign: 1 } : NANV;
    case "Sinh":
    case "ArcSinh":
      return { kind: "inf", sign };
    case "Cosh":
      return { kind: "inf", sign: 1 };
    case "Tanh":
      return approx(pos ? ONE : -ONE);
    case "ArcTan":
      return approx(pos ? PI / 2n : -PI / 2n);
    case "ArcTanPi":
      return approx(pos ? ONE / 2n : -ONE / 2n);
    default:
      return NANV; // trigonometric, π-scaled trigonometric, inverse sine/cosine and ArcTanh: ±∞ → NaN
  }
}
