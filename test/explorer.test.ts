// The format explorer (explorer/, `npm run explorer`) in headless Chromium: served with the browser test's static
// server and launched with its Chromium launcher; a missing Chromium fails the test with the install command.
// Screenshots go to test/artifacts/ (ignored by git).
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { type StaticServer, serveStatic } from "../scripts/static-server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const requests: string[] = [];
let server: StaticServer;
/** Launched by the first test, so a missing Chromium fails each test (vitest would mark them skipped if a hook threw). */
let browser: Promise<Browser> | undefined;
const artifacts = join(root, "test", "artifacts");

beforeAll(async () => {
  server = await serveStatic({ "/explorer/": join(root, "explorer"), "/build/browser/": join(root, "build", "browser") }, requests);
});

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  await server?.close();
});

/** The value cell of a code in the value table. */
const value = (page: Page, code: string) => page.locator(`#values tr[data-code="${code}"] td.value`).textContent();

/** Opens the explorer (with a query) at a viewport width and waits until it is ready; errors collect in `problems`. */
async function open(query: string, width: number): Promise<{ page: Page; problems: string[] }> {
  const page = await (await (browser ??= launchChromium())).context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
  await page.goto(`${server.origin}/explorer/index.html${query}`);
  await page.waitForFunction(
    () => (globalThis as Record<string, unknown>).explorerReady === true || (globalThis as Record<string, unknown>).explorerError !== undefined,
    undefined,
    { timeout: 20_000 },
  );
  expect(await page.evaluate(() => (globalThis as Record<string, unknown>).explorerError)).toBeUndefined();
  return { page, problems };
}

/** The page's query string as the address bar shows it. */
const query = (page: Page) => page.evaluate(() => location.search);

/** Visible controls whose box leaves the viewport, and the document's scroll width against the viewport's width. */
const layout = (page: Page) =>
  page.evaluate(() => {
    const viewport = window.innerWidth;
    const clipped: string[] = [];
    let visible = 0;
    for (const control of document.querySelectorAll("input, select, button")) {
      const box = control.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue; // in a hidden section
      visible++;
      if (box.left < 0 || box.right > viewport)
        clipped.push(`${control.id ? `#${control.id}` : control.textContent}: ${box.left.toFixed(1)}…${box.right.toFixed(1)}`);
    }
    return { viewport, scrollWidth: document.documentElement.scrollWidth, clipped, visible };
  });

it("shows value tables, ranges, error histograms and the saturation experiment", async () => {
  const { page, problems } = await open("", 1200);

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

  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, "explorer.png"), fullPage: true });
  expect(problems).toEqual([]);
  expect(requests.filter((r) => !r.startsWith("200 "))).toEqual([]);
  await page.close();
}, 60_000);

/** A linked view: a 16-bit format on page 61, a distribution, a projection and a saturation run (which it starts). */
const LINK = "?format=binary16&page=61&dist=laplace&scale=100&n=3000&rounding=NearestTiesToAway&saturation=SatFinite&satN=256&pairs=20&mode=OvSAT";

