// The `minifloat` CLI for the tests: run in-process with captured output, or bundled from src/ as an executable for
// the tests that run it as a process.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { main } from "../src/cli/main.js";

/** Runs the CLI in-process with captured output. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s), isTTY: false });
  return { code, out, err };
}

export async function bundleCli(outfile: string): Promise<void> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  await build({ entryPoints: [join(root, "src/cli/bin.ts")], bundle: true, format: "esm", platform: "node", target: "es2022", outfile, logLevel: "error" });
}
