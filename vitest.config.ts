import { defineConfig } from "vitest/config";

// (func (param v128) (result v128) (i8x16.relaxed_swizzle …)): validates only where the engine has relaxed SIMD.
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7b, 0x01, 0x7b, 0x03, 0x02, 0x01, 0x00,
  0x0a, 0x0b, 0x01, 0x09, 0x00, 0x20, 0x00, 0x20, 0x00, 0xfd, 0x80, 0x02, 0x0b,
]);
// Node 20 has relaxed SIMD behind a V8 flag; newer Node has it on (and may drop the flag).
const relaxedFlag = WebAssembly.validate(RELAXED_PROBE) ? [] : ["--experimental-wasm-relaxed-simd"];

// The kernel tests run twice: on the baseline SIMD build (forced, whatever the engine has) with everything else, and
// on the relaxed-SIMD build (the engine flag on; test/wasm-tier.test.ts checks which build each project loaded).
const kernelTests = [
  "test/wasm-*.test.ts",
  "test/api-dequantize16.test.ts",
  "test/api-quantize16.test.ts",
  "test/api-quantize64.test.ts",
  "test/fuzz-kernels.test.ts",
];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/browser/global-setup.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "baseline", env: { MINIFLOAT_SIMD: "baseline", MINIFLOAT_EXPECT_TIER: "baseline" } } },
      { extends: true, test: { name: "relaxed", include: kernelTests, execArgv: relaxedFlag, env: { MINIFLOAT_EXPECT_TIER: "relaxed" } } },
    ],
  },
});
