// GGUF over HTTP range requests and from a Blob: the same header, metadata and tensor values as the local file
// (a fixture written by the gguf Python package), in Node and with the browser bundle in headless Chromium.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArgumentTypeError } from "../src/errors.js";
import { GgufError, GgufReader, IoError, type Progress, openGguf } from "../src/io/index.js";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { type RangeServer, serveRanges } from "./remote/server.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURE = join(root, "test", "fixtures", "gguf", "quantized.gguf");
let server: RangeServer;
let browser: Promise<Browser> | undefined;
const url = (name = "model.gguf", query = "") => `${server.origin}/files/${name}${query}`;

beforeAll(async () => {
  server = await serveRanges({ "/build/browser/": join(root, "build", "browser") });
  const bytes = new Uint8Array(readFileSync(FIXTURE));
  server.files.set("model.gguf", bytes);
  server.files.set("short.gguf", bytes.subarray(0, bytes.length - 100));
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>gguf</title>
<script type="module">import * as m from "/build/browser/safetensors.js"; window.safetensors = m;</script>`;
  server.files.set("page.html", new TextEncoder().encode(page));
});

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  await server?.close();
});

/** Everything a reader tells: version, alignment, metadata (bigints as text), every tensor's info and values. */
async function contents(r: GgufReader): Promise<unknown> {
  const tensors = [];
  for (const t of r.tensors) tensors.push({ ...t, type: t.typeName, values: Array.from(await r.readValues(t), String).join(" ") });
  const metadata = JSON.stringify([...r.metadata], (_, v) => (typeof v === "bigint" ? `${v}n` : v));
  await r.close();
  return { version: r.version, alignment: r.alignment, dataOffset: r.dataOffset, metadata, tensors };
}

describe("openGguf", () => {
  it("reads a URL (range requests, progress per tensor) and a Blob equal to the local file", async () => {
    const expected = await contents(await GgufReader.open(FIXTURE));
    const events: Progress[] = [];
    const remote = await openGguf(url(), { onProgress: (p) => events.push(p) });
    expect(remote.path).toBe(url());
    expect(await contents(remote)).toEqual(expected);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.loaded <= e.total)).toBe(true);
    expect(await contents(await openGguf(new Blob([readFileSync(FIXTURE)])))).toEqual(expected);
    expect(await contents(await openGguf(FIXTURE))).toEqual(expected);
  });

  it("names a truncated remote file, a server without range support and a missing file; refuses options without a URL", async () => {
    await expect(openGguf(url("short.gguf"))).rejects.toThrow(GgufError);
    await expect(openGguf(url("short.gguf"))).rejects.toThrow(/tensor data beyond the file/);
    await expect(openGguf(url("model.gguf", "?ignore-range"))).rejects.toThrow(IoError);
    await expect(openGguf(url("none.gguf"))).rejects.toThrow(/not found \(HTTP 404/);
    await expect(openGguf(FIXTURE, { retries: 1 })).rejects.toThrow(ArgumentTypeError);
    await expect(openGguf(42 as never)).rejects.toThrow(/^openGguf input: /);
  });

  it("reads the same values in headless Chromium with the browser bundle", async () => {
    const expected = await contents(await GgufReader.open(FIXTURE));
    const page = await (await (browser ??= launchChromium())).context.newPage();
    await page.goto(url("page.html"));
    await page.waitForFunction(() => "safetensors" in globalThis);
    const got = await page.evaluate(async () => {
      const m = (globalThis as unknown as { safetensors: typeof import("../src/io/browser.js") }).safetensors;
      const read = async (r: GgufReader) => {
        const tensors = [];
        for (const t of r.tensors) tensors.push({ ...t, type: t.typeName, values: Array.from(await r.readValues(t), String).join(" ") });
        const metadata = JSON.stringify([...r.metadata], (_, v) => (typeof v === "bigint" ? `${v}n` : v));
        await r.close();
        return { version: r.version, alignment: r.alignment, dataOffset: r.dataOffset, metadata, tensors };
      };
      const blob = await (await fetch("/files/model.gguf")).blob();
      return { url: await read(await m.openGguf("/files/model.gguf")), blob: await read(await m.openGguf(blob)) };
    });
    expect(got.url).toEqual(expected);
    expect(got.blob).toEqual(expected);
    await page.close();
  });
});
