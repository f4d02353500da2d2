// The WebGPU example page (examples/webgpu/) in headless Chromium with SwiftShader: random fp8, MXFP4 and NVFP4
// weights decode and multiply on the GPU bit-identically to the CPU, an uploaded safetensors file (fp8 and gpt-oss
// MXFP4) decodes to ml_dtypes' values, the benchmark names the adapter next to every figure, and the WGSL panel
// shows a generated encoder.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type StaticServer, serveStatic } from "../scripts/static-server.mjs";
import { type Browser, launchChromium } from "./browser/chromium.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let server: StaticServer;
let browser: Browser | undefined;

beforeAll(async () => {
  server = await serveStatic({ "/examples/webgpu/": join(root, "examples", "webgpu"), "/build/browser/": join(root, "build", "browser") });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it("decodes and multiplies fp8/MXFP4/NVFP4 weights like the CPU, and benchmarks with the adapter's name", async () => {
  browser = await launchChromium({ webgpu: true });
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
  await page.goto(`${server.origin}/examples/webgpu/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready === "true", undefined, { timeout: 60_000 });
  const adapter = await page.locator("#adapter").textContent();
  expect(adapter).toContain("swiftshader");

  for (const [choice, rows, cols] of [
    ["float8_e4m3fn", 64, 512],
    ["float4_e2m1fn", 32, 256],
    ["scheme:mxfp4", 64, 512],
    ["scheme:nvfp4", 32, 256],
  ] as const) {
    await page.selectOption("#format", choice);
    await page.fill("#rows", String(rows));
    await page.fill("#cols", String(cols));
    await page.evaluate(() => delete document.body.dataset.matvecEqual);
    await page.click("#run");
    await page.waitForFunction(() => document.body.dataset.matvecEqual !== undefined, undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => document.body.dataset.decodeEqual), choice).toBe(`${rows * cols}/${rows * cols}`);
    expect(await page.evaluate(() => document.body.dataset.matvecEqual), choice).toBe(`${rows}/${rows}`);
    expect(await page.locator("#result").textContent()).toMatch(/% saved/);
  }

  await page.click("#bench");
  await page.waitForFunction(() => document.body.dataset.bench === "done", undefined, { timeout: 300_000 });
  const lines = (await page.locator("#bench-out").textContent())!.split("\n");
  expect(lines.map((l) => l.split(":")[0])).toEqual(["decode float8_e4m3fn → float32", "encode float32 → float8_e4m3fn", "matvec MXFP4 512 × 2048"]);
  for (const line of lines) expect(line).toMatch(new RegExp(`[0-9.]+ M elements/s on ${adapter}$`));

  // An uploaded file (built by scripts/fixtures/webgpu.py with ml_dtypes): the GPU decodes as ml_dtypes does.
  const fixture = join(root, "test", "fixtures", "webgpu");
  const expected = JSON.parse(readFileSync(join(fixture, "weights.expected.json"), "utf8")) as Record<string, { rows: number; cols: number; values: string }>;
  await page.setInputFiles("#file", join(fixture, "weights.safetensors"));
  await page.waitForFunction(() => document.body.dataset.tensors !== undefined);
  expect(await page.evaluate(() => document.body.dataset.tensors)).toBe(Object.keys(expected).join(" "));
  for (const [choice, e] of Object.entries(expected)) {
    await page.selectOption("#tensor", choice);
    await page.evaluate(() => delete document.body.dataset.matvecEqual);
    await page.click("#run");
    await page.waitForFunction(() => document.body.dataset.matvecEqual !== undefined, undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => document.body.dataset.matvecEqual), choice).toBe(`${e.rows}/${e.rows}`);
    const decoded = await page.evaluate(() => {
      const d = (globalThis as unknown as { lastRun: { decoded: Float32Array } }).lastRun.decoded;
      return btoa(String.fromCharCode(...new Uint8Array(d.buffer, d.byteOffset, d.byteLength)));
    });
    expect(decoded, choice).toBe(e.values);
  }

  await page.selectOption("#wgsl-op", "encodeBits");
  expect(await page.locator("#wgsl").textContent()).toContain("fn encodeBits_float8_e4m3fn(bits: u32) -> u32 {");
  expect(problems).toEqual([]);
});
