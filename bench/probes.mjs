// Probes for the benchmarks: Wasm kernels that only move bytes (no arithmetic), the bound a conversion with the same
// traffic cannot beat. Plain ES module (no Node imports): the Chromium pages of the benchmarks load it too.

/**
 * AssemblyScript source of the probes: `move${from}${to}(src, dst, n)` reads n elements of `from` bytes and writes n
 * of `to` bytes (zero-extended or truncated), 16 bytes per vector; `store(dst, n)` writes 4n bytes and reads none.
 */
export const PROBE_SOURCE = `
export function move12(src: usize, dst: usize, n: usize): void {
  for (let i: usize = 0; i < n; i += 16) {
    const x = v128.load(src + i);
    v128.store(dst + (i << 1), i16x8.extend_low_i8x16_u(x), 0);
    v128.store(dst + (i << 1), i16x8.extend_high_i8x16_u(x), 16);
  }
}
export function move14(src: usize, dst: usize, n: usize): void {
  for (let i: usize = 0; i < n; i += 16) {
    const x = v128.load(src + i);
    const lo = i16x8.extend_low_i8x16_u(x);
    const hi = i16x8.extend_high_i8x16_u(x);
    v128.store(dst + (i << 2), i32x4.extend_low_i16x8_u(lo), 0);
    v128.store(dst + (i << 2), i32x4.extend_high_i16x8_u(lo), 16);
    v128.store(dst + (i << 2), i32x4.extend_low_i16x8_u(hi), 32);
    v128.store(dst + (i << 2), i32x4.extend_high_i16x8_u(hi), 48);
  }
}
export function move24(src: usize, dst: usize, n: usize): void {
  for (let i: usize = 0; i < n; i += 8) {
    const x = v128.load(src + (i << 1));
    v128.store(dst + (i << 2), i32x4.extend_low_i16x8_u(x), 0);
    v128.store(dst + (i << 2), i32x4.extend_high_i16x8_u(x), 16);
  }
}
export function move41(src: usize, dst: usize, n: usize): void {
  for (let i: usize = 0; i < n; i += 16) {
    const s = src + (i << 2);
    const a = i16x8.narrow_i32x4_u(v128.load(s, 0), v128.load(s, 16));
    const b = i16x8.narrow_i32x4_u(v128.load(s, 32), v128.load(s, 48));
    v128.store(dst + i, i8x16.narrow_i16x8_u(a, b));
  }
}
export function move42(src: usize, dst: usize, n: usize): void {
  for (let i: usize = 0; i < n; i += 8) {
    const s = src + (i << 2);
    v128.store(dst + (i << 1), i16x8.narrow_i32x4_u(v128.load(s, 0), v128.load(s, 16)));
  }
}
export function store(dst: usize, n: usize): void {
  const v = f32x4.splat(2.5);
  for (let p = dst, end = dst + (n << 2); p < end; p += 64) {
    v128.store(p, v, 0); v128.store(p, v, 16); v128.store(p, v, 32); v128.store(p, v, 48);
  }
}`;

/** The asc options of the probes: SIMD, no runtime, an imported memory (shared with `threads`). */
export const probeOptions = (threads = false) => ({
  optimizeLevel: 3,
  runtime: "stub",
  noAssert: true,
  enable: threads ? ["simd", "threads"] : ["simd"],
  importMemory: true,
  ...(threads && { sharedMemory: true }),
});

/** The probes' exports on a memory of `bytes` bytes or more (not shared). */
export function probeInstance(binary, bytes) {
  const pages = Math.ceil(bytes / 65536) + 1;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  return { memory, ...new WebAssembly.Instance(new WebAssembly.Module(binary), { env: { memory, abort() {} } }).exports };
}
