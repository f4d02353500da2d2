// m·2^e → float32 bits, rounded to nearest even, in integer arithmetic only: the one rounding step of the generated
// decoders (values beyond float32's range) and block scalings. The WGSL text and its TypeScript twin are kept side
// by side; the twin lets the generator prove a decoder against the exact table before emitting it.

/** WGSL of `fn NAME(m: u32, e: i32) -> u32`: the float32 bits of m·2^e (m < 2^32), RNE, ∞ on overflow. */
export function composeWgsl(name: string): string {
  return `fn ${name}(m: u32, e: i32) -> u32 {
  if (m == 0u) { return 0u; }
  let h = 31 - i32(countLeadingZeros(m));
  let top = h + e;
  if (top > 127) { return 0x7f800000u; }
  var q: u32;
  var r: i32;
  if (top >= -126) {
    r = h - 23;
    if (r <= 0) { return (u32(top + 126) << 23u) + (m << u32(-r)); }
  } else {
    r = -(e + 149);
    if (r <= 0) { return m << u32(-r); }
    if (r > 32) { return 0u; }
  }
  if (r == 32) { q = 0u; } else { q = m >> u32(r); }
  let rem = m - select(q << u32(r), 0u, r == 32);
  let half = 1u << u32(r - 1);
  let up = rem > half || (rem == half && (q & 1u) == 1u);
  let sum = q + select(0u, 1u, up);
  if (top >= -126) { return (u32(top + 126) << 23u) + sum; }
  return sum;
}
`;
}

/** The same rounding in TypeScript, step for step (unsigned 32-bit arithmetic through >>> 0). */
export function compose(m: number, e: number): number {
  if (m === 0) return 0;
  const h = 31 - Math.clz32(m);
  const top = h + e;
  if (top > 127) return 0x7f800000;
  const normal = top >= -126;
  const r = normal ? h - 23 : -(e + 149);
  if (r <= 0) return normal ? ((((top + 126) << 23) >>> 0) + m * 2 ** -r) >>> 0 : (m * 2 ** -r) >>> 0;
  if (r > 32) return 0;
  const q = r === 32 ? 0 : m >>> r;
  const rem = m - q * 2 ** r;
  const half = 2 ** (r - 1);
  const sum = q + (rem > half || (rem === half && (q & 1) === 1) ? 1 : 0);
  return normal ? ((((top + 126) << 23) >>> 0) + sum) >>> 0 : sum;
}
