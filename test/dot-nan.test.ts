// NaN results of the dot kernel have one bit pattern, from its first call on: the sign of a NaN the hardware makes
// (NaN operands, ∞ − ∞) differs between V8's baseline and optimised code, so a fresh worker and a warm thread gave
// different bits. Its own file: the kernel must still be cold when the loop starts.
import { describe, expect, it } from "vitest";
import { dotRows, matvec } from "../src/index.js";

describe("NaN results of the dot kernel", () => {
  it("are the canonical quiet NaN on every call, cold or optimised, for NaN codes and for ∞ − ∞", () => {
    const k = 5000;
    const a = new Uint8Array(k).fill(0x38);
    const b = new Uint8Array(k).fill(0x38);
    a[17] = 0xff; // −NaN
    a[4000] = 0x7f; // +NaN
    // e5m2 holds ∞: +∞ · 1 and −∞ · 1 in one row sum to NaN under OvINF.
    const inf = Uint8Array.of(0x7c, 0xfc, 0x3c, 0x3c);
    const ones = Uint8Array.of(0x3c, 0x3c, 0x3c, 0x3c);
    const seen = new Set<number>();
    for (let call = 0; call < 300; call++) {
      for (const v of dotRows(a, b, 1, k, { formats: "float8_e4m3fn" })) seen.add(new Uint32Array(Float32Array.of(v).buffer)[0]!);
      for (const v of matvec(inf, ones, 1, 4, { formats: "float8_e5m2", overflow: "OvINF" })) seen.add(new Uint32Array(Float32Array.of(v).buffer)[0]!);
    }
    expect([...seen]).toEqual([0x7fc00000]);
  });
});
