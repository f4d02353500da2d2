// An HTTP server for the remote-reading tests: 127.0.0.1, a random port, single-range requests (206 / 416) on
// in-memory files (/files/<name>) and on folders mounted by URL prefix, and query switches that misbehave the way
// real servers and networks do:
//   ?ignore-range   answer 200 with the whole file (streamed, so a client that stops reading is seen to stop)
//   ?short=N        to a range of more than N bytes, a 206 whose body has only N (Content-Length says so: a clean
//                   but short response)
//   ?break=N        to a range of more than N bytes, a 206 that promises it all, sends N bytes and drops the connection
//   ?fail=K         answer 503 to the first K requests for this URL
// Every 206 carries an ETag of the file's contents, so a file replaced by another of the same size is told apart.
import { readFile } from "node:fs/promises";
import { type ServerResponse, createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".map": "application/json",
};
const CHUNK = 64 * 1024;

export interface Logged {
  readonly path: string;
  readonly range: string | undefined;
  status: number;
  /** Body bytes written before the response finished or the client went away. */
  sent: number;
  /** The whole body was sent (bodies only). */
  complete: boolean;
}

export interface RangeServer {
  readonly origin: string;
  /** In-memory files served at /files/<name> (replace one to simulate a file changed on the server). */
  readonly files: Map<string, Uint8Array>;
  readonly log: Logged[];
  close(): Promise<void>;
}

export async function serveRanges(mounts: Record<string, string> = {}): Promise<RangeServer> {
  const files = new Map<string, Uint8Array>();
  const log: Logged[] = [];
  const failures = new Map<string, number>();
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const range = request.headers.range;
    const entry: Logged = { path: url.pathname + url.search, range, status: 0, sent: 0, complete: false };
    log.push(entry);
    const body = await find(url.pathname, files, mounts);
    const q = url.searchParams;
    const failed = failures.get(entry.path) ?? 0;
    if (q.has("fail") && failed < Number(q.get("fail"))) {
      failures.set(entry.path, failed + 1);
      return void response.writeHead((entry.status = 503)).end();
    }
    if (body === undefined || request.method !== "GET") return void response.writeHead((entry.status = 404)).end();
    const type = TYPES[extname(url.pathname)] ?? "application/octet-stream";
    const match = /^bytes=(\d+)-(\d*)$/.exec(range ?? "");
    if (!match || q.has("ignore-range")) {
      response.writeHead((entry.status = 200), { "content-type": type, "content-length": body.length, "cache-control": "no-store" });
      return send(response, body, entry);
    }
    const first = Number(match[1]);
    const last = Math.min(match[2] ? Number(match[2]) : Infinity, body.length - 1);
    if (first > last) return void response.writeHead((entry.status = 416), { "content-range": `bytes */${body.length}` }).end();
    const part = body.subarray(first, last + 1);
    const limit = (key: string) => (q.has(key) && part.length > Number(q.get(key)) ? Number(q.get(key)) : undefined);
    const cut = part.subarray(0, limit("short"));
    response.writeHead((entry.status = 206), {
      "content-type": type,
      "content-range": `bytes ${first}-${last}/${body.length}`,
      "content-length": cut.length,
      etag: etagOf(body),
      "cache-control": "no-store",
    });
    const cutoff = limit("break");
    if (cutoff === undefined) return send(response, cut, entry);
    entry.sent = cutoff;
    response.write(part.subarray(0, entry.sent), () => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    files,
    log,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A strong ETag of the contents: their FNV-1a hash and length. */
function etagOf(body: Uint8Array): string {
  let h = 0x811c9dc5;
  for (const b of body) h = Math.imul(h ^ b, 0x01000193);
  return `"${(h >>> 0).toString(16)}-${body.length}"`;
}

/** The bytes at `path`: an in-memory file, or a file under a mount (never outside it). */
async function find(path: string, files: Map<string, Uint8Array>, mounts: Record<string, string>): Promise<Uint8Array | undefined> {
  if (path.startsWith("/files/")) return files.get(decodeURIComponent(path.slice("/files/".length)));
  const prefix = Object.keys(mounts)
    .sort((a, b) => b.length - a.length)
    .find((p) => path.startsWith(p));
  if (prefix === undefined) return undefined;
  const root = mounts[prefix]!;
  const file = normalize(join(root, decodeURIComponent(path.slice(prefix.length))));
  if (!file.startsWith(root + sep)) return undefined;
  return readFile(file).catch(() => undefined);
}

/** Writes the body in chunks, waiting for the client; stops when it goes away. */
async function send(response: ServerResponse, body: Uint8Array, entry: Logged): Promise<void> {
  for (let at = 0; at < body.length && !response.destroyed; at += CHUNK) {
    const chunk = body.subarray(at, at + CHUNK);
    entry.sent += chunk.length;
    if (!response.write(chunk)) await drainedOrClosed(response);
  }
  if (!response.destroyed) response.end(() => (entry.complete = true));
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done).off("close", done);
      resolve();
    };
    response.on("drain", done).on("close", done);
  });
}
