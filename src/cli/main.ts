// The `minifloat` command line: dispatch to a subcommand, with one-line errors (stack traces with --verbose).
import { UsageError } from "./args.js";
import { conformanceCommand } from "./conformance.js";
import { dequantizeCommand } from "./dequantize.js";
import { ggufCommand } from "./gguf.js";
import { inspectCommand } from "./inspect.js";
import type { CliIO, Command } from "./io.js";
import { onnxCommand } from "./onnx.js";
import { quantizeCommand } from "./quantize.js";
import { tableCommand } from "./table.js";

const COMMANDS: readonly Command[] = [quantizeCommand, dequantizeCommand, inspectCommand, tableCommand, conformanceCommand, ggufCommand, onnxCommand];

const HELP = `Usage: minifloat <command> [options]    (minifloat <command> --help for details)

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join("\n")}

Global options:
  --help, -h     help
  --verbose      stack traces on errors
`;

/** Runs the command line `argv` (without node and script) and returns the exit code: 0 ok, 1 failure, 2 usage. */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const verbose = argv.includes("--verbose");
  const args = argv.filter((a) => a !== "--verbose");
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    if (name === undefined) {
      io.stderr(HELP);
      return 2;
    }
    io.stdout(HELP);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr(`minifloat: unknown command ${JSON.stringify(name)}; allowed: ${COMMANDS.map((c) => c.name).join(", ")} (minifloat --help)\n`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(command.help);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    io.stderr(`minifloat ${command.name}: ${error.message.replace(/\s*\n\s*/g, " ")}\n`);
    if (verbose && error.stack) io.stderr(`${error.stack}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}
