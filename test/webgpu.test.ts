// The generated WGSL and the bulk kernels on a real WebGPU device: headless Chromium from npm with its SwiftShader
// adapter (test/browser/chromium.ts). The checks run in the page (test/browser/webgpu-harness.mjs) against the CPU
// library of the same bundle. A missing adapter fails the tests with the reason: the npm Chromium always has one.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { format, registeredNames } from "../src/index.js";
import { type StaticServer, serveStatic } from "../scripts/static-server.mjs";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { EIGHT_BIT_FORMATS, p3109Names } from "./format-lists.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let server: StaticServer;
let browser: Browser | undefined;
let page: Promise<Page> | undefined;

interface Report {
  checked: number;
  mismatches: number;
  first: string[];
}

beforeAll(async () => {
  server = await serveStatic({ "/build/browser/": join(root, "build", "browser"), "/test/browser/": join(root, "test", "browser") });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The page with the harness and a device (launched by the first test, so a missing browser fails the tests). */
async function harness(): Promise<Page> {
  page ??= (async () => {
    browser = await launchChromium({ webgpu: true });
    const p = await browser.context.newPage();
    p.on("console", (m) => m.type() === "error" && console.error(m.text()));
    await p.goto(`${server.origin}/test/browser/webgpu.html`);
    await p.waitForFunction(() => "harness" in globalThis);
    const info = await p.evaluate(() => (globalThis as unknown as { harness: { init(): Promise<{ error?: string; adapter?: string }> } }).harness.init());
    if (info.error) throw new Error(`no WebGPU adapter: ${info.error}`);
    return p;
  })();
  return page;
}

async function call(name: string, arg: unknown): Promise<Report> {
  const p = await harness();
  return p.evaluate(([n, a]) => (globalThis as unknown as { harness: Record<string, (x: unknown) => Promise<Report>> }).harness[n as string]!(a), [name, arg] as const);
}

/** Distinct formats of 9–16 bits: the registered ones and P3109's 16-bit ones, plus a spread of narrower P3109 ones. */
const WIDE = [
  ...new Map(
    [...registeredNames(), ...p3109Names(16).filter((n) => /^Binary(16|12|9)p/.test(n))].map((n) => [format(n), n]),
  ).entries(),
]
  .filter(([f]) => f.K > 8 && f.K <= 16)
  .map(([, n]) => n);

describe("WebGPU (SwiftShader in headless Chromium)", () => {
  it(`decodeBits: every code of the ${EIGHT_BIT_FORMATS.length} formats of ≤ 8 bits equals dequantize's float32 bits`, async () => {
    const r = await call("decodeAll", EIGHT_BIT_FORMATS);
    expect(r.first).toEqual([]);
    expect(r.checked).toBe(EIGHT_BIT_FORMATS.reduce((s, n) => s + format(n).codeCount, 0));
  });

  it(`decodeBits: every code of ${WIDE.length} formats of 9–16 bits (field arithmetic) equals dequantize's bits`, async () => {
    const r = await call("decodeAll", WIDE);
    expect(r.first).toEqual([]);
    expect(r.checked).toBe(WIDE.reduce((s, n) => s + format(n).codeCount, 0));
  });
});
