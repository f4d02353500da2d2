// Host side of assembly/stats.ts: quantization error sums and overflow counts of float32 inputs in one SIMD pass.
// src/io/error-sums.ts errorSumsReference is the specification (same lanes, same order); the kernel agrees bit for bit.
import { kernels } from "./instance.js";
import { allocBytesRaw, freeBytesRaw, keep, memoryBuffer, stream } from "./memory.js";

/** A magnitude beyond which (or at which, when inclusive) an input counts as overflowing. */
export interface Threshold {
  readonly limit: number;
  readonly inclusive: boolean;
}

/** Error sums of x against y over the finite x (see errorSumsReference for the exact definition). */
export interface ErrorSums {
  measured: number;
  sumSquaredError: number;
  sumSquares: number;
  maxAbsError: number;
  flushed: number;
  overflowed: number;
}

const STATE_BYTES = 12 * 8 + 128; // the sums, then the kernel's scratch block (assembly/stats.ts)
const bits = new Uint32Array(1);
const f32 = new Float32Array(bits.buffer);

/**
 * The float32 threshold that decides as the float64 one does for every float32 x: the largest float32 at or below
 * the limit (no float32 lies strictly between them), inclusive only if it is the limit itself.
 */
export function float32Threshold(t: Threshold): Threshold {
  f32[0] = t.limit;
  if (f32[0]! === t.limit) return t;
  if (f32[0]! > t.limit) bits[0]! -= 1; // limits are positive magnitudes: one step down in the bits
  return { limit: f32[0]!, inclusive: false };
}

/** The float32 that a magnitude must exceed to cross t: t itself, or for an inclusive t the next float32 below it. */
function strictBound(t: Threshold): number {
  if (!t.inclusive) return t.limit;
  if (t.limit === 0) return -(2 ** -149);
  f32[0] = t.limit;
  bits[0]! -= 1; // a positive float32: one step down in the bits (∞ becomes the largest finite)
  return f32[0]!;
}

/**
 * The sums of float32 x against y (y.length ≥ x.length) in Wasm, chunk by chunk through stream() (chunks of
 * multiples of 4 keep each element's lane); undefined when the kernels are unavailable.
 */
export function errorSumsWasm(x: Float32Array, y: Float32Array, positive: Threshold, negative: Threshold): ErrorSums | undefined {
  const k = kernels();
  if (!k) return undefined;
  // Wasm-memory views are re-made if the allocation below grows the memory.
  const [xs, ys] = [keep(x), keep(y)];
  const state = allocBytesRaw(STATE_BYTES, "state");
  try {
    new Uint8Array(memoryBuffer(), state, STATE_BYTES).fill(0);
    // Strict float32 bounds: x ≥ t is x > (the float32 below t) for every float32 x.
    const above = strictBound(float32Threshold(positive));
    const below = -strictBound(float32Threshold(negative));
    stream(xs(), null, (xp, _, n, _first, [yp]) => k.errorSumsF32(xp, yp!, n, state, above, below), { extra: [ys()] });
    const s = new Float64Array(memoryBuffer(), state, 12);
    return {
      sumSquaredError: s[0]! + s[2]! + (s[1]! + s[3]!),
      sumSquares: s[4]! + s[6]! + (s[5]! + s[7]!),
      maxAbsError: s[8]!,
      measured: s[9]!,
      flushed: s[10]!,
      overflowed: s[11]!,
    };
  } finally {
    freeBytesRaw(state, STATE_BYTES);
  }
}
