// Command-line parsing shared by every command: node:util parseArgs, with its errors turned into one-line
// UsageErrors that name the option.
import { parseArgs } from "node:util";
import { argumentError } from "../errors.js";

/** Wrong command-line usage (exit code 2). */
export class UsageError extends argumentError(Error, "UsageError") {}

export type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Parses a command's arguments; `positionals` is the exact number of positional arguments it takes. */
export function parseCommand(command: string, args: readonly string[], options: OptionSpec, positionals: string[]): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true }) as Parsed;
  } catch (e) {
    const option = /'([^']+)'/.exec((e as Error).message)?.[1] ?? "arguments";
    throw new UsageError(
      option,
      `${(e as Error).message.split(". ")[0]!.replace(/^Unknown option '[^']+'/, "unknown option")}; see minifloat ${command} --help`,
    );
  }
  if (parsed.positionals.length !== positionals.length) {
    throw new UsageError(
      command,
      `takes ${positionals.length === 0 ? "no arguments" : positionals.map((p) => `<${p}>`).join(" ")} but got ${parsed.positionals.length === 0 ? "none" : parsed.positionals.map((p) => JSON.stringify(p)).join(" ")}; see minifloat ${command} --help`,
    );
  }
  return parsed;
}

export function stringOption(parsed: Parsed, name: string): string | undefined {
  return parsed.values[name] as string | undefined;
}

/** The required -o/--output path of a command that writes a file. */
export function outputOption(parsed: Parsed): string {
  const output = stringOption(parsed, "output");
  if (output === undefined) throw new UsageError("--output", "is required; allowed: the path of the new .safetensors file");
  return output;
}

/** An integer option in [lo, hi]. */
export function integerOption(parsed: Parsed, name: string, lo: number, hi: number): number | undefined {
  const v = stringOption(parsed, name);
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < lo || n > hi) throw new UsageError(`--${name}`, `got ${JSON.stringify(v)}; allowed: an integer in [${lo}, ${hi}]`);
  return n;
}

/** Whole-name glob: `*` matches any run of characters (dots included), `?` one character. */
export function globMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => true;
  const res = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".")}$`,
        "s",
      ),
  );
  return (name) => res.some((re) => re.test(name));
}
