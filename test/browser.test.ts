// A real browser: the browser bundle and test pages served from 127.0.0.1, run in headless Chromium through
// playwright-core; the page's golden subset must equal Node's bit for bit, and the browser example must run.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { type StaticServer, serveStatic } from "../scripts/static-server.mjs";
import { GOLDEN_DTYPES, runSuite } from "./browser/suite.mjs";
import { sharedPath } from "./golden/reader.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const requests: string[] = [];
let server: StaticServer;
/** The same files with COOP/COEP headers: a cross-origin isolated page may share memory with workers. */
let isolated: StaticServer;
/** Launched by the first test, so a missing Chromium fails each test (vitest would mark them skipped if a hook threw). */
let browser: Promise<Browser> | undefined;

beforeAll(async () => {
  server = await serveStatic(
    {
      "/build/browser/": join(root, "build", "browser"),
      "/test/browser/": join(root, "test", "browser"),
      "/examples/browser/": join(root, "examples", "browser"),
      "/golden/": sharedPath("golden", "ml_dtypes"),
    },
    requests,
  );
  isolated = await serveStatic({ "/build/browser/": join(root, "build", "browser"), "/test/browser/": join(root, "test", "browser") }, [], { isolated: true });
});

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  await server?.close();
  await isolated?.close();
});

/** Opens a page and waits for `done` (a global the page sets); page errors and console errors fail the test. */
async function open(path: string, done: string, origin = server.origin): Promise<{ page: Page; problems: string[] }> {
  const page = await (await (browser ??= launchChromium())).context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
  await page.goto(`${origin}${path}`);
  await page.waitForFunction(
    (name) => (globalThis as Record<string, unknown>)[name] !== undefined || (globalThis as Record<string, unknown>).suiteError !== undefined,
    done,
    { timeout: 300_000 },
  );
  return { page, problems };
}

function goldenFiles(): Record<string, { decode: Uint8Array; encode: Uint8Array }> {
  return Object.fromEntries(
    GOLDEN_DTYPES.map((dtype) => [
      dtype,
      {
        decode: readFileSync(sharedPath("golden", "ml_dtypes", `${dtype}.decode.bin`)),
        encode: readFileSync(sharedPath("golden", "ml_dtypes", `${dtype}.encode.bin`)),
      },
    ]),
  );
}

describe("headless Chromium", () => {
  it("runs the golden subset on the browser bundle, bit-identical to Node and to ml_dtypes", async () => {
    const { page, problems } = await open("/test/browser/page.html", "suiteResult");
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>).suiteError)).toBeUndefined();
    const inBrowser = await page.evaluate(
      () =>
        (globalThis as Record<string, unknown>).suiteResult as {
          result: unknown;
          kernels: boolean;
          status: { available: boolean; tier?: string };
          userAgent: string;
          ms: number;
        },
    );
    expect(inBrowser.userAgent).toMatch(/HeadlessChrome\/\d+/);
    expect(inBrowser.kernels).toBe(true);
    expect(inBrowser.status.available).toBe(true);
    // Chromium has relaxed SIMD: its results below come from the relaxed build, Node's from the baseline one.
    expect(inBrowser.status.tier).toBe("relaxed");
    const lib = await import("minifloat");
    const inNode = runSuite(lib, goldenFiles());
    expect(inBrowser.result).toEqual(JSON.parse(JSON.stringify(inNode)));
    for (const dtype of GOLDEN_DTYPES) expect(inNode.golden[dtype]).toMatchObject({ decodeMismatches: 0, encodeMismatches: 0 });
    // Chromium has a native Float16Array, Node 20 not: the same bits arrive in each runtime's own array type.
    expect(await page.evaluate(() => typeof (globalThis as { Float16Array?: unknown }).Float16Array)).toBe("function");
    for (const section of Object.values(inNode.float16)) expect(section).toMatchObject({ nativeType: true });
    expect(problems).toEqual([]);
    expect(requests).toContain("200 /build/browser/index.js");
    expect(requests.filter((r) => !r.startsWith("200 "))).toEqual([]);
    await page.close();
  });

  it("runs the browser example page (examples/browser/index.html) as the README shows it", async () => {
    const { page, problems } = await open("/examples/browser/index.html", "exampleDone");
    const output = await page.locator("#output").textContent();
    expect(output?.split("\n")).toEqual(EXAMPLE_OUTPUT);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("minifloat/parallel on Web Workers (headless Chromium)", () => {
  it("runs quantize, dequantize (float32 and float16 output), convert, dotRows and matmul on a 2-worker pool, equal to the single-thread calls", async () => {
    const { page, problems } = await open("/test/browser/pool.html", "poolResult", isolated.origin);
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>).suiteError)).toBeUndefined();
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>).poolResult)).toEqual({
      threads: 2,
      isolated: true,
      quantizeArrays: true,
      quantizeShared: true,
      dequantizeShared: true,
      dequantizeShared16: true,
      convertShared: true,
      dotRows: true,
      matmul: true,
    });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("refuses with a typed error naming the missing isolation on a page without COOP/COEP", async () => {
    const { page } = await open("/test/browser/pool.html", "poolResult");
    const error = await page.evaluate(() => (globalThis as Record<string, unknown>).suiteError);
    expect(error).toMatch(/^ArgumentTypeError: createPool: needs shared memory.*Cross-Origin-Opener-Policy: same-origin/);
    await page.close();
  });
});

/** What examples/browser/index.html prints (the same numbers examples/node-views.mjs asserts in Node). */
const EXAMPLE_OUTPUT = [
  "kernels: true",
  "values: 0.1015625 -2.5 288 0.00390625 NaN",
  "codes: 1d c2 79 2 7f",
  "after fill: 0.1015625 -2.5 288 -0.75 -0.75",
  "float4: 1 2 3 4, packed: 42 65",
  "bytes: 4",
];
