// `quantize --to` of a range of a tensor on a conversion worker (src/checkpoint/threads.ts): the same chunk
// pipeline as on the calling thread (QuantizeWorkspace.quantizeChunk), each chunk's codes written at their place in
// the output file while the next chunk is converted.
import { type JobContext, type QuantizeRangeJob, writeBehind } from "../checkpoint/jobs.js";
import { formatFromSpec } from "../format/registry.js";
import type { ErrorSums } from "../wasm/stats.js";
import { QuantizeWorkspace } from "./workspace.js";

/** Runs a QuantizeRangeJob: the error sums of each of its chunks, in order. */
export async function quantizeRangeJob(job: QuantizeRangeJob, context: JobContext): Promise<ErrorSums[]> {
  const reader = await context.reader(job.path);
  const t = reader.tensor(job.tensor);
  const f = formatFromSpec(job.format);
  const { work } = await context.scratchOf(
    "quantize",
    (s: { work: QuantizeWorkspace }) => s.work.format === f && s.work.elements >= job.chunk,
    () => {
      const work = QuantizeWorkspace.create(f, job.chunk);
      if (!work) throw new Error("quantize job: the kernels are unavailable in this worker");
      return { work, free: () => work.close() };
    },
  );
  const range = { start: job.start, end: job.start + job.count };
  const sums: ErrorSums[] = [];
  // A chunk's codes sit in one of the workspace's two output slots: written while the next chunk fills the other,
  // and waited for before that one is written (so no slot is refilled under a write).
  await writeBehind(
    Math.ceil(job.count / job.chunk),
    async (k) => {
      const start = range.start + k * job.chunk;
      const { codes, sums: chunk } = await work.quantizeChunk(reader, t, job, range, start, Math.min(job.chunk, range.end - start), job.limits);
      sums.push(chunk);
      return work.storedBytes(codes);
    },
    context.appender(job.output),
  );
  return sums;
}
