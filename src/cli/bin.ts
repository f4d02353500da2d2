// Entry of the `minifloat` executable (bundled to build/node/cli.js).
import { abortPendingWrites } from "../io/atomic.js";
import { main } from "./main.js";

// Ctrl-C (or kill) during a write: remove the temporary file synchronously so no partial output survives, then
// exit with 128 + the signal number, as shells do.
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.on(signal, () => {
    abortPendingWrites();
    process.stderr.write("\nminifloat: interrupted; no output written\n");
    process.exit(code);
  });
}
// `minifloat table … | head` closes stdout early: that is not an error. Any other failure (a full disk) is one line.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  abortPendingWrites();
  process.stderr.write(`minifloat: cannot write to standard output: ${e.message}\n`);
  process.exit(1);
});

process.exitCode = await main(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  isTTY: process.stderr.isTTY === true,
});
