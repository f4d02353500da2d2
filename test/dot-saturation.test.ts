// The dot-product saturation study ("Exploring saturation in low-precision dot products", docs/blocks-and-dot.md): the printed results of the notebook, with
// f = 224 in float8_e4m3fn and float16 partials. (Its summary table swaps the signs of the two infinite rows; the
// printed check cells and the arithmetic give −Inf for [−f,−f,f,f] and +Inf for [f,f,−f,−f].)
import { describe, expect, it } from "vitest";
import { encode } from "../src/api/scalar.js";
import { dot, type DotOverflow } from "../src/dot/index.js";
import { projectPartial, partialsFormat, roundNearestEven } from "../src/dot/partials.js";
import { onReference } from "./kernel-switch.js";

const E4M3 = "float8_e4m3fn";
const f = encode(224, E4M3);
const m = encode(-224, E4M3);
const ones = Uint8Array.of(f, f, f, f);
const run = (a: number[], overflow: DotOverflow, blockSize: number, wasm: boolean) => {
  const call = () => dot(Uint8Array.from(a), ones, { formats: E4M3, partials: "binary16", overflow, blockSize });
  return wasm ? call() : onReference(call);
};

describe("the saturation study's worked examples (float8_e4m3fn, binary16 partials)", () => {
  for (const wasm of [false, true]) {
    describe(wasm ? "Wasm kernel" : "TypeScript reference", () => {
      it("[f,−f,f,−f]·[f,f,f,f] = 0 in every mode (BLK = 1)", () => {
        for (const mode of ["OvSAT", "OvINF", "OvNAN", "exact"] as const) expect(Object.is(run([f, m, f, m], mode, 1, wasm), 0)).toBe(true);
      });
      it("[−f,−f,f,f]·[f,f,f,f] = 34848 / −Inf / NaN (BLK = 1)", () => {
        expect(run([m, m, f, f], "OvSAT", 1, wasm)).toBe(34848);
        expect(run([m, m, f, f], "OvINF", 1, wasm)).toBe(-Infinity);
        expect(run([m, m, f, f], "OvNAN", 1, wasm)).toBeNaN();
        expect(run([m, m, f, f], "exact", 1, wasm)).toBe(0);
      });
      it("[f,f,−f,−f]·[f,f,f,f] = −34848 / +Inf / NaN (BLK = 1)", () => {
        expect(run([f, f, m, m], "OvSAT", 1, wasm)).toBe(-34848);
        expect(run([f, f, m, m], "OvINF", 1, wasm)).toBe(Infinity);
        expect(run([f, f, m, m], "OvNAN", 1, wasm)).toBeNaN();
      });
      it("hierarchical BLK = 2: [f,f]·[f,f] + [−f,−f]·[f,f] = 0 / NaN / NaN", () => {
        expect(Object.is(run([f, f, m, m], "OvSAT", 2, wasm), 0)).toBe(true);
        expect(run([f, f, m, m], "OvINF", 2, wasm)).toBeNaN();
        expect(run([f, f, m, m], "OvNAN", 2, wasm)).toBeNaN();
      });
      it("BLK = 4 sums the block exactly before one projection: 0 in every mode", () => {
        for (const mode of ["OvSAT", "OvINF", "OvNAN"] as const) expect(run([f, f, m, m], mode, 4, wasm)).toBe(0);
      });
    });
  }
});

describe("the partials projection (notebook cell 3)", () => {
  const h = partialsFormat("binary16");
  it("512 stays, 65505 rounds to 65504 in both modes, 66666 → 65504 (OvSAT) / +Inf (OvINF) / NaN (OvNAN)", () => {
    expect(projectPartial(512, h, "OvSAT")).toBe(512);
    expect(projectPartial(65505, h, "OvSAT")).toBe(65504);
    expect(projectPartial(65505, h, "OvINF")).toBe(65504);
    expect(projectPartial(66666, h, "OvSAT")).toBe(65504);
    expect(projectPartial(66666, h, "OvINF")).toBe(Infinity);
    expect(projectPartial(-66666, h, "OvINF")).toBe(-Infinity);
    expect(projectPartial(66666, h, "OvNAN")).toBeNaN();
  });
  it("rounds with an unbounded exponent first: 65519.99 → 65504, 65520 (a tie) → 65536 → overflow", () => {
    expect(projectPartial(65519.99, h, "OvINF")).toBe(65504);
    expect(projectPartial(65520, h, "OvINF")).toBe(Infinity);
    expect(projectPartial(Infinity, h, "OvSAT")).toBe(65504);
    expect(projectPartial(-Infinity, h, "OvSAT")).toBe(-65504);
    expect(projectPartial(Infinity, h, "OvNAN")).toBeNaN();
  });
  it("subnormal binary16 quantum 2^−24 with ties to even", () => {
    expect(roundNearestEven(2 ** -25, 11, -24)).toBe(0);
    expect(roundNearestEven(3 * 2 ** -25, 11, -24)).toBe(2 ** -23);
    expect(roundNearestEven(1 + 2 ** -11, 11, -24)).toBe(1);
    expect(roundNearestEven(1 + 3 * 2 ** -11, 11, -24)).toBe(1 + 2 ** -9);
    expect(roundNearestEven(-2049, 11, -24)).toBe(-2048);
    expect(roundNearestEven(2 ** -30, 24, -149)).toBe(2 ** -30);
  });
});

describe("the saturation study's random experiment (small: 1 × 300 pairs of length 2048)", () => {
  it("most exact results are in range, few in-range ones overflow, OvNAN is NaN exactly when OvINF overflowed", async () => {
    const { saturationExperiment } = await import("../src/dot/saturation.js");
    const r = saturationExperiment({ batches: 1, batchSize: 300, seed: 1 });
    expect(r.pairs).toBe(300);
    expect(r.inRange).toBeGreaterThan(0.9);
    expect(r.inRange).toBeLessThan(1);
    expect(r.inRangeOverflowed).toBeGreaterThan(0);
    expect(r.inRangeOverflowed).toBeLessThan(0.1);
    expect(r.nanOvINF).toBe(0);
    expect(r.nanOvNAN).toBe(r.overflowedPairs);
    // The notebook's finding: OvSAT and OvINF (±Inf read as ±MaxFinite) have errors of the same size, ~20k RMS.
    expect(r.rmsOvSATOverflowed).toBeGreaterThan(10000);
    expect(r.rmsOvSATOverflowed).toBeLessThan(40000);
    expect(Math.abs(r.rmsOvINFOverflowed / r.rmsOvSATOverflowed - 1)).toBeLessThan(0.2);
    // Same seed, same numbers (counter-based generator).
    expect(saturationExperiment({ batches: 1, batchSize: 300, seed: 1 })).toEqual(r);
  });
});
