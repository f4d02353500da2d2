// openCheckpoint in headless Chromium: the browser bundle (build/browser/safetensors.js) opens a quantized
// checkpoint from a Blob with its config passed as an option, and reads the same bits as the fixture expects.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { bits, checkpoint, expectedTensors } from "./checkpoint-fixtures.js";
import { type RangeServer, serveRanges } from "./remote/server.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let server: RangeServer;
/** Launched by the first test, so a missing Chromium fails each test (vitest would mark them skipped if a hook threw). */
let browser: Promise<Browser> | undefined;

beforeAll(async () => {
  server = await serveRanges({ "/build/browser/": join(root, "build", "browser") });
  for (const f of ["model.safetensors", "config.json"]) server.files.set(f, readFileSync(join(checkpoint("ct-nvfp4"), f)));
  // A page that loads the bundle (an import() inside page.evaluate would be rewritten by vitest's transform).
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>checkpoint</title>
<script type="module">import * as m from "/build/browser/safetensors.js"; window.safetensors = m;</script>`;
  server.files.set("page.html", new TextEncoder().encode(page));
});

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  await server?.close();
});

describe("openCheckpoint in headless Chromium", () => {
  it("reads a compressed-tensors NVFP4 checkpoint from a Blob, bit-exact in float32 and bfloat16", async () => {
    const page = await (await (browser ??= launchChromium())).context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    await page.goto(`${server.origin}/files/page.html`);
    await page.waitForFunction(() => "safetensors" in globalThis);
    const result = await page.evaluate(async () => {
      const m = (globalThis as unknown as { safetensors: typeof import("../src/io/browser.js") }).safetensors;
      const blob = await (await fetch("/files/model.safetensors")).blob();
      const config = await (await fetch("/files/config.json")).json();
      const c = await m.openCheckpoint(blob, { config });
      const t = c.tensors.find((x) => x.scheme !== "plain")!;
      const f32 = await c.read(t.name);
      const bf16 = await c.readRounded(t.name, "BF16");
      await c.close();
      return { name: t.name, scheme: t.scheme, f32: [...new Uint32Array(f32.buffer)], bf16: [...bf16] };
    });
    const [name, e] = Object.entries(expectedTensors("ct-nvfp4"))[0]!;
    expect(problems).toEqual([]);
    expect([result.name, result.scheme]).toEqual([name, "compressed-tensors-nvfp4"]);
    expect(result.f32).toEqual(bits(e.f32, 32));
    expect(result.bf16).toEqual(bits(e.bf16, 16));
  });
});
