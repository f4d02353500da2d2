// Remote safetensors reading in headless Chromium: the browser bundle (build/browser/safetensors.js) reads the same
// values over range requests and from a Blob as Node does from the file, with the same typed errors (a server that
// ignores Range, a truncated body, a missing file), and the example page (examples/remote/) lists the tensors and
// dequantizes one in a Web Worker.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SafetensorsReader } from "../src/io/index.js";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { writeFixture } from "./remote/fixture.js";
import { type RangeServer, serveRanges } from "./remote/server.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "minifloat-remote-browser-"));
let server: RangeServer;
let local: SafetensorsReader;
/** Launched by the first test, so a missing Chromium fails each test (vitest would mark them skipped if a hook threw). */
let browser: Promise<Browser> | undefined;

beforeAll(async () => {
  const fixture = await writeFixture(dir);
  local = await SafetensorsReader.open(fixture.path);
  server = await serveRanges({ "/build/browser/": join(root, "build", "browser"), "/examples/remote/": join(root, "examples", "remote") });
  server.files.set("model.safetensors", fixture.bytes);
  // A page that loads the bundle (an import() inside page.evaluate would be rewritten by vitest's transform).
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>remote</title>
<script type="module">import * as m from "/build/browser/safetensors.js"; window.safetensors = m;</script>`;
  server.files.set("page.html", new TextEncoder().encode(page));
});

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  await local?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a page; page errors and console errors are collected for the test to check. */
async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await (await (browser ??= launchChromium())).context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
  await page.goto(`${server.origin}${path}`);
  return { page, problems };
}

/** Every tensor's values as one string of exact decimal forms (compared whole: quicker than arrays of strings). */
async function localValues(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of local.tensors) out[t.name] = Array.from(await local.readValues(t), String).join(" ");
  return out;
}

describe("remote safetensors in headless Chromium", () => {
  it("reads the values over range requests and from a Blob with the browser bundle, equal to Node's local read", async () => {
    const { page, problems } = await open("/files/page.html");
    await page.waitForFunction(() => "safetensors" in globalThis);
    const result = await page.evaluate(async () => {
      const m = (globalThis as unknown as { safetensors: typeof import("../src/io/browser.js") }).safetensors;
      const valuesOf = async (r: SafetensorsReader) => {
        const out: Record<string, string> = {};
        for (const t of r.tensors) out[t.name] = Array.from(await r.readValues(t), String).join(" ");
        await r.close();
        return out;
      };
      const events: { loaded: number; total: number }[] = [];
      const remote = await m.openSafetensors("/files/model.safetensors", { onProgress: (p) => events.push(p) });
      const path = remote.path;
      const fromUrl = await valuesOf(remote);
      const blob = await (await fetch("/files/model.safetensors")).blob();
      const fromBlob = await valuesOf(await m.openSafetensors(blob));
      const failure = (url: string) =>
        m.openSafetensors(url).then(
          () => "opened",
          (e: Error) => `${e.name}: ${e.message}`,
        );
      const last = events.at(-1);
      const short = await m.openSafetensors("/files/model.safetensors?short=4096");
      const truncated = await short.readValues(short.tensor("big")).then(
        () => "read",
        (e: Error) => `${e.name}: ${e.message}`,
      );
      await short.close();
      return {
        path,
        fromUrl,
        fromBlob,
        last,
        ignored: await failure("/files/model.safetensors?ignore-range"),
        missing: await failure("/files/none.safetensors"),
        truncated,
      };
    });
    const expected = await localValues();
    expect(result.path).toBe(`${server.origin}/files/model.safetensors`);
    expect(result.fromUrl).toEqual(expected);
    expect(result.fromBlob).toEqual(expected);
    expect(result.last).toEqual({ loaded: 4, total: 4 }); // the last read: "p", seven FP4 codes in 4 bytes ("e" is empty)
    expect(result.ignored).toMatch(/^IoError: http:\/\/127\.0\.0\.1:\d+\/files\/model\.safetensors\?ignore-range: the server does not support range requests/);
    expect(result.truncated).toMatch(
      /^IoError: .*model\.safetensors\?short=4096: truncated body: the response to bytes=\d+-\d+ ended after 4096 of \d+ bytes$/,
    );
    expect(result.missing).toMatch(/^IoError: http:\/\/127\.0\.0\.1:\d+\/files\/none\.safetensors: not found \(HTTP 404 Not Found\)$/);
    expect(problems.filter((p) => !p.includes("404") && !p.includes("ERR_ABORTED"))).toEqual([]);
    await page.close();
  });

  it("runs the example page: lists the tensors and dequantizes one in a Web Worker with a progress bar", async () => {
    const { page, problems } = await open("/examples/remote/index.html?url=/files/model.safetensors&tensor=big");
    await page.waitForFunction(() => (globalThis as Record<string, unknown>).exampleDone === true, undefined, { timeout: 120_000 });
    const rows = await page
      .locator("#tensors tr")
      .evaluateAll((trs) => trs.map((tr) => [...(tr as HTMLTableRowElement).cells].slice(0, 4).map((c) => c.textContent)));
    expect(rows).toEqual(local.tensors.map((t) => [t.name, t.dtype, `[${t.shape.join(", ")}]`, t.format?.name ?? "integers"]));
    const big = (await localValues()).big!.split(" ");
    expect((await page.locator("#result").textContent())?.split("\n")).toEqual([`big: ${big.length} values`, big.slice(0, 16).join(" ")]);
    const progress = await page.locator("#progress").evaluate((p) => [(p as HTMLProgressElement).value, (p as HTMLProgressElement).max]);
    expect(progress).toEqual([big.length * 4, big.length * 4]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
