// The transcendental ω-operations of P3109 (Interim Report v4.0 §4.10), correctly rounded.
// Contract (../sticky.ts): omega(args, precision) returns the exact real result (special points, ±∞, NaN, exact
// zeros as +0) or its round-to-odd value with `precision` significant bits, so that ωProject of it equals ωProject
// of the real for every format with P + N + 3 ≤ precision. Operands are normalised datums (no −0, NaN unsigned).
import type { Exact } from "../../exact/value.js";
import { Exp, Exp2, ExpMinusOne, Log, Log2, LogOnePlus, Softplus } from "./exp-log.js";
import { ArcCosh, ArcSinh, ArcTanh, Cosh, Sinh, Tanh } from "./hyperbolic.js";
import { ArcCosPi, ArcSinPi, ArcTan2Pi, ArcTanPi, CosPi, SinPi, TanPi } from "./pi-trig.js";
import { ArcCos, ArcSin, ArcTan, ArcTan2, Cos, Sin, Tan } from "./trig.js";

export interface TranscendentalOp {
  readonly arity: 1 | 2;
  readonly omega: (args: Exact[], precision: number) => Exact;
}

const unary = (omega: TranscendentalOp["omega"]): TranscendentalOp => ({ arity: 1, omega });
const binary = (omega: TranscendentalOp["omega"]): TranscendentalOp => ({ arity: 2, omega });

export const TRANSCENDENTAL: Record<string, TranscendentalOp> = {
  Exp: unary(Exp),
  Exp2: unary(Exp2),
  ExpMinusOne: unary(ExpMinusOne),
  Log: unary(Log),
  Log2: unary(Log2),
  LogOnePlus: unary(LogOnePlus),
  Softplus: unary(Softplus),
  Sin: unary(Sin),
  Cos: unary(Cos),
  Tan: unary(Tan),
  ArcSin: unary(ArcSin),
  ArcCos: unary(ArcCos),
  ArcTan: unary(ArcTan),
  Sinh: unary(Sinh),
  Cosh: unary(Cosh),
  Tanh: unary(Tanh),
  ArcSinh: unary(ArcSinh),
  ArcCosh: unary(ArcCosh),
  ArcTanh: unary(ArcTanh),
  SinPi: unary(SinPi),
  CosPi: unary(CosPi),
  TanPi: unary(TanPi),
  ArcSinPi: unary(ArcSinPi),
  ArcCosPi: unary(ArcCosPi),
  ArcTanPi: unary(ArcTanPi),
  /** ArcTan2(y, x): y first. */
  ArcTan2: binary(ArcTan2),
  /** ArcTan2Pi(y, x): y first. */
  ArcTan2Pi: binary(ArcTan2Pi),
};

export { TranscendentalPrecisionError } from "./interval.js";
