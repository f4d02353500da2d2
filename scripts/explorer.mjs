// `npm run explorer`: serves the format explorer (explorer/) and the browser bundle (build/browser/) on 127.0.0.1 and
// prints the page's URL. Builds first when the bundle is missing. The static server is the browser test's
// (test/browser/server.ts), transpiled here by esbuild, so the page is served exactly as the test serves it.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** URL prefix → folder, as test/explorer.test.ts mounts them. */
const MOUNTS = {
  "/explorer/": join(root, "explorer"),
  "/build/browser/": join(root, "build", "browser"),
};

/** test/browser/server.ts's serveStatic, loaded without a TypeScript loader. */
async function loadServeStatic() {
  const result = await build({ entryPoints: [join(root, "test/browser/server.ts")], write: false, format: "esm", platform: "node", logLevel: "warning" });
  const source = result.outputFiles[0].text;
  const module = await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);
  return module.serveStatic;
}

if (!existsSync(join(root, "build/browser/index.js"))) {
  execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" });
}
const serveStatic = await loadServeStatic();
const server = await serveStatic(MOUNTS);
console.log(`minifloat format explorer: ${server.origin}/explorer/index.html`);
console.log("(Ctrl+C stops the server)");
