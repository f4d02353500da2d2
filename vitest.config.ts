import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/browser/global-setup.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    reporters: ["default"],
  },
});
