// A misspelt option must fail, not silently change the result: every options object of every entry point is
// checked key by key, and the error names the key, the allowed keys and, for a near miss, the intended one.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as main from "../src/index.js";
import { SafetensorsWriter, openSafetensors } from "../src/io/index.js";
import * as p3109 from "../src/p3109.js";
import { createPool } from "../src/parallel/index.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `call` and returns the ArgumentTypeError it must throw. */
function refusal(call: () => unknown): InstanceType<typeof main.ArgumentTypeError> {
  try {
    call();
  } catch (e) {
    expect(e).toBeInstanceOf(main.ArgumentTypeError);
    return e as InstanceType<typeof main.ArgumentTypeError>;
  }
  throw new Error("no error thrown");
}

async function refusalAsync(call: () => Promise<unknown>): Promise<InstanceType<typeof main.ArgumentTypeError>> {
  try {
    await call();
  } catch (e) {
    expect(e).toBeInstanceOf(main.ArgumentTypeError);
    return e as InstanceType<typeof main.ArgumentTypeError>;
  }
  throw new Error("no error thrown");
}

const x = Float32Array.of(1000, 0.1, -3);
const e4m3 = main.quantize(x, "float8_e4m3fn", { saturation: "SatFinite" }) as Uint8Array;
const typo = <T extends object>(o: T) => o as never;

describe("unknown option keys are errors in every entry point", () => {
  it("minifloat: quantize, encode, dequantize, packed codes", () => {
    const q = refusal(() => main.quantize(x, "float8_e4m3fn", typo({ saturaton: "SatFinite" })));
    expect(q.argument).toBe("options.saturaton");
    expect(q.message).toBe(
      'options.saturaton: is not an option here (did you mean "saturation"?); allowed: rounding, saturation, stochasticBits, seed, seedIndex, random, out, flags, from',
    );
    expect(refusal(() => main.encode(1000, "float8_e4m3fn", typo({ saturaton: "SatFinite" }))).message).toMatch(/did you mean "saturation"/);
    expect(refusal(() => main.encodeExact({ kind: "nan", sign: 1 }, "float8_e4m3fn", typo({ Rounding: "TowardZero" }))).message).toMatch(
      /did you mean "rounding"/,
    );
    expect(refusal(() => main.dequantize(e4m3, "float8_e4m3fn", typo({ ot: new Float32Array(3) }))).argument).toBe("options.ot");
    expect(refusal(() => main.quantizePacked(x, "float4_e2m1fn", typo({ seedindex: 0 }))).message).toMatch(/did you mean "seedIndex"/);
    expect(refusal(() => main.packCodes(new Uint8Array(2), 4, typo({ output: new Uint8Array(1) }))).argument).toBe("options.output");
    expect(refusal(() => main.unpackCodes(new Uint8Array(1), 4, 2, typo({ outt: new Uint8Array(2) }))).argument).toBe("options.outt");
    expect(refusal(() => main.dequantizePacked(new Uint8Array(1), "float4_e2m1fn", 2, typo({ to: "float16" }))).argument).toBe("options.to");
  });

  it("minifloat: views, blocks and dot products", () => {
    expect(refusal(() => main.MiniFloatArray.from(x, "float8_e4m3fn", typo({ saturaton: "SatFinite" }))).argument).toBe("options.saturaton");
    expect(refusal(() => main.quantizeBlocks(new Float32Array(32), "mxfp4", typo({ blocksize: 16 }))).message).toMatch(/did you mean "blockSize"/);
    const q = main.quantizeBlocks(new Float32Array(32), "mxfp4");
    expect(refusal(() => main.dequantizeBlocks(q, typo({ out32: new Float32Array(32) }))).argument).toBe("options.out32");
    const a = new Uint8Array(4);
    expect(refusal(() => main.dot(a, a, typo({ formats: "float8_e4m3fn", overflw: "OvSAT" }))).message).toMatch(/did you mean "overflow"/);
    expect(refusal(() => main.dotRows(a, a, 2, 2, typo({ formats: "float8_e4m3fn", packed: true }))).argument).toBe("options.packed");
    expect(refusal(() => main.matmul(a, a, 2, 2, 2, typo({ formats: "float8_e4m3fn", scale: {} }))).message).toMatch(/did you mean "scales"/);
    expect(refusal(() => main.matvec(a, a.subarray(0, 2), 2, 2, typo({ formats: "float8_e4m3fn", partial: "binary16" }))).message).toMatch(
      /did you mean "partials"/,
    );
  });

  it("minifloat/p3109: specialize, map, block operations, the saturation experiment, conformance, κ", () => {
    expect(refusal(() => p3109.specialize("Add", typo({ operand: ["Binary8p3se", "Binary8p3se"], result: "Binary8p3se" }))).message).toMatch(
      /did you mean "operands"/,
    );
    const add = p3109.specialize("Add", { operands: ["Binary8p3se", "Binary8p3se"], result: "Binary8p3se" });
    expect(refusal(() => add.map(new Uint8Array(1), new Uint8Array(1), typo({ seeed: 1 }))).message).toMatch(/did you mean "seed"/);
    expect(refusal(() => p3109.convertToBlock([1, 2], "binary32", 0, "Binary8p3se", "Binary8p3se", typo({ satuation: "SatFinite" }))).argument).toBe(
      "projection.satuation",
    );
    expect(refusal(() => p3109.saturationExperiment(typo({ batch: 1 }))).argument).toBe("options.batch");
    expect(refusal(() => p3109.conformanceFiles(typo({ provder: "x" }))).message).toMatch(/did you mean "provider"/);
  });

  it("minifloat/safetensors: the writer and the remote reader", async () => {
    const w = await refusalAsync(() => SafetensorsWriter.create(join(dir, "a.safetensors"), [{ name: "w", dtype: "F32", shape: [1] }], typo({ forse: true })));
    expect(w.message).toMatch(/did you mean "force"/);
    expect((await refusalAsync(() => openSafetensors("http://127.0.0.1:9/x.safetensors", typo({ retrys: 2 })))).message).toMatch(/did you mean "retries"/);
  });

  it("minifloat/parallel: createPool and the pool's calls", async () => {
    expect((await refusalAsync(() => createPool(typo({ thread: 2 })))).message).toMatch(/did you mean "threads"/);
    const pool = await createPool({ threads: 1, minElements: 0 });
    try {
      expect((await refusalAsync(() => pool.quantize(x, "float8_e4m3fn", typo({ saturaton: "SatFinite" })))).argument).toBe("options.saturaton");
      expect((await refusalAsync(() => pool.dequantize(e4m3, "float8_e4m3fn", typo({ outt: new Float32Array(3) })))).argument).toBe("options.outt");
      const a = new Uint8Array(4);
      expect((await refusalAsync(() => pool.dotRows(a, a, 2, 2, typo({ formats: "float8_e4m3fn", overflw: "OvSAT" })))).message).toMatch(
        /did you mean "overflow"/,
      );
      expect((await refusalAsync(() => pool.matmul(a, a, 2, 2, 2, typo({ formats: "float8_e4m3fn", blok: 16 })))).argument).toBe("options.blok");
    } finally {
      await pool.close();
    }
  });

  it("an options object that is not an object is refused with the allowed keys", () => {
    expect(refusal(() => main.quantize(x, "float8_e4m3fn", 5 as never)).message).toMatch(/^options: got 5; allowed: an object with the keys rounding/);
    expect(refusal(() => main.quantize(x, "float8_e4m3fn", [] as never)).argument).toBe("options");
  });
});
