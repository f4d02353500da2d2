// The generated module scripts/build.mjs writes (build/wasm/kernels.js), declared so type checks run before a build.
declare module "*/build/wasm/kernels.js" {
  export const kernelsBase64: string;
}
// The relaxed-SIMD build of the same sources (build/wasm/kernels-relaxed.js), loaded where the engine has it.
declare module "*/build/wasm/kernels-relaxed.js" {
  export const relaxedKernelsBase64: string;
}
// The threads build (shared imported memory) that only minifloat/parallel loads (build/wasm/kernels-threads.js).
declare module "*/build/wasm/kernels-threads.js" {
  export const threadKernelsBase64: string;
}
// Its relaxed-SIMD build, loaded by the pool where the main kernels are the relaxed build.
declare module "*/build/wasm/kernels-threads-relaxed.js" {
  export const relaxedThreadKernelsBase64: string;
}
