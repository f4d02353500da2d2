// Sub-byte packing. FP4: two codes per byte, element 2j in the low nibble of byte j (OCP MX, safetensors F4,
// ONNX FLOAT4E2M1). FP6: little-endian bit stream, element i at bits 6i…6i+5 (4 codes in 3 bytes).
// Inputs are validated by the host (codes < 2^bits); a trailing partial byte has zero padding bits.

const LOW_NIBBLES = memory.data<u8>([15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15], 16);
const SIX_BITS = memory.data<u32>([0x3f, 0x3f, 0x3f, 0x3f, 0xfc0, 0xfc0, 0xfc0, 0xfc0, 0x3f000, 0x3f000, 0x3f000, 0x3f000, 0xfc0000, 0xfc0000, 0xfc0000, 0xfc0000], 16);

/** Packs n 4-bit codes (one per byte) into ceil(n/2) bytes. */
export function pack4(src: usize, dst: usize, n: usize): void {
  let i: usize = 0;
  for (; i + 32 <= n; i += 32) {
    const a = v128.load(src + i, 0);
    const b = v128.load(src + i, 16);
    const even = i8x16.shuffle(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const odd = i8x16.shuffle(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    // Codes are < 16, so a 16-bit lane shift moves each nibble up without crossing bytes (no byte shifts on x86).
    v128.store(dst + (i >> 1), v128.or(even, i16x8.shl(odd, 4)));
  }
  for (; i + 2 <= n; i += 2) store<u8>(dst + (i >> 1), load<u8>(src + i) | (load<u8>(src + i, 1) << 4));
  if (i < n) store<u8>(dst + (i >> 1), load<u8>(src + i));
}

/** Unpacks n 4-bit codes from ceil(n/2) bytes into one byte each (the padding nibble of odd n is ignored). */
export function unpack4(src: usize, dst: usize, n: usize): void {
  const mask = v128.load(LOW_NIBBLES);
  let i: usize = 0;
  for (; i + 32 <= n; i += 32) {
    const v = v128.load(src + (i >> 1));
    const lo = v128.and(v, mask);
    const hi = v128.and(i16x8.shr_u(v, 4), mask);
    v128.store(dst + i, i8x16.shuffle(lo, hi, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), 0);
    v128.store(dst + i, i8x16.shuffle(lo, hi, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), 16);
  }
  for (; i < n; i++) store<u8>(dst + i, (load<u8>(src + (i >> 1)) >> (<u8>(i & 1) << 2)) & 15);
}

/** Packs n 6-bit codes into ceil(6n/8) bytes. */
export function pack6(src: usize, dst: usize, n: usize): void {
  const m0 = v128.load(SIX_BITS, 0);
  const m1 = v128.load(SIX_BITS, 16);
  const m2 = v128.load(SIX_BITS, 32);
  const m3 = v128.load(SIX_BITS, 48);
  let i: usize = 0;
  // 16 codes → 12 bytes per step; the 16-byte store's last 4 bytes are rewritten by the next step or the tail,
  // and i + 32 ≤ n keeps them inside the output.
  for (; i + 32 <= n; i += 16) {
    const x = v128.load(src + i);
    const w = v128.or(
      v128.or(v128.and(x, m0), v128.and(i32x4.shr_u(x, 2), m1)),
      v128.or(v128.and(i32x4.shr_u(x, 4), m2), v128.and(i32x4.shr_u(x, 6), m3)),
    );
    v128.store(dst + ((i >> 2) * 3), i8x16.shuffle(w, w, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15, 15, 15, 15));
  }
  for (; i + 4 <= n; i += 4) {
    const w = <u32>load<u8>(src + i) | (<u32>load<u8>(src + i, 1) << 6) | (<u32>load<u8>(src + i, 2) << 12) | (<u32>load<u8>(src + i, 3) << 18);
    const d = dst + ((i >> 2) * 3);
    store<u8>(d, <u8>w, 0);
    store<u8>(d, <u8>(w >> 8), 1);
    store<u8>(d, <u8>(w >> 16), 2);
  }
  if (i < n) {
    let w: u32 = 0;
    for (let j: usize = 0; i + j < n; j++) w |= <u32>load<u8>(src + i + j) << (<u32>j * 6);
    const d = dst + ((i >> 2) * 3);
    const bytes = ((n - i) * 6 + 7) >> 3;
    for (let b: usize = 0; b < bytes; b++) store<u8>(d + b, <u8>(w >> (<u32>b << 3)));
  }
}

/** Unpacks n 6-bit codes from ceil(6n/8) bytes into one byte each (padding bits are ignored). */
export function unpack6(src: usize, dst: usize, n: usize): void {
  const zero = i8x16.splat(0);
  const m0 = v128.load(SIX_BITS, 0);
  let i: usize = 0;
  // Reads 16 bytes per 12 used; i + 32 ≤ n keeps the read inside the input.
  for (; i + 32 <= n; i += 16) {
    const v = v128.load(src + ((i >> 2) * 3));
    const w = i8x16.shuffle(v, zero, 0, 1, 2, 16, 3, 4, 5, 16, 6, 7, 8, 16, 9, 10, 11, 16);
    const c = v128.or(
      v128.or(v128.and(w, m0), i32x4.shl(v128.and(i32x4.shr_u(w, 6), m0), 8)),
      v128.or(i32x4.shl(v128.and(i32x4.shr_u(w, 12), m0), 16), i32x4.shl(i32x4.shr_u(w, 18), 24)),
    );
    v128.store(dst + i, c);
  }
  for (; i < n; i++) {
    const bit = i * 6;
    const s = src + (bit >> 3);
    const w = (<u32>load<u8>(s) | ((bit & 7) > 2 ? <u32>load<u8>(s, 1) << 8 : 0)) >> <u32>(bit & 7);
    store<u8>(dst + i, <u8>(w & 63));
  }
}
