// Scaled operations (P3109 §5.5): ScaledOp((s1,x1),…,(sn,xn)) is BlockOp with block size 1 and result scale 1,
// i.e. ωProject_{fr,ρ}(ωOp(ωMultiply(S1, X1), …)) — one rounding of the exact result.
import type { Exact } from "../exact/value.js";
import { Add, Multiply, type Omega, Subtract } from "./arithmetic.js";

/** Lifts a binary ω-operation to operands (s1, x1, s2, x2): ωOp(ωMultiply(S1, X1), ωMultiply(S2, X2)). */
function scaled(op: Omega): Omega {
  return ([s1, x1, s2, x2], precision) => {
    const a: Exact = Multiply([s1!, x1!], precision); // ωBlockDecode of (s1, [x1])
    const b: Exact = Multiply([s2!, x2!], precision); // ωBlockDecode of (s2, [x2])
    return op([a, b], precision);
  };
}

export const ScaledAdd: Omega = scaled(Add);
export const ScaledSubtract: Omega = scaled(Subtract);
export const ScaledMultiply: Omega = scaled(Multiply);
