// A static file server for local pages (the format explorer) and the browser tests: 127.0.0.1, a random port, GET
// only, no paths outside its roots.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".map": "application/json",
  ".bin": "application/octet-stream",
};

/**
 * Serves `mounts` (URL prefix → folder); every request is logged into `requests` as "status path". `isolated` adds
 * the COOP/COEP headers that make pages cross-origin isolated (SharedArrayBuffer, the worker pool).
 * @param {Record<string, string>} mounts
 * @param {string[]} [requests]
 * @param {{ isolated?: boolean }} [options]
 * @returns {Promise<{ origin: string, close(): Promise<void> }>}
 */
export async function serveStatic(mounts, requests = [], options = {}) {
  const isolation = options.isolated ? { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } : {};
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    const mount = Object.keys(mounts)
      .sort((a, b) => b.length - a.length)
      .find((prefix) => path.startsWith(prefix));
    const root = mount === undefined ? undefined : mounts[mount];
    const file = root === undefined ? undefined : normalize(join(root, path.slice(mount.length)));
    const type = TYPES[extname(path)];
    let status = 404;
    if (request.method === "GET" && file !== undefined && file.startsWith(root + sep) && type !== undefined) {
      try {
        const body = await readFile(file);
        response.writeHead((status = 200), { "content-type": type, "cache-control": "no-store", ...isolation });
        response.end(body);
      } catch {
        // missing file: 404 below
      }
    }
    if (status !== 200) response.writeHead(status).end();
    requests.push(`${status} ${path}`);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
