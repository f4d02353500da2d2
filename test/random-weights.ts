// Seeded random weights for the tests that write their own large inputs: a linear congruential generator's values,
// signed, spread over `binades` binades below 2^(binades − 7), the same for a seed on every run.
export function randomWeights(seed: number, binades: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s / 2 ** 32 - 0.5) * 2 ** ((s >>> 8) % binades) * 2 ** -6;
  };
}
