// The `minifloat` executable bundled from src/ for the tests that run it as a process.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export async function bundleCli(outfile: string): Promise<void> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  await build({ entryPoints: [join(root, "src/cli/bin.ts")], bundle: true, format: "esm", platform: "node", target: "es2022", outfile, logLevel: "error" });
}
