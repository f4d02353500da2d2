// openCheckpoint on the fixtures of every convention: recognition (scheme, shape, block, parts) and bit-exact
// values for float32 (read), float16 and bfloat16 (readExact rounded once by quantize), whole and in ranges.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { roundToOddFloat32 } from "../src/exact/round-to-odd.js";
import { quantize, useKernels } from "../src/index.js";
import { ArgumentTypeError } from "../src/errors.js";
import { CheckpointError, openCheckpoint } from "../src/io/index.js";
import { GOOD, bits, checkpoint, expectedTensors } from "./checkpoint-fixtures.js";
import { bitsOf, expected as ggufExpected, fixture as ggufFixture } from "./io-gguf-fixtures.js";

const f32bits = (a: Float32Array) => [...new Uint32Array(a.buffer, a.byteOffset, a.length)];

describe("openCheckpoint: every convention, bit-exact", () => {
  for (const name of GOOD) {
    it(`${name}: logical tensors and their float32, float16 and bfloat16 values`, async () => {
      const want = expectedTensors(name);
      const c = await openCheckpoint(checkpoint(name));
      try {
        const quantized = c.tensors.filter((t) => t.scheme !== "plain");
        expect(quantized.map((t) => t.name).sort()).toEqual(
          Object.keys(want)
            .filter((n) => want[n]!.scheme !== "plain")
            .sort(),
        );
        for (const [tensorName, e] of Object.entries(want)) {
          const t = c.tensor(tensorName);
          expect(t.scheme).toBe(e.scheme);
          expect(t.shape).toEqual(e.shape);
          if (e.blockShape) expect(t.blockShape).toEqual(e.blockShape);
          expect(t.parts.map((p) => p.name)).toEqual(e.parts);
          expect(f32bits(await c.read(tensorName))).toEqual(bits(e.f32, 32));
          const exact = await c.readExact(tensorName);
          expect([...quantize(exact, "binary16")]).toEqual(bits(e.f16, 16));
          expect([...quantize(exact, "bfloat16")]).toEqual(bits(e.bf16, 16));
          expect([...(await c.readRounded(tensorName, "F16"))]).toEqual(bits(e.f16, 16));
          expect([...(await c.readRounded(tensorName, "BF16"))]).toEqual(bits(e.bf16, 16));
          expect([...new Uint32Array((await c.readRounded(tensorName, "F32")).buffer)]).toEqual(bits(e.f32, 32));
          // A range that starts mid-row and crosses rows and scale blocks reads the same values.
          const K = t.shape[t.shape.length - 1]!;
          const start = Math.min(K + 3, t.length - 1);
          const count = Math.min(2 * K + 5, t.length - start);
          const out = new Float32Array(count);
          expect(await c.read(tensorName, start, count, out)).toBe(out);
          expect(f32bits(out)).toEqual(bits(e.f32, 32).slice(start, start + count));
        }
      } finally {
        await c.close();
      }
    });
  }

  it("small scale blocks in Wasm (assembly/scaled-values.ts): exact and rounded values equal the TypeScript loop's, ranges too", async () => {
    for (const name of ["ct-nvfp4", "modelopt-nvfp4", "ct-mxfp4", "gpt-oss-mxfp4"]) {
      const c = await openCheckpoint(checkpoint(name));
      try {
        for (const t of c.tensors.filter((t) => t.scheme !== "plain")) {
          const K = t.shape[t.shape.length - 1]!;
          for (const [start, count] of [
            [0, t.length],
            [Math.min(K + 3, t.length - 1), Math.min(2 * K + 5, t.length - Math.min(K + 3, t.length - 1))],
          ] as const) {
            const fast = await c.readExact(t.name, start, count);
            useKernels(false);
            const slow = await c.readExact(t.name, start, count).finally(() => useKernels(true));
            expect(new BigUint64Array(fast.buffer)).toEqual(new BigUint64Array(slow.buffer));
            // Rounded in Wasm without a float64 array between (float32 nearest even, or to odd then 16 bits).
            for (const to of ["F32", "F16", "BF16"] as const) {
              const bitsOf = (a: Float32Array | Uint16Array) => [...(a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a)];
              const rounded = await c.readRounded(t.name, to, start, count);
              useKernels(false);
              const reference = await c.readRounded(t.name, to, start, count).finally(() => useKernels(true));
              expect(bitsOf(rounded)).toEqual(bitsOf(reference));
            }
          }
        }
      } finally {
        await c.close();
      }
    }
  });

  it("the planted scales round differently via float32: the float16 and bfloat16 expectations are not float32's", () => {
    const e = expectedTensors("deepseek-fp8")["model.layers.0.self_attn.q_proj.weight"]!;
    const f32 = new Float32Array(new Uint32Array(bits(e.f32, 32)).buffer);
    const [f16, bf16] = [bits(e.f16, 16), bits(e.bf16, 16)];
    expect([...quantize(f32, "binary16")].filter((b, i) => b !== f16[i]).length).toBeGreaterThan(0);
    expect([...quantize(f32, "bfloat16")].filter((b, i) => b !== bf16[i]).length).toBeGreaterThan(0);
  });

  it("a .safetensors path reads the config beside it; a Blob takes the config as an option", async () => {
    const file = join(checkpoint("deepseek-fp8-ue8m0"), "model.safetensors");
    const byPath = await openCheckpoint(file);
    expect(byPath.kind).toBe("safetensors");
    expect(byPath.quantization).toEqual({ method: "fp8", block: [128, 128], ue8m0: true });
    await byPath.close();
    const config = JSON.parse(readFileSync(join(checkpoint("ct-nvfp4"), "config.json"), "utf8"));
    const blob = new Blob([readFileSync(join(checkpoint("ct-nvfp4"), "model.safetensors"))]);
    const c = await openCheckpoint(blob, { config });
    const [name, e] = Object.entries(expectedTensors("ct-nvfp4"))[0]!;
    expect(c.tensor(name).scheme).toBe("compressed-tensors-nvfp4");
    expect(f32bits(await c.read(name))).toEqual(bits(e.f32, 32));
    await c.close();
  });

  it("without a config, unambiguous names, dtypes and shapes are enough", async () => {
    const blob = new Blob([readFileSync(join(checkpoint("deepseek-fp8"), "model.safetensors"))]);
    const c = await openCheckpoint(blob);
    expect(c.quantization).toBeUndefined();
    const [name, e] = Object.entries(expectedTensors("deepseek-fp8"))[0]!;
    expect(c.tensor(name).scheme).toBe("deepseek-fp8");
    expect(f32bits(await c.read(name))).toEqual(bits(e.f32, 32));
    await c.close();
  });

  it("raw: other tools' scale tensors stay plain tensors and the weight is decoded unscaled", async () => {
    const c = await openCheckpoint(checkpoint("deepseek-fp8"), { raw: true });
    const w = c.tensor("model.layers.0.self_attn.q_proj.weight");
    expect(w.scheme).toBe("minifloat");
    expect(c.tensor("model.layers.0.self_attn.q_proj.weight_scale_inv").scheme).toBe("plain");
    const codes = readFileSync(join(checkpoint("deepseek-fp8"), "model.safetensors"));
    expect(w.dtype).toBe("F8_E4M3");
    expect((await c.read(w.name, 0, 1))[0]).toBeTypeOf("number");
    expect(codes.length).toBeGreaterThan(0);
    await c.close();
  });

  it("a GGUF file through the same API, from a path or a Blob: ggml's values, types as schemes", async () => {
    for (const input of [ggufFixture("quantized"), new Blob([readFileSync(ggufFixture("quantized"))])]) {
      const c = await openCheckpoint(input);
      expect(c.kind).toBe("gguf");
      for (const t of ggufExpected("quantized").tensors) {
        const l = c.tensor(t.name);
        expect(l.scheme).toBe(`gguf:${t.type}`);
        expect(l.shape).toEqual(t.shape);
        expect(f32bits(await c.read(t.name))).toEqual([...bitsOf(t.values!)]);
      }
      expect(c.tensor("q8_0").blockShape).toEqual([1, 32]);
      await c.close();
    }
  });

  it("GGUF readRounded (decoded into Wasm memory, rounded from there): ggml's values rounded once, ranges, into out, side by side", async () => {
    const c = await openCheckpoint(ggufFixture("quantized"));
    try {
      for (const t of ggufExpected("quantized").tensors) {
        const values = new Float32Array(bitsOf(t.values!).buffer);
        const n = values.length;
        // Whole, from mid-block to mid-block, one element.
        const ranges = [
          [0, n],
          [Math.min(5, n - 1), Math.max(1, n - 7)],
          [n - 1, 1],
        ].filter(([s, k]) => s! + k! <= n);
        for (const to of ["F32", "F16", "BF16"] as const) {
          const want = (s: number, k: number) => {
            const v = values.slice(s, s + k);
            return to === "F32" ? [...new Uint32Array(v.buffer)] : [...quantize(v, to === "F16" ? "binary16" : "bfloat16")];
          };
          const got = (a: Float32Array | Uint16Array) => (a instanceof Float32Array ? f32bits(a) : [...a]);
          for (const [s, k] of ranges) {
            expect(got(await c.readRounded(t.name, to, s, k))).toEqual(want(s!, k!));
            const out = to === "F32" ? new Float32Array(k!) : new Uint16Array(k!);
            expect(await c.readRounded(t.name, to, s, k, out)).toBe(out);
            expect(got(out)).toEqual(want(s!, k!));
          }
          // Ranges read at the same time do not share the decode buffer's contents.
          const side = await Promise.all(ranges.map(([s, k]) => c.readRounded(t.name, to, s, k)));
          side.forEach((a, i) => expect(got(a)).toEqual(want(ranges[i]![0]!, ranges[i]![1]!)));
          useKernels(false);
          const reference = await c.readRounded(t.name, to).finally(() => useKernels(true));
          expect(got(reference)).toEqual(want(0, n));
        }
      }
    } finally {
      await c.close();
    }
  });
});

