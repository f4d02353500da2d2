// The probes of bench/probes.mjs compiled by asc in a child process. asc runs binaryen as Wasm: loaded in the
// benchmark's own process, its functions keep tiering up on V8's compiler threads for seconds afterwards, which took
// one of this machine's two cores from what was measured next (a kernel timed right after an in-process compile ran
// at a fifth of its rate).
import { execFileSync } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { PROBE_SOURCE, probeOptions } from "./probes.mjs";

const CHILD = `import asc from "assemblyscript/asc";
const [source, options] = JSON.parse(process.argv[1]);
const compiled = await asc.compileString({ "probe.ts": source }, options);
if (compiled.error) {
  process.stderr.write(compiled.stderr.toString());
  process.exit(1);
}
process.stdout.write(Buffer.from(compiled.binary).toString("base64"));`;

/** The probes' Wasm binary for asc `options` (default: probeOptions()). */
export function compileProbes(options = probeOptions()) {
  const base64 = execFileSync(process.execPath, ["--input-type=module", "-e", CHILD, JSON.stringify([PROBE_SOURCE, options])], {
    cwd: dirname(dirname(fileURLToPath(import.meta.url))),
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  return new Uint8Array(Buffer.from(base64, "base64"));
}
