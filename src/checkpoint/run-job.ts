// One conversion job run on this thread: by a conversion worker (worker.ts), or by the calling thread itself.
import type { ConversionJob, JobContext, JobResult, JobRunner } from "./jobs.js";
import { dequantizeJob } from "./dequantize.js";
import { amaxJob, produceJob } from "./produce.js";

/** Runs one job on this thread. */
export function runJob<J extends ConversionJob>(job: J, context: JobContext): Promise<JobResult<J>> {
  const result = job.op === "produce" ? produceJob(job, context) : job.op === "amax" ? amaxJob(job, context) : dequantizeJob(job, context);
  return result as Promise<JobResult<J>>;
}

/** The calling thread: each job runs when the previous result has been consumed (results may be Wasm-memory views). */
export function inlineRunner(context: JobContext): JobRunner {
  return { depth: 1, remote: false, run: (job) => runJob(job, context) };
}
