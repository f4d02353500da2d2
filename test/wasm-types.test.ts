// The shipped declarations type-check in a Node-only strict project (no DOM library, skipLibCheck off): the runtime's
// types name no WebAssembly namespace (src/wasm/abi.ts declares the memory and module it passes around).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const app = mkdtempSync(join(tmpdir(), "minifloat-node-types-"));
afterAll(() => rmSync(app, { recursive: true, force: true }));

describe("declarations", () => {
  it("type-check in a Node-only project with lib es2022 and skipLibCheck false", () => {
    mkdirSync(join(app, "node_modules"));
    symlinkSync(root, join(app, "node_modules", "minifloat"), "dir");
    symlinkSync(join(root, "node_modules", "@types"), join(app, "node_modules", "@types"), "dir");
    const consumer = [
      `import { allocFloat32, kernelStatus, quantize } from "minifloat";`,
      `import { createPool } from "minifloat/parallel";`,
      `import * as safetensors from "minifloat/safetensors";`,
      `const a = allocFloat32(4);`,
      `console.log(quantize(a.array, "float8_e4m3fn"), kernelStatus(), createPool, safetensors);`,
    ];
    writeFileSync(join(app, "consumer.ts"), consumer.join("\n"));
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      lib: ["es2022"],
      types: ["node"],
    };
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
    expect(execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", app], { cwd: app, encoding: "utf8" })).toBe("");
  });
});