describe("roundToOddFloat32: float32 rounded to odd, then to float16/bfloat16, is the one correct rounding", () => {
  it("agrees with the library's exact float64 path on ties, near-ties, underflow, overflow, zeros and NaN", () => {
    const x: number[] = [0, -0, Number.NaN, Infinity, -Infinity, 1e300, -1e300, 1e-300, -1e-300, 2 ** -149, 2 ** -150, 3 * 2 ** -151];
    let s = 12345;
    const u = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 20000; i++) {
      // A bfloat16 or float16 midpoint (8 or 11 significant bits + 1), nudged by less than a float32 ulp or not at all.
      const bitsOf = i % 2 ? 9 : 12;
      const m = (Math.floor(u() * 2 ** bitsOf) | 1) * 2 ** (Math.floor(u() * 40) - 20 - bitsOf);
      const nudge = [0, 2 ** -30, -(2 ** -30), 2 ** -45, 2 ** -24][i % 5]! * m;
      x.push((i % 3 ? 1 : -1) * (m + nudge), (u() - 0.5) * 2 ** (Math.floor(u() * 60) - 30));
    }
    const exact = Float64Array.from(x);
    const odd = roundToOddFloat32(exact);
    for (const fmt of ["binary16", "bfloat16"] as const) expect([...quantize(odd, fmt)]).toEqual([...quantize(exact, fmt)]);
  });
});

