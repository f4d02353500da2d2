// Headless Chromium driven by playwright-core. The browser comes from the npm registry (@sparticuz/chromium ships
// the binary inside its package and unpacks it into the temp folder once: test/browser/global-setup.ts), so
// `npm ci && npm test` needs nothing else; CHROMIUM_PATH selects another build (e.g. Debian's /usr/bin/chromium).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sparticuz from "@sparticuz/chromium";
import { type BrowserContext, chromium } from "playwright-core";

// Without the networking switches Chromium keeps dialling Google's hosts, which a closed network refuses.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--no-zygote",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The browser binary: CHROMIUM_PATH, else the npm package's build (unpacked on first use). */
export async function chromiumPath(): Promise<string> {
  return process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath());
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

// WebGPU without a GPU: the build's SwiftShader adapter (a CPU implementation; it has no shader-f16).
const WEBGPU_ARGS = ["--enable-unsafe-webgpu", "--use-webgpu-adapter=swiftshader"];

/** Launches Chromium with a fresh profile; `webgpu` turns on WebGPU through SwiftShader. */
export async function launchChromium(options: { webgpu?: boolean } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "minifloat-chromium-"));
  const args = options.webgpu ? [...ARGS.filter((a) => a !== "--disable-gpu"), ...WEBGPU_ARGS] : ARGS;
  const context = await chromium.launchPersistentContext(profile, { executablePath: await chromiumPath(), headless: true, args });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
