// The generated module scripts/build.mjs writes (build/wasm/kernels.js), declared so type checks run before a build.
declare module "*/build/wasm/kernels.js" {
  export const kernelsBase64: string;
}
// The threads build (shared imported memory) that only minifloat/parallel loads (build/wasm/kernels-threads.js).
declare module "*/build/wasm/kernels-threads.js" {
  export const threadKernelsBase64: string;
}