describe("openCheckpoint: malformed checkpoints are refused, naming what is wrong", () => {
  const cases: [string, RegExp][] = [
    ["bad-missing-scale", /q_proj\.weight".*F8_E4M3 weight without its scale.*q_proj\.weight_scale_inv/],
    ["bad-scale-shape", /weight_scale_inv".*shape \[1, 2\]; deepseek-fp8 expects \[2, 1\]/],
    ["bad-scale-dtype", /weight_scale_inv".*dtype BF16; deepseek-fp8 scales are F32/],
    ["bad-nan-scale", /weight_scale_inv" in model\.safetensors: element 1 is NaN; allowed/],
    ["bad-ue8m0-scale", /element 0 is 0\.0084\d+; allowed: a power of two \(config scale_fmt ue8m0\)/],
    ["bad-unknown-method", /quant_method: is "mystery-quant"; allowed: fp8, compressed-tensors, mxfp4, modelopt/],
    ["bad-unknown-format", /format: is "sparse-24-bitmask" with no weight groups; allowed: float-quantized/],
    ["bad-no-config-block", /shape \[3, 3\], not the \[2, 1\] of 128×128 blocks; without config\.json quantization_config\.weight_block_size/],
    ["bad-missing-nvfp4-scale", /w\.weight": is a packed E2M1 weight without its scale/],
    ["bad-negative-scale", /w\.weight_scale" in model\.safetensors: element 0 is -0\.5; allowed: a finite non-negative scale/],
  ];
  for (const [name, message] of cases) {
    it(name, async () => {
      const error = await (async () => {
        const c = await openCheckpoint(checkpoint(name));
        try {
          for (const t of c.tensors) if (t.decodable) await c.readExact(t.name);
        } finally {
          await c.close();
        }
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as Error).message).toMatch(message);
    });
  }

  it("its arguments: an unknown option, an input of another type, a path where there is no file system", async () => {
    const path = join(checkpoint("modelopt-fp8"), "model.safetensors");
    await expect(openCheckpoint(path, { bogus: 1 } as never)).rejects.toThrow(/^options.bogus: is not an option here/);
    await expect(openCheckpoint(42 as never)).rejects.toThrow(new ArgumentTypeError("input", "got 42; allowed: a path, a Blob or File, or a ByteSource"));
    // As in a browser: no process.versions.node.
    const process = globalThis.process;
    Object.defineProperty(globalThis, "process", { value: undefined, configurable: true, writable: true });
    try {
      await expect(openCheckpoint(path)).rejects.toThrow(/^input: got the string ".*"; allowed here: a Blob, File or ByteSource/);
    } finally {
      Object.defineProperty(globalThis, "process", { value: process, configurable: true, writable: true });
    }
  });

  it("GGUF: an unknown type is named when read; a truncated file when opened", async () => {
    const c = await openCheckpoint(join(checkpoint("bad-gguf"), "unknown-type.gguf"));
    expect(c.tensor("blk.0.w").scheme).toBe("gguf:type 99");
    await expect(c.readExact("blk.0.w")).rejects.toThrow(/unknown ggml type 99/);
    await c.close();
    await expect(openCheckpoint(join(checkpoint("bad-gguf"), "truncated.gguf"))).rejects.toThrow(/truncated/);
  });
});
