// The generated modules scripts/build.mjs writes (build/parallel/*.js), declared so type checks run before a build.
declare module "*/build/parallel/worker.js" {
  export const workerSource: string;
}
declare module "*/build/parallel/conversion-worker.js" {
  export const conversionWorkerSource: string;
}
