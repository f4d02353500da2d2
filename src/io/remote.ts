// safetensors files on an HTTP server, read with range requests (`Range: bytes=a-b`, answered by 206 Partial
// Content): opening fetches the header only, and each tensor is downloaded when it is read. Uses the global fetch
// (Node ≥ 20, browsers, workers) or one the caller injects.
import { ArgumentTypeError, describe, requireInteger } from "../errors.js";
import { checkOptions } from "../options.js";
import { IoError } from "./errors.js";
import { GgufReader } from "./gguf/reader.js";
import { SafetensorsReader } from "./reader.js";
import { BlobSource, type ByteSource, checkRange } from "./source.js";

export interface Progress {
  /** Bytes of the current read received so far. */
  readonly loaded: number;
  /** Bytes the current read asks for. */
  readonly total: number;
}

export interface RemoteOptions {
  /** Called as the bytes of each read arrive (by openSafetensors: each tensor read, not the header). */
  onProgress?: (progress: Progress) => void;
  /** Further attempts after a network error or a 5xx status, waiting 100 ms, 200 ms, 400 ms, … (default 3). */
  retries?: number;
  /** Request headers, e.g. { Authorization: "Bearer …" }. */
  headers?: Record<string, string>;
  /** The fetch to call (default: the global fetch). */
  fetch?: typeof fetch;
}

const OPTION_KEYS = ["onProgress", "retries", "headers", "fetch"] as const;
/** The first request: the 8-byte header length and the header's first byte, which is the reader's first read. */
const PROBE_BYTES = 9;
const BACKOFF_MS = 100;

interface Settings {
  readonly retries: number;
  readonly headers: Record<string, string>;
  readonly fetch: typeof fetch;
}

/** A failure worth another attempt (network error, 5xx); reported as an IoError once the attempts run out. */
class Transient extends Error {}

/**
 * What tells one version of a remote file from another: the total of a response's Content-Range, and its ETag or,
 * without one, its Last-Modified (null where the server sends none, or a cross-origin server does not expose it).
 */
interface Version {
  readonly size: number;
  readonly etag: string | null;
  readonly lastModified: string | null;
}

/** A file on an HTTP(S) server; its size is the total of the first response's Content-Range. */
export class HttpSource implements ByteSource {
  /** Progress of the reads to come (settable, e.g. after the header has been read). */
  onProgress: ((progress: Progress) => void) | undefined;
  private closed = false;

  private constructor(
    readonly name: string,
    /** The version opened: every later response must be of it. */
    private readonly version: Version,
    private readonly settings: Settings,
    /** The bytes of the first response, which later reads within them reuse. */
    private readonly prefix: Uint8Array,
    onProgress: RemoteOptions["onProgress"],
  ) {
    this.onProgress = onProgress;
  }

  get size(): number {
    return this.version.size;
  }

  /** Requests the first bytes of `url`, which tells the size and whether the server honours range requests. */
  static async open(url: string | URL, options?: RemoteOptions): Promise<HttpSource> {
    const { onProgress, ...settings } = remoteSettings(options, "HttpSource.open options");
    const name = String(url);
    const first = await fetchRange({ url: name, position: 0, length: PROBE_BYTES, settings, opened: undefined, onProgress: undefined });
    return new HttpSource(name, first.version, settings, first.bytes, onProgress);
  }

