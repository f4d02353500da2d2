import { defineConfig } from "vitest/config";
import { hasRelaxedSimd } from "./src/wasm/relaxed-probe.js";

// Node 20 has relaxed SIMD behind a V8 flag; newer Node has it on (and may drop the flag).
const relaxedFlag = hasRelaxedSimd() ? [] : ["--experimental-wasm-relaxed-simd"];

// The kernel tests (the pool's too: its threads build follows the same tier) run twice: on the baseline SIMD build
// (forced, whatever the engine has) with everything else, and on the relaxed-SIMD build (the engine flag on; test/wasm-tier.test.ts checks which build each project loaded).
// (A project's include extends the root's, so the root has none.)
const kernelTests = [
  "test/wasm-*.test.ts",
  "test/api-dequantize16.test.ts",
  "test/api-quantize16.test.ts",
  "test/api-quantize64.test.ts",
  "test/fuzz-kernels.test.ts",
  "test/dot-kernel.test.ts",
  "test/parallel-pool.test.ts",
];

export default defineConfig({
  test: {
    globalSetup: ["test/browser/global-setup.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "baseline", include: ["test/**/*.test.ts"], env: { MINIFLOAT_SIMD: "baseline", MINIFLOAT_EXPECT_TIER: "baseline" } } },
      { extends: true, test: { name: "relaxed", include: kernelTests, execArgv: relaxedFlag, env: { MINIFLOAT_EXPECT_TIER: "relaxed" } } },
    ],
  },
});
