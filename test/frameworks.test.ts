// docs/frameworks.md: every code block is a file of examples/frameworks/ shown verbatim, and every such file runs in
// Node (Uint16Array bits for float16: Node 20 has no Float16Array) and in headless Chromium (Float16Array, and a
// WebGPU adapter from SwiftShader where the browser build has one).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quantizePacked } from "../src/index.js";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { type StaticServer, serveStatic } from "../scripts/static-server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const folder = join(root, "examples", "frameworks");
const snippets = readdirSync(folder).filter((f) => f.endsWith(".mjs"));
const names = snippets.map((f) => f.replace(/\.mjs$/, ""));
const requests: string[] = [];
let server: StaticServer;
let browser: Promise<Browser> | undefined;

beforeAll(async () => {
  server = await serveStatic(
    {
      "/build/browser/": join(root, "build", "browser"),
      "/test/browser/": join(root, "test", "browser"),
      "/examples/frameworks/": folder,
      "/node_modules/onnxruntime-web/dist/": join(root, "node_modules", "onnxruntime-web", "dist"),
    },
    requests,
  );
});

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  await server?.close();
});

it("shows exactly the snippet files as the page's code blocks", () => {
  const page = readFileSync(join(root, "docs", "frameworks.md"), "utf8");
  const blocks = [...page.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], code: m[2]! }));
  expect(blocks.map((b) => b.lang)).toEqual(snippets.map(() => "js"));
  expect(blocks.map((b) => b.code).sort()).toEqual(snippets.map((f) => readFileSync(join(folder, f), "utf8")).sort());
  expect(snippets.sort()).toEqual(["float16.mjs", "onnxruntime.mjs", "transformers.mjs", "webgpu.mjs", "webnn.mjs"]);
});

it("packs FP4 as the onnx package stores a FLOAT4E2M1 tensor (fixture by scripts/fixtures/onnx_fp4.py)", () => {
  const fixture = JSON.parse(readFileSync(join(root, "test", "fixtures", "frameworks", "onnx-fp4.json"), "utf8")) as {
    cases: { name: string; float32: string; makeTensor: string; fromArray: string }[];
  };
  expect(fixture.cases.map((c) => c.name)).toEqual(["every_value", "midpoints", "odd_length", "random"]);
  for (const c of fixture.cases) {
    const values = new Float32Array(Uint8Array.from(Buffer.from(c.float32, "hex")).buffer);
    const packed = Buffer.from(quantizePacked(values, "float4_e2m1fn")).toString("hex");
    expect({ name: c.name, packed }).toEqual({ name: c.name, packed: c.makeTensor });
    expect(c.fromArray).toEqual(c.makeTensor);
  }
});

describe("in Node", () => {
  it.each(names)("runs %s", (name) => {
    const out = execFileSync(process.execPath, [join(folder, `${name}.mjs`)], { cwd: root, encoding: "utf8" });
    expect(out.trim()).toBe({ float16: "float16: ok (Uint16Array)", webgpu: "webgpu: ok (no WebGPU adapter: CPU part only)" }[name] ?? `${name}: ok`);
  });
});

describe("in Chromium", () => {
  it.each(names)(
    "runs %s",
    async (name) => {
      const page = await (await (browser ??= launchChromium({ webgpu: true }))).context.newPage();
      const logs: string[] = [];
      const problems: string[] = [];
      page.on("console", (m) => (m.type() === "log" ? logs : problems).push(m.text()));
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
      await page.goto(`${server.origin}/test/browser/frameworks.html`);
      const adapter = await page.evaluate(async () => (await (navigator as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu?.requestAdapter()) != null);
      // A string, so vitest's transform leaves the page's import() alone.
      const error = await page.evaluate(`import("/examples/frameworks/${name}.mjs").then(() => undefined, (e) => String(e.stack ?? e))`);
      expect(error).toBeUndefined();
      const webgpu = `webgpu: ok (${adapter ? "checked on the GPU" : "no WebGPU adapter: CPU part only"})`;
      expect(logs).toEqual([{ float16: "float16: ok (Float16Array)", webgpu }[name] ?? `${name}: ok`]);
      expect(problems).toEqual([]);
      expect(requests.filter((r) => !r.startsWith("200 "))).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
