// Headless Debian Chromium driven by playwright-core (npm cannot download browsers here; .ci/run installs it).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** The browser binary: CHROMIUM_PATH, else Debian's package path. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// Without the networking switches Chromium keeps dialling Google's hosts, which this closed network refuses.
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile; fails (never skips) with the install command when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with \`apt-get update && apt-get install -y chromium\` (as .ci/run does) or set CHROMIUM_PATH`);
  }
  const profile = mkdtempSync(join(tmpdir(), "minifloat-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
