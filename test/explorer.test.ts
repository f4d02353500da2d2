// The format explorer (explorer/, `npm run explorer`) in headless Chromium: served with the browser test's static
// server and launched with its Chromium launcher; a missing Chromium fails the test with the install command.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { type StaticServer, serveStatic } from "../scripts/static-server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const requests: string[] = [];
let server: StaticServer;
let browser: Browser | undefined;

beforeAll(async () => {
  server = await serveStatic({ "/explorer/": join(root, "explorer"), "/build/browser/": join(root, "build", "browser") }, requests);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The value cell of a code in the value table. */
const value = (page: Page, code: string) => page.locator(`#values tr[data-code="${code}"] td.value`).textContent();

it("shows value tables, ranges, error histograms and the saturation experiment", async () => {
  browser = await launchChromium(); // inside the test, so a missing Chromium fails it instead of skipping it
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1200, height: 900 });
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
  await page.goto(`${server.origin}/explorer/index.html`);
  await page.waitForFunction(
    () => (globalThis as Record<string, unknown>).explorerReady === true || (globalThis as Record<string, unknown>).explorerError !== undefined,
    undefined,
    { timeout: 20_000 },
  );
  expect(await page.evaluate(() => (globalThis as Record<string, unknown>).explorerError)).toBeUndefined();

  // (a) value tables: a registered format, a P3109 format from the select, a typed P3109 name.
  await page.selectOption("#format", "float8_e4m3fn");
  await expect.poll(() => page.locator("#values tbody tr").count()).toBe(256);
  expect(await value(page, "0x7e")).toBe("448");
  expect(await value(page, "0x7f")).toBe("NaN");
  expect(await value(page, "0x01")).toBe("0.001953125");
  expect(await page.locator('#values tr[data-code="0x01"]').getAttribute("class")).toBe("subnormal");

  await page.selectOption("#format", "Binary8p3se");
  await expect.poll(() => value(page, "0x5d")).toBe("160");
  expect(await value(page, "0x80")).toBe("NaN");
  expect(await value(page, "0x7f")).toBe("+Inf");
  expect(await page.locator("#values tbody tr").count()).toBe(256);

  await page.fill("#name", "Binary4p2sf");
  await page.press("#name", "Enter");
  await expect.poll(() => page.locator("#values tbody tr").count()).toBe(16);
  expect(await value(page, "0x7")).toBe("3");
  expect(await page.locator("#format").inputValue()).toBe("Binary4p2sf"); // the select follows a typed registered name

  // 16-bit formats are paginated; a code outside float64 prints as an exact hex float.
  await page.fill("#name", "Binary16p1se");
  await page.press("#name", "Enter");
  await expect.poll(() => page.locator("#page-count").textContent()).toBe("of 256");
  expect(await value(page, "0x0001")).toBe("0x1p-16383");

  // (b) the dynamic range of E4M3 and (c) the error histogram of a distribution.
  await page.selectOption("#format", "float8_e4m3fn");
  const range = await page.locator("#range-facts").textContent();
  expect(range).toContain("MinPositive 0.001953125");
  expect(range).toContain("MaxFinite 448");
  expect(await page.locator("#range-chart svg rect").count()).toBeGreaterThan(10);
  await page.selectOption("#dist", "laplace");
  await page.fill("#samples", "5000");
  await page.fill("#scale", "100");
  await page.selectOption("#saturation", "SatFinite");
  await page.click("#quant-run");
  await expect.poll(() => page.evaluate(() => document.body.dataset.quantized)).toBe("5000");
  expect(await page.locator("#hist-chart svg rect.bar").count()).toBe(42);
  const stats = (await page.locator("#quant-stats").textContent()) ?? "";
  expect(stats).toMatch(/RMSE\d/);
  expect(stats).toMatch(/% saturated[1-9]\d*\.\d\d %/); // Laplace(100) exceeds 448 about 1 % of the time
  expect(await page.locator("#quant-error").isHidden()).toBe(true);

  // (d) the seed-004 experiment with small parameters, and the worked example computed by dot().
  await page.fill("#sat-n", "512");
  await page.fill("#sat-pairs", "100");
  await page.selectOption("#sat-mode", "OvSAT");
  await page.click("#sat-run");
  await page.waitForFunction(() => document.body.dataset.saturation === "done" || !document.querySelector("#sat-error")!.hasAttribute("hidden"), undefined, {
    timeout: 20_000,
  });
  expect(await page.locator("#sat-error").isHidden()).toBe(true);
  const headline = (await page.locator("#sat-headline").textContent()) ?? "";
  expect(headline).toMatch(/^Under OvSAT: \d+\.\d\d % of the exact results are in range of binary16; .*NaN results: 0; RMS error \d/);
  expect(await page.locator("#sat-results th.chosen").textContent()).toBe("OvSAT");
  const example = await page.locator("#sat-examples tbody tr").allTextContents();
  expect(example[3]).toBe("[f f]·[f f] + [−f −f]·[f f] (BLK 2)00NaNNaN");

  mkdirSync(join(root, "test", "artifacts"), { recursive: true });
  await page.screenshot({ path: join(root, "test", "artifacts", "explorer.png"), fullPage: true });
  expect(problems).toEqual([]);
  expect(requests.filter((r) => !r.startsWith("200 "))).toEqual([]);
  await page.close();
}, 60_000);
