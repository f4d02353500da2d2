// Inputs the benchmarks share: float32 values log-uniform over [max·2^(−steps/64), max], both signs, from one
// fixed-seed LCG, so every benchmark times the same values (ml-dtypes.mjs's Python side draws the same distribution).

/** n float32 values ±max·2^(−k/64), k = 0…steps − 1. */
export function logUniform(max, n, steps = 1024) {
  const x = new Float32Array(n);
  let s = 12345;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = (s & 1 ? -1 : 1) * max * 2 ** (-((s >>> 8) % steps) / 64);
  }
  return x;
}