  async read(position: number, length: number): Promise<Uint8Array> {
    if (this.closed) throw new IoError(this.name, "is closed; allowed: reads before close()");
    checkRange(this, position, length);
    if (length === 0) return new Uint8Array(0);
    if (position + length <= this.prefix.length) return this.prefix.slice(position, position + length);
    return (await fetchRange({ url: this.name, position, length, settings: this.settings, opened: this.version, onProgress: this.onProgress })).bytes;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/**
 * Opens a safetensors file: an http(s) URL (range requests; in a browser, also a URL relative to the page), a
 * Blob or File, or (in Node) a file path. The options apply to URLs; `onProgress` reports each tensor read.
 */
export function openSafetensors(input: string | URL | Blob, options?: RemoteOptions): Promise<SafetensorsReader> {
  return openWith(input, options, "openSafetensors", SafetensorsReader.open);
}

/** Opens a GGUF file from the same inputs as openSafetensors (the header is read through a bounded window). */
export function openGguf(input: string | URL | Blob, options?: RemoteOptions): Promise<GgufReader> {
  return openWith(input, options, "openGguf", GgufReader.open);
}

/** The reader `open` makes of a path, a Blob or a URL; progress is reported from the first read after the header. */
async function openWith<R>(
  input: string | URL | Blob,
  options: RemoteOptions | undefined,
  caller: string,
  open: (source: string | ByteSource) => Promise<R>,
): Promise<R> {
  const url = asUrl(input, `${caller} input`);
  if (url === undefined && options !== undefined) {
    throw new ArgumentTypeError(`${caller} options`, `apply to http(s) URLs; got ${describe(input)} with options`);
  }
  if (typeof input === "string" && url === undefined) return open(input);
  if (url === undefined) return open(new BlobSource(input as Blob));
  const { onProgress, ...settings } = remoteSettings(options, `${caller} options`);
  const source = await HttpSource.open(url, settings);
  const reader = await open(source);
  source.onProgress = onProgress;
  return reader;
}

/** The URL `input` names, or undefined for a path or a Blob; other inputs and protocols are typed errors. */
function asUrl(input: unknown, argument: string): URL | undefined {
  if (typeof Blob !== "undefined" && input instanceof Blob) return undefined;
  // Pages and workers resolve strings against their location; in Node a string is a URL only with http(s).
  const base = (globalThis as { location?: { href?: string } }).location?.href;
  let url: URL | undefined;
  if (input instanceof URL) url = input;
  else if (typeof input === "string") url = /^https?:\/\//i.test(input) || base !== undefined ? new URL(input, base) : undefined;
  else throw new ArgumentTypeError(argument, `got ${describe(input)}; allowed: an http(s) URL, a Blob or File, or a file path`);
  if (url !== undefined && url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ArgumentTypeError(argument, `is ${JSON.stringify(url.href)}; allowed: an http: or https: URL, a Blob or File, or a file path`);
  }
  return url;
}

function remoteSettings(options: RemoteOptions | undefined, argument: string): Settings & Pick<RemoteOptions, "onProgress"> {
  const o = checkOptions(options, OPTION_KEYS, argument);
  for (const key of ["onProgress", "fetch"] as const) {
    if (o[key] !== undefined && typeof o[key] !== "function") throw new ArgumentTypeError(`${argument}.${key}`, `got ${describe(o[key])}; allowed: a function`);
  }
  if (o.headers !== undefined && (typeof o.headers !== "object" || o.headers === null)) {
    throw new ArgumentTypeError(`${argument}.headers`, `got ${describe(o.headers)}; allowed: an object of header names and values`);
  }
  return {
    onProgress: o.onProgress,
    retries: o.retries === undefined ? 3 : requireInteger(`${argument}.retries`, o.retries, 0, 10),
    headers: o.headers ?? {},
    // A wrapper: browsers refuse a fetch called as another object's method ("Illegal invocation").
    fetch: o.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  };
}

/** One range read: what to ask for, what is known of the file, and who hears of its progress. */
interface RangeRead {
  readonly url: string;
  readonly position: number;
  readonly length: number;
  readonly settings: Settings;
  /** The version the first response gave; undefined for that first request. */
  readonly opened: Version | undefined;
  readonly onProgress: RemoteOptions["onProgress"];
}

/**
 * Bytes [position, position + length) (fewer when the size is still unknown and the file is shorter) and the file's
 * version, retrying transient failures with exponential backoff.
 */
async function fetchRange(r: RangeRead): Promise<{ bytes: Uint8Array; version: Version }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptRange(r);
    } catch (e) {
      if (!(e instanceof Transient)) throw e;
      if (attempt >= r.settings.retries) throw new IoError(r.url, `${e.message} (${attempt + 1} attempt${attempt === 0 ? "" : "s"})`);
      await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * 2 ** attempt));
    }
  }
}

async function attemptRange(read: RangeRead): Promise<{ bytes: Uint8Array; version: Version }> {
  const { url, position, length, settings } = read;
  const range = `bytes=${position}-${position + length - 1}`;
  const controller = new AbortController();
  let response: Response;
  try {
    response = await settings.fetch(url, { headers: { ...settings.headers, range }, signal: controller.signal });
  } catch (e) {
    throw new Transient(`network error on ${range}: ${causeOf(e)}`);
  }
  try {
    return await checkedBody(read, response, range);
  } catch (e) {
    controller.abort(); // never download the rest of a refused answer (a whole file, an error page)
    throw e;
  }
}

