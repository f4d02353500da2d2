// Entry of the `minifloat` executable (bundled to build/node/cli.js).
import { abortPendingWrites } from "../io/atomic.js";
import { main } from "./main.js";

// Ctrl-C (or kill) during a write: remove the temporary file synchronously so no partial output survives, then
// exit with 128 + the signal number, as shells do.
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const) {
  process.on(signal, () => {
    abortPendingWrites();
    process.stderr.write("\nminifloat: interrupted; no output written\n");
    process.exit(code);
  });
}
// `minifloat table … | head` (or `quantize … 2>&1 | head -1`) closes a stream early: that is not an error, the
// command goes on without writing to it (a conversion still completes its file). Any other failure of standard
// output (a full disk) is one line and exit 1.
const open = { stdout: true, stderr: true };
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  open.stdout = false;
  if (e.code === "EPIPE") return;
  abortPendingWrites();
  if (open.stderr) process.stderr.write(`minifloat: cannot write to standard output: ${e.message}\n`);
  process.exit(1);
});
process.stderr.on("error", () => {
  open.stderr = false;
});

process.exitCode = await main(process.argv.slice(2), {
  stdout: (s) => void (open.stdout && process.stdout.write(s)),
  stderr: (s) => void (open.stderr && process.stderr.write(s)),
  isTTY: process.stderr.isTTY === true,
});
