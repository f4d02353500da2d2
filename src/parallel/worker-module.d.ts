// The generated module scripts/build.mjs writes (build/parallel/worker.js), declared so type checks run before a build.
declare module "*/build/parallel/worker.js" {
  export const workerSource: string;
}
