// `npm run explorer`: serves the format explorer (explorer/), the WebGPU page (examples/webgpu/) and the browser
// bundle (build/browser/) on 127.0.0.1 and prints the page's URL. Builds first when the bundle is missing. The
// browser tests use the same static server.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "./static-server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** URL prefix → folder, as test/explorer.test.ts mounts them. */
const MOUNTS = {
  "/explorer/": join(root, "explorer"),
  "/build/browser/": join(root, "build", "browser"),
  "/examples/webgpu/": join(root, "examples", "webgpu"),
};

if (!existsSync(join(root, "build/browser/index.js"))) {
  execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" });
}
const server = await serveStatic(MOUNTS);
console.log(`minifloat format explorer: ${server.origin}/explorer/index.html`);
console.log("(Ctrl+C stops the server)");
