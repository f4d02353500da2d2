// safetensors over HTTP range requests, against a local server: the same tensors as the local file, one request
// for the header and one per tensor read, and typed errors naming the URL for every way a server or network fails.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArgumentTypeError } from "../src/errors.js";
import { type ByteSource, HttpSource, IoError, type Progress, SafetensorsError, SafetensorsReader, openSafetensors } from "../src/io/index.js";
import { writeFixture } from "./remote/fixture.js";
import { type RangeServer, serveRanges } from "./remote/server.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-remote-"));
let server: RangeServer;
let local: SafetensorsReader;
let fixture: { path: string; bytes: Uint8Array };
const url = (query = "", name = "model.safetensors") => `${server.origin}/files/${name}${query}`;

beforeAll(async () => {
  fixture = await writeFixture(dir);
  server = await serveRanges();
  server.files.set("model.safetensors", fixture.bytes);
  local = await SafetensorsReader.open(fixture.path);
});

afterAll(async () => {
  await local?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a reader holds: tensor list, metadata, every tensor's values (and codes up to 16 bits), some sub-ranges. */
async function contents(r: SafetensorsReader): Promise<unknown> {
  const tensors = [];
  for (const t of r.tensors) {
    const codes = t.info.bits <= 16 ? Array.from(await r.readCodes(t)) : undefined;
    const middle = t.length > 2 ? Array.from(await r.readValues(t, 1, t.length - 2)) : [];
    tensors.push({ name: t.name, dtype: t.dtype, shape: t.shape, format: t.format?.name, values: Array.from(await r.readValues(t)), codes, middle });
  }
  return { metadata: r.metadata, dataStart: r.dataStart, tensors };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail("expected a rejection"),
    (e: Error) => e,
  );
}

describe("openSafetensors over HTTP", () => {
  it("reads every tensor equal to the local file: the header first, then one range request per read", async () => {
    const expected = await contents(local);
    const first = server.log.length;
    const remote = await openSafetensors(url());
    expect(remote.path).toBe(url());
    const big = remote.tensor("big");
    await remote.readValues(big);
    const headerLength = remote.dataStart - 8;
    const ranges = server.log.slice(first).map((e) => `${e.status} ${e.range}`);
    expect(ranges).toEqual(["206 bytes=0-8", `206 bytes=8-${7 + headerLength}`, `206 bytes=${remote.dataStart}-${remote.dataStart + big.end - 1}`]);
    expect(await contents(remote)).toEqual(expected);
    await remote.close();
    await expect(remote.readValues(big)).rejects.toThrow(IoError);
  });

  it("opens a path and a Blob the same way, and refuses remote options for them", async () => {
    const expected = await contents(local);
    for (const input of [fixture.path, new Blob([fixture.bytes])]) {
      const r = await openSafetensors(input);
      expect(await contents(r)).toEqual(expected);
      await r.close();
    }
    await expect(openSafetensors(fixture.path, { retries: 1 })).rejects.toThrow(ArgumentTypeError);
    await expect(openSafetensors(url(), { retires: 1 } as never)).rejects.toThrow(/openSafetensors options\.retires: .*did you mean "retries"/);
    await expect(openSafetensors(new URL("ftp://127.0.0.1/x.safetensors"))).rejects.toThrow(/allowed: an http: or https: URL/);
    await expect(openSafetensors(url(), { retries: -1 })).rejects.toThrow(/retries: got -1; allowed: an integer in \[0, 10\]/);
  });

  it("reports each tensor read's progress, monotone and ending at its size, and nothing for the header", async () => {
    const events: Progress[] = [];
    const r = await openSafetensors(url(), { onProgress: (p) => events.push(p) });
    expect(events).toEqual([]);
    const big = r.tensor("big");
    await r.readValues(big);
    expect(events.length).toBeGreaterThan(1);
    for (const [i, e] of events.entries()) {
      expect(e.total).toBe(big.end - big.begin);
      expect(e.loaded).toBeGreaterThan(i === 0 ? 0 : events[i - 1]!.loaded);
    }
    expect(events.at(-1)!.loaded).toBe(big.end - big.begin);
    await r.close();
  });

  it("refuses a server that ignores Range, without downloading the file", async () => {
    server.files.set("large.bin", new Uint8Array(32 << 20));
    const error = await rejection(openSafetensors(url("?ignore-range", "large.bin")));
    expect(error).toBeInstanceOf(IoError);
    expect(error.message).toBe(
      `${url("?ignore-range", "large.bin")}: the server does not support range requests: it answered bytes=0-8 with 200 and the whole file (download stopped); allowed: a server that answers 206 Partial Content`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const entry = server.log.at(-1)!;
    expect(entry).toMatchObject({ status: 200, complete: false });
    expect(entry.sent).toBeLessThan(8 << 20);
  });

  it("names a truncated body: a connection that breaks (after retries) and a response that ends short", async () => {
    const r = await openSafetensors(url("?break=4096"), { retries: 1 });
    const big = r.tensor("big");
    const broken = await rejection(r.readValues(big));
    expect(broken).toBeInstanceOf(IoError);
    expect(broken.message).toMatch(
      new RegExp(
        `^${literal(url("?break=4096"))}: truncated body: the connection broke after \\d+ of the ${big.end - big.begin} bytes of bytes=\\d+-\\d+ \\(.*\\) \\(2 attempts\\)$`,
      ),
    );
    const short = await openSafetensors(url("?short=4096"));
    expect((await rejection(short.readValues(big))).message).toMatch(/: truncated body: the response to bytes=\d+-\d+ ended after 4096 of 1048576 bytes$/);
    // A file cut inside its header is a SafetensorsError, as for a local file.
    server.files.set("cut.safetensors", fixture.bytes.subarray(0, 100));
    await expect(openSafetensors(url("", "cut.safetensors"))).rejects.toThrow(SafetensorsError);
    // Files shorter than the first request: the size comes from a shorter 206, or from a 416 for an empty file.
    server.files.set("tiny.bin", Uint8Array.of(1, 2, 3, 4));
    server.files.set("empty.bin", new Uint8Array(0));
    await expect(openSafetensors(url("", "tiny.bin"))).rejects.toThrow(/tiny\.bin: is not a safetensors file: it has 4 bytes/);
    await expect(openSafetensors(url("", "empty.bin"))).rejects.toThrow(/empty\.bin: is not a safetensors file: it has 0 bytes/);
  });

  it("names the status of a missing or forbidden file and of other answers", async () => {
    const missing = await rejection(openSafetensors(url("", "missing.safetensors")));
    expect(missing).toBeInstanceOf(IoError);
    expect(missing.message).toBe(`${url("", "missing.safetensors")}: not found (HTTP 404 Not Found)`);
    const answer = (status: number, headers: Record<string, string> = {}) => ({
      fetch: async () => new Response(status === 206 ? "x" : null, { status, headers }),
    });
    await expect(openSafetensors(url(), answer(403))).rejects.toThrow(/: access denied \(HTTP 403\); pass credentials in options\.headers/);
    await expect(openSafetensors(url(), answer(302))).rejects.toThrow(/: answered bytes=0-8 with HTTP 302; allowed: 206 Partial Content$/);
    await expect(openSafetensors(url(), answer(206))).rejects.toThrow(/: answered bytes=0-8 with no Content-Range header/);
    await expect(openSafetensors(url(), answer(206, { "content-range": "bytes 0-0/*" }))).rejects.toThrow(
      /Content-Range "bytes 0-0\/\*"; allowed: bytes first-last\/size/,
    );
  });

  it("retries network errors and 5xx with backoff, then names the failure and the attempts", async () => {
    const first = server.log.length;
    const r = await openSafetensors(url("?fail=2"));
    expect(server.log.slice(first, first + 3).map((e) => e.status)).toEqual([503, 503, 206]);
    expect(await contents(r)).toEqual(await contents(local));
    await expect(openSafetensors(url("?fail=9"), { retries: 0 })).rejects.toThrow(/: HTTP 503 Service Unavailable on bytes=0-8 \(1 attempt\)$/);
    const closed = await serveRanges();
    const gone = closed.origin;
    await closed.close();
    await expect(openSafetensors(`${gone}/files/x.safetensors`, { retries: 2 })).rejects.toThrow(/: network error on bytes=0-8: .* \(3 attempts\)$/);
  });

  it("refuses a file that changed on the server after opening", async () => {
    server.files.set("changing.safetensors", fixture.bytes);
    const r = await openSafetensors(url("", "changing.safetensors"));
    server.files.set("changing.safetensors", new Uint8Array([...fixture.bytes, 0]));
    await expect(r.readValues(r.tensor("w"))).rejects.toThrow(
      new RegExp(
        `^${literal(url("", "changing.safetensors"))}: changed on the server: it had ${fixture.bytes.length} bytes when opened and has ${fixture.bytes.length + 1} now; reopen it$`,
      ),
    );
  });

  it("refuses a file replaced by another of the same size: by its ETag, else by its Last-Modified", async () => {
    const changed = (opened: string, now: string) =>
      new RegExp(`^${literal(url("", "replaced.safetensors"))}: changed on the server: ${opened} when opened and ${now} now; reopen it$`);
    // The same file with one bit of tensor w's first value flipped.
    const other = fixture.bytes.slice();
    other[local.dataStart + local.tensor("w").begin]! ^= 1;
    const etagOf = async () => (await fetch(url("", "replaced.safetensors"), { headers: { range: "bytes=0-0" } })).headers.get("etag");
    server.files.set("replaced.safetensors", fixture.bytes);
    const r = await openSafetensors(url("", "replaced.safetensors"));
    const etag = await etagOf();
    server.files.set("replaced.safetensors", other);
    const etagNow = await etagOf();
    expect(etag).not.toBe(etagNow);
    await expect(r.readValues(r.tensor("w"))).rejects.toThrow(changed(`its ETag was ${literal(String(etag))}`, `is ${literal(String(etagNow))}`));
    // Without ETags (a server that sends none): Last-Modified, the same way; an answer with neither passes.
    let stamp = "Mon, 01 Jan 2024 00:00:00 GMT";
    const dated =
      (withStamp: boolean): typeof fetch =>
      async (input, init) => {
        const answer = await fetch(input, init);
        const headers = new Headers(answer.headers);
        headers.delete("etag");
        if (withStamp) headers.set("last-modified", stamp);
        return new Response(answer.body, { status: answer.status, headers });
      };
    server.files.set("replaced.safetensors", fixture.bytes);
    const byDate = await openSafetensors(url("", "replaced.safetensors"), { fetch: dated(true) });
    expect(await contents(byDate)).toEqual(await contents(local));
    stamp = "Tue, 02 Jan 2024 00:00:00 GMT";
    await expect(byDate.readValues(byDate.tensor("w"))).rejects.toThrow(
      changed("it was last modified Mon, 01 Jan 2024 00:00:00 GMT", "Tue, 02 Jan 2024 00:00:00 GMT"),
    );
    const undated = await openSafetensors(url("", "replaced.safetensors"), { fetch: dated(false) });
    server.files.set("replaced.safetensors", other);
    expect(Array.from(await undated.readValues(undated.tensor("w")))).not.toEqual(Array.from(await local.readValues(local.tensor("w"))));
  });

  it("sends the caller's headers with each range request through an injected fetch", async () => {
    const seen: Headers[] = [];
    const source = await HttpSource.open(url(), {
      headers: { Authorization: "Bearer t0ken" },
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    expect(source.size).toBe(fixture.bytes.length);
    expect(Array.from(await source.read(100, 5))).toEqual(Array.from(fixture.bytes.subarray(100, 105)));
    expect(seen.map((h) => [h.get("authorization"), h.get("range")])).toEqual([
      ["Bearer t0ken", "bytes=0-8"],
      ["Bearer t0ken", "bytes=100-104"],
    ]);
    await expect(source.read(fixture.bytes.length - 2, 5)).rejects.toThrow(/^position, length: are \d+, 5; allowed: a range within the \d+ bytes of http:/);
  });
});

describe("SafetensorsReader.open(ByteSource)", () => {
  /** A source over bytes in memory whose reads come back at an odd offset, or `cut` bytes short. */
  const memory = (bytes: Uint8Array, cut = 0): ByteSource => ({
    name: "memory",
    size: bytes.length,
    read: async (position, length) => {
      const padded = new Uint8Array(length + 1);
      padded.set(bytes.subarray(position, position + length), 1);
      return padded.subarray(1, 1 + length - (position > 0 ? cut : 0));
    },
    close: async () => {},
  });

  it("reads any source, realigning bytes so that 16/32/64-bit views of them are valid", async () => {
    const r = await SafetensorsReader.open(memory(fixture.bytes));
    expect(r.path).toBe("memory");
    expect(await contents(r)).toEqual(await contents(local));
  });

  it("names a source whose read comes back short as a truncated file", async () => {
    await expect(SafetensorsReader.open(memory(fixture.bytes, 3))).rejects.toThrow(/^memory: ended at byte \d+; expected 3 more bytes: truncated file$/);
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