/** The bytes of a 206 answer whose Content-Range is the range asked for, of the version opened, and its version. */
async function checkedBody(read: RangeRead, response: Response, range: string): Promise<{ bytes: Uint8Array; version: Version }> {
  const { url, position, length, opened } = read;
  const contentRange = response.headers.get("content-range");
  const versionOf = (size: number): Version => ({ size, etag: response.headers.get("etag"), lastModified: response.headers.get("last-modified") });
  if (response.status === 416 && opened === undefined && /^bytes \*\/0$/i.test(contentRange ?? "")) return { bytes: new Uint8Array(0), version: versionOf(0) };
  if (response.status !== 206) throw statusError(url, response, range);
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/i.exec(contentRange ?? "");
  if (!match) {
    const why =
      contentRange === null
        ? "no Content-Range header (a cross-origin server must expose it: Access-Control-Expose-Headers: Content-Range)"
        : `Content-Range ${JSON.stringify(contentRange)}`;
    throw new IoError(url, `answered ${range} with ${why}; allowed: bytes first-last/size`);
  }
  const [first, last, total] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const version = versionOf(total);
  if (opened !== undefined) checkVersion(url, opened, version);
  const want = Math.min(length, total - position);
  if (first !== position || last !== position + want - 1) {
    throw new IoError(url, `answered ${range} with Content-Range ${contentRange}; allowed: bytes ${position}-${position + want - 1}/${total}`);
  }
  return { bytes: await readBody(read, response, range, want), version };
}

/**
 * Refuses an answer from another version of the file than the one opened (a re-upload between two reads would mix
 * both): its size, else its ETag, or its Last-Modified where neither answer has an ETag, differs.
 */
function checkVersion(url: string, opened: Version, now: Version): void {
  const changed = (what: string, then: string, later: string) =>
    new IoError(url, `changed on the server: ${what} ${then} when opened and ${later} now; reopen it`);
  if (now.size !== opened.size) throw changed("it had", `${opened.size} bytes`, `has ${now.size}`);
  if (opened.etag !== null && now.etag !== null) {
    if (now.etag !== opened.etag) throw changed("its ETag was", opened.etag, `is ${now.etag}`);
  } else if (opened.lastModified !== null && now.lastModified !== null && now.lastModified !== opened.lastModified) {
    throw changed("it was last modified", opened.lastModified, `${now.lastModified}`);
  }
}

/** The body of a 206 response: exactly `want` bytes, reported to onProgress as they arrive. */
async function readBody({ url, onProgress }: RangeRead, response: Response, range: string, want: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(want);
  if (!response.body) throw new IoError(url, `answered ${range} without a body`);
  const reader = response.body.getReader();
  let loaded = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (e) {
      throw new Transient(`truncated body: the connection broke after ${loaded} of the ${want} bytes of ${range} (${causeOf(e)})`);
    }
    if (chunk.done) break;
    if (loaded + chunk.value.length > want) throw new IoError(url, `sent more than the ${want} bytes of ${range}`);
    bytes.set(chunk.value, loaded);
    loaded += chunk.value.length;
    onProgress?.({ loaded, total: want });
  }
  if (loaded < want) throw new IoError(url, `truncated body: the response to ${range} ended after ${loaded} of ${want} bytes`);
  return bytes;
}

function statusError(url: string, response: Response, range: string): Error {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  if (response.status >= 500) return new Transient(`${status} on ${range}`);
  if (response.status === 200) {
    return new IoError(
      url,
      `the server does not support range requests: it answered ${range} with 200 and the whole file (download stopped); allowed: a server that answers 206 Partial Content`,
    );
  }
  if (response.status === 404 || response.status === 410) return new IoError(url, `not found (${status})`);
  if (response.status === 401 || response.status === 403)
    return new IoError(url, `access denied (${status}); pass credentials in options.headers, e.g. Authorization`);
  return new IoError(url, `answered ${range} with ${status}; allowed: 206 Partial Content`);
}

/** The underlying reason of a fetch failure (Node's fetch wraps it: TypeError "fetch failed" with a cause). */
function causeOf(e: unknown): string {
  const cause = (e as { cause?: { message?: string } }).cause?.message;
  return cause ?? (e instanceof Error ? e.message : String(e));
}
