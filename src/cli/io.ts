// What a command may touch of its process: two output streams and whether stderr is a terminal. Tests pass
// their own; bin.ts passes the real ones.
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** stderr is a terminal: draw a progress bar instead of plain lines. */
  readonly isTTY: boolean;
}

/** A subcommand: its help text (printed for --help) and its action, which returns the exit code. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}
