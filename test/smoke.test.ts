import { describe, expect, it } from "vitest";
import { decode, encode } from "minifloat";

describe("package entry", () => {
  it("resolves `minifloat` from the repository root and runs a hand-checked FMA value", () => {
    expect(decode(0x5d, "Binary8p3se")).toBe(160);
    expect(encode(233, "Binary8p4se")).toBe(0x7f);
  });
});
