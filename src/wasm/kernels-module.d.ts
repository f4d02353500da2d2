// The generated module scripts/build.mjs writes (build/wasm/kernels.js), declared so type checks run before a build.
declare module "*/build/wasm/kernels.js" {
  export const kernelsBase64: string;
}
