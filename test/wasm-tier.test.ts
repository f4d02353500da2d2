// The runtime tiers: the relaxed-SIMD build of the kernels where the engine has relaxed SIMD, the baseline SIMD build
// otherwise or when MINIFLOAT_SIMD=baseline. vitest.config.ts runs the kernel tests once per build (projects
// "baseline" and "relaxed"); this file checks each project loaded the build it names, and the pick of the shipped
// bundle in fresh Node processes.
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createPool } from "../src/parallel/index.js";
import { kernelStatus } from "../src/wasm/instance.js";
import { hasRelaxedSimd } from "../src/wasm/relaxed-probe.js";

const FLAG = "--experimental-wasm-relaxed-simd";
const bundle = new URL("../build/node/index.js", import.meta.url).href;

/** The tier a fresh Node process loads from the shipped bundle, with these V8 flags and environment. */
function tierIn(flags: string[], env: Record<string, string>): string {
  const script = `const m = await import(${JSON.stringify(bundle)}); process.stdout.write(String(m.kernelStatus().tier));`;
  const clean = { ...process.env, MINIFLOAT_SIMD: undefined, ...env };
  return execFileSync(process.execPath, [...flags, "--input-type=module", "-e", script], { env: clean, encoding: "utf8" });
}

describe("kernel tiers", () => {
  it("each test project runs the build it names", () => {
    expect(["baseline", "relaxed"]).toContain(process.env.MINIFLOAT_EXPECT_TIER);
    expect(kernelStatus()).toMatchObject({ available: true, tier: process.env.MINIFLOAT_EXPECT_TIER });
  });

  it("the pool's workers run the threads build of the same tier", async () => {
    const pool = await createPool({ threads: 1 });
    try {
      expect(pool.tier).toBe(process.env.MINIFLOAT_EXPECT_TIER);
    } finally {
      await pool.close();
    }
  });

  it("the shipped bundle picks relaxed SIMD where the engine validates it, and MINIFLOAT_SIMD=baseline forces the baseline", () => {
    // The flag where this engine needs it (Node 20), none where relaxed SIMD is on by default.
    const flag = hasRelaxedSimd() && !process.execArgv.includes(FLAG) ? [] : [FLAG];
    expect(tierIn(flag, {})).toBe("relaxed");
    expect(tierIn(flag, { MINIFLOAT_SIMD: "baseline" })).toBe("baseline");
    // Without the flag the engine decides (Node 20: no relaxed SIMD, and the relaxed build would not compile).
    if (!process.execArgv.includes(FLAG)) expect(tierIn([], {})).toBe(hasRelaxedSimd() ? "relaxed" : "baseline");
  });

  it("the node and browser bundles carry both builds, inlined", () => {
    const wasm = (name: string) => readFileSync(new URL(`../build/wasm/${name}.wasm`, import.meta.url));
    const [baseline, relaxed] = [wasm("kernels"), wasm("kernels-relaxed")];
    expect(relaxed.equals(baseline)).toBe(false);
    expect(wasm("kernels-threads-relaxed").equals(wasm("kernels-threads"))).toBe(false);
    for (const platform of ["node", "browser"]) {
      const dir = new URL(`../build/${platform}/chunks/`, import.meta.url);
      const code = readdirSync(dir)
        .filter((f) => f.endsWith(".js"))
        .map((f) => readFileSync(new URL(f, dir), "utf8"))
        .join("\n");
      expect(code).toContain(`"${baseline.toString("base64")}"`);
      expect(code).toContain(`"${relaxed.toString("base64")}"`);
    }
  });
});
