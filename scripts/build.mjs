// Builds the package: Wasm kernels (asc) → bundles (esbuild, Wasm inlined) → type declarations (tsc).
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
mkdirSync(join(root, "build"), { recursive: true });

const common = {
  entryPoints: [join(root, "src/index.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  sourcemap: true,
  logLevel: "warning",
};
await build({ ...common, platform: "node", outfile: join(root, "build/node/index.js") });
await build({ ...common, platform: "browser", outfile: join(root, "build/browser/index.js") });

if (!existsSync(join(root, "build/types/index.d.ts")) || process.env.MINIFLOAT_TYPES !== "0") {
  execFileSync(bin("tsc"), ["-p", root], { stdio: "inherit" });
}
