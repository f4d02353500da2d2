// CPU time of a benchmark's child command, for the benchmarks that time whole CLI runs (bench/cli.mjs,
// bench/checkpoint.mjs): on a shared machine the wall time also measures the other jobs, the CPU time does not.
import { execFileSync } from "node:child_process";

/** Runs `file argv…` (output discarded) through sh, whose `times` gives the CPU seconds (user + system) it used. */
export function cpuOf(file, argv) {
  const out = execFileSync("sh", ["-c", '"$@" >/dev/null 2>&1 || exit $?; times', "sh", file, ...argv], { encoding: "utf8" });
  const [m1, s1, m2, s2] = out
    .trim()
    .split("\n")[1]
    .match(/[\d.]+/g)
    .map(Number);
  return m1 * 60 + s1 + m2 * 60 + s2;
}
