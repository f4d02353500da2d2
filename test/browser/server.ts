// A static file server for the browser test: 127.0.0.1, a random port, GET only, no paths outside its roots.
import { readFile } from "node:fs/promises";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".map": "application/json",
  ".bin": "application/octet-stream",
};

export interface StaticServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves `mounts` (URL prefix → folder); every request is logged into `requests` as "status path". */
export async function serveStatic(mounts: Record<string, string>, requests: string[] = []): Promise<StaticServer> {
  const server: Server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    const mount = Object.keys(mounts)
      .sort((a, b) => b.length - a.length)
      .find((prefix) => path.startsWith(prefix));
    const root = mount === undefined ? undefined : mounts[mount]!;
    const file = root === undefined ? undefined : normalize(join(root, path.slice(mount!.length)));
    const type = TYPES[extname(path)];
    let status = 404;
    if (request.method === "GET" && file !== undefined && file.startsWith(root! + sep) && type !== undefined) {
      try {
        const body = await readFile(file);
        response.writeHead((status = 200), { "content-type": type, "cache-control": "no-store" });
        response.end(body);
      } catch {
        // missing file: 404 below
      }
    }
    if (status !== 200) response.writeHead(status).end();
    requests.push(`${status} ${path}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
