// The exhaustive checkers' workers import parts of src/ (TypeScript, with the built kernels): bundled once into a
// temporary directory. Exits with a usage message when the kernels are not built yet.
import { build } from "esbuild";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Bundles `contents` (ES module source importing ./src/…) for worker threads: its file URL and a cleanup. */
export async function bundleForWorkers(contents) {
  if (!existsSync(join(root, "build/wasm/kernels.js"))) {
    console.error("build/wasm/kernels.js is missing: run `npm run build` first");
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), "minifloat-exhaustive-"));
  const outfile = join(dir, "bundle.mjs");
  await build({ stdin: { contents, resolveDir: root, loader: "ts" }, bundle: true, platform: "node", format: "esm", outfile, logLevel: "warning" });
  return { url: pathToFileURL(outfile).href, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