it.each([400, 1400])(
  "fits a %i px wide viewport with every section shown, restoring a linked view",
  async (width) => {
    const { page, problems } = await open(LINK, width);
    await expect.poll(() => page.evaluate(() => document.body.dataset.saturation)).toBe("done");

    // The link's state: the selects and fields, the table of binary16 at page 61 (codes 0x3c00…), the runs it implies.
    expect(await page.locator("#format").inputValue()).toBe("binary16");
    expect(await page.evaluate(() => document.body.dataset.format)).toBe("binary16");
    expect(await page.locator("#page").inputValue()).toBe("61");
    expect(await page.locator("#values tbody tr").first().getAttribute("data-code")).toBe("0x3c00");
    expect(await value(page, "0x3c00")).toBe("1");
    const fields = {
      dist: "laplace",
      scale: "100",
      samples: "3000",
      rounding: "NearestTiesToAway",
      saturation: "SatFinite",
      "sat-n": "256",
      "sat-pairs": "20",
      "sat-mode": "OvSAT",
    };
    for (const [id, expected] of Object.entries(fields)) expect(await page.locator(`#${id}`).inputValue(), id).toBe(expected);
    expect(await page.evaluate(() => document.body.dataset.quantized)).toBe("3000");
    expect(await page.locator("#sat-results th.chosen").textContent()).toBe("OvSAT");
    expect(await page.locator("#url-note").isHidden()).toBe(true);
    expect(await query(page)).toBe(LINK); // nothing refused, nothing added

    // No control outside the viewport and no page-level horizontal scroll; wide tables scroll inside their boxes.
    const { viewport, scrollWidth, clipped, visible } = await layout(page);
    expect(viewport).toBe(width);
    expect(visible).toBeGreaterThan(20); // the pager of the 16-bit table included
    expect(clipped).toEqual([]);
    expect(scrollWidth).toBeLessThanOrEqual(width);

    mkdirSync(artifacts, { recursive: true });
    const file = join(artifacts, `explorer-${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    const png = readFileSync(file);
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(png.length).toBeGreaterThan(20_000); // a rendered page, not a blank image
    expect(problems).toEqual([]);
    await page.close();
  },
  120_000,
);

it("writes every change into the URL, and a link it wrote restores the view", async () => {
  const { page, problems } = await open("", 1200);
  expect(await query(page)).toBe(""); // the default view has no parameters

  await page.selectOption("#format", "bfloat16");
  await page.fill("#page", "129");
  await page.press("#page", "Enter");
  await page.selectOption("#dist", "uniform");
  await page.fill("#sbits", "12");
  await page.press("#sbits", "Tab");
  await page.selectOption("#sat-partials", "bfloat16");
  expect(await query(page)).toBe("?format=bfloat16&page=129&dist=uniform&sbits=12&partials=bfloat16");
  await page.fill("#name", "Binary5p2se");
  await page.press("#name", "Enter");
  await expect.poll(() => query(page)).toBe("?format=Binary5p2se&dist=uniform&sbits=12&partials=bfloat16"); // a new format starts at page 1
  await page.selectOption("#format", "cfloat8_1_4_3");
  await page.fill("#bias", "9");
  await page.press("#bias", "Tab");
  await expect.poll(() => page.evaluate(() => document.body.dataset.format)).toBe("cfloat8_1_4_3(bias=9)");
  const link = await query(page);
  expect(link).toBe("?format=cfloat8_1_4_3&bias=9&dist=uniform&sbits=12&partials=bfloat16");

  const reopened = await open(link, 1200);
  expect(await reopened.page.evaluate(() => document.body.dataset.format)).toBe("cfloat8_1_4_3(bias=9)");
  expect(await reopened.page.locator("#bias").inputValue()).toBe("9");
  expect(await reopened.page.locator("#sat-partials").inputValue()).toBe("bfloat16");
  expect(await query(reopened.page)).toBe(link);
  expect([...problems, ...reopened.problems]).toEqual([]);
  await page.close();
  await reopened.page.close();
}, 120_000);

it("shows defaults and a note for the parts of a link it cannot take, without failing", async () => {
  const bad = "?format=Binary99p3se&page=2&dist=gaussian&n=-5&scale=0&sbits=1.5&mode=OvFOO&zoom=3";
  const { page, problems } = await open(bad, 400);
  expect(await page.evaluate(() => document.body.dataset.format)).toBe("Binary8p3se");
  expect(await page.locator("#values tbody tr").count()).toBe(256);
  for (const [id, expected] of Object.entries({ dist: "normal", samples: "20000", scale: "1", sbits: "8", "sat-mode": "OvINF" }))
    expect(await page.locator(`#${id}`).inputValue(), id).toBe(expected);
  const note = (await page.locator("#url-note").textContent()) ?? "";
  expect(await page.locator("#url-note").isVisible()).toBe(true);
  expect(note).toMatch(/^Ignored from the link, defaults shown instead: /);
  for (const part of [
    "dist=gaussian (allowed: normal, uniform, loguniform, laplace)",
    "n=-5 (allowed: an integer in [1, 1000000])",
    "scale=0 (allowed: a positive finite number)",
    "sbits=1.5 (allowed: an integer in [1, 32])",
    "mode=OvFOO (allowed: OvSAT, OvINF, OvNAN)",
    "zoom (not a setting of this page)",
    "format=Binary99p3se (",
    "page=2 (allowed: 1 for Binary8p3se)",
  ])
    expect(note).toContain(part);
  expect(await query(page)).toBe(""); // the refused values leave the URL
  expect(await page.locator("#format-error").isHidden()).toBe(true);
  expect((await layout(page)).scrollWidth).toBeLessThanOrEqual(400);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

it("takes odd input as a user types it: a fractional page, an empty bias, a scale beyond float32, large integers exactly", async () => {
  const { page, problems } = await open("?format=binary16", 1200);
  await page.fill("#page", "1.3");
  await page.press("#page", "Enter");
  expect(await page.locator("#page").inputValue()).toBe("1");
  expect(await query(page)).toBe("?format=binary16");
  // Integers beyond 2^53 in every digit: String(2 ** 62) would print 4611686018427388000.
  await page.fill("#name", "Binary8p1se");
  await page.press("#name", "Enter");
  expect(await value(page, "0x7e")).toBe("4611686018427387904");
  expect(await page.locator("#range-facts").textContent()).toContain("MaxFinite 4611686018427387904 = 2^62");
  // Samples in float64: a scale of 1e-50 flushes every one of them to zero in Binary8p3se.
  await page.fill("#name", "Binary8p3se");
  await page.press("#name", "Enter");
  await page.fill("#scale", "1e-50");
  await page.fill("#samples", "1000");
  await page.click("#quant-run");
  await expect.poll(() => page.evaluate(() => document.body.dataset.quantized)).toBe("1000");
  expect((await page.locator("#quant-stats").textContent()) ?? "").toMatch(/% flushed100\.00 %/);
  // An empty bias is an error, not bias 0, and stays out of the link.
  await page.fill("#name", "cfloat8_1_4_3");
  await page.press("#name", "Enter");
  await page.fill("#bias", "");
  await page.dispatchEvent("#bias", "change");
  expect(await page.locator("#format-error").isVisible()).toBe(true);
  expect(await query(page)).not.toContain("bias=");
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);
