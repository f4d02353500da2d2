// The encode kernel's block layout is generated for both languages from scripts/encode-layout.mjs: the committed
// files must be what the generator writes now (scripts/build.mjs rewrites them on every build).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderAssembly, renderTypeScript } from "../scripts/encode-layout.mjs";
import { BLOCK_WORDS, SCALAR, SLOT, SLOT_TYPE } from "../src/wasm/encode-layout.js";

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

describe("encode kernel layout", () => {
  it("assembly/encode-layout.ts and src/wasm/encode-layout.ts are current", () => {
    expect(read("assembly/encode-layout.ts")).toBe(renderAssembly());
    expect(read("src/wasm/encode-layout.ts")).toBe(renderTypeScript());
  });

  it("numbers every slot and scalar word once, within the block", () => {
    const slots = Object.values(SLOT);
    expect([...slots].sort((a, b) => a - b)).toEqual(slots.map((_, i) => i));
    expect(Object.keys(SLOT_TYPE)).toEqual(Object.keys(SLOT));
    expect(slots.length * 4 + Object.keys(SCALAR).length).toBeLessThanOrEqual(BLOCK_WORDS);
  });
});
