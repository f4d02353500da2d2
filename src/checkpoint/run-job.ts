// One conversion job run on this thread: by a conversion worker (worker.ts), or by the calling thread itself.
import type { ConversionJob, JobContext, JobResult, JobRunner, QuantizeRangeJob } from "./jobs.js";
import { dequantizeJob } from "./dequantize.js";
import { amaxJob, produceJob } from "./produce.js";
import { ggufJob } from "../io/gguf/from-checkpoint.js";

/** The jobs of the checkpoint conversions (`quantize --to`'s QuantizeRangeJob runs in worker.ts, which knows the CLI). */
export type CheckpointJob = Exclude<ConversionJob, QuantizeRangeJob>;

/** Runs one job on this thread. */
export function runJob<J extends CheckpointJob>(job: J, context: JobContext): Promise<JobResult<J>> {
  const j = job as CheckpointJob;
  const result =
    j.op === "produce"
      ? produceJob(j, context)
      : j.op === "amax"
        ? amaxJob(j, context)
        : j.op === "dequantize"
          ? dequantizeJob(j, context)
          : ggufJob(j, context);
  return result as Promise<JobResult<J>>;
}

/** The calling thread: each job runs when the previous result has been consumed (results may be Wasm-memory views). */
export function inlineRunner(context: JobContext): JobRunner {
  return { depth: 1, remote: false, run: (job) => runJob(job as CheckpointJob, context) as Promise<JobResult<typeof job>> };
}
