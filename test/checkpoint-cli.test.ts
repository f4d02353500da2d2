// `minifloat dequantize` and `inspect` on the checkpoint fixtures: bit-exact output for every convention and
// target, a sharded directory converted shard by shard (index, config, copied files), GGUF input, and malformed
// inputs refused with nothing written.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "./cli-bundle.js";
import { num } from "../src/cli/text.js";
import { SafetensorsReader, dequantizeCheckpoint } from "../src/io/index.js";
import { GOOD, bits, checkpoint, expectedTensors } from "./checkpoint-fixtures.js";
import { bitsOf, expected as ggufExpected, fixture as ggufFixture } from "./io-gguf-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-checkpoint-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (...names: string[]) => join(dir, ...names);

/** Stored bit patterns of every tensor of the output file(s) of a dequantize run. */
async function stored(paths: string[]): Promise<Map<string, { dtype: string; shape: readonly number[]; bits: number[] }>> {
  const out = new Map<string, { dtype: string; shape: readonly number[]; bits: number[] }>();
  for (const p of paths) {
    const r = await SafetensorsReader.open(p);
    for (const t of r.tensors) {
      const b = await r.readTensorBytes(t, 0, t.end - t.begin);
      const copy = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
      out.set(t.name, {
        dtype: t.dtype,
        shape: t.shape,
        bits: [...(t.info.bits === 32 ? new Uint32Array(copy) : t.info.bits === 16 ? new Uint16Array(copy) : new Uint8Array(copy))],
      });
    }
    await r.close();
  }
  return out;
}

const TARGETS = [
  ["f32", "F32", 32],
  ["f16", "F16", 16],
  ["bf16", "BF16", 16],
] as const;

describe("minifloat dequantize: every convention, every target, bit-exact", () => {
  for (const name of GOOD) {
    it(`${name}: a model directory becomes a directory of ${TARGETS.map((t) => t[1]).join("/")} weights, scales folded in and dropped`, async () => {
      const want = expectedTensors(name);
      const input = checkpoint(name);
      const shards = readdirSync(input).filter((f) => f.endsWith(".safetensors"));
      for (const [to, dtype, width] of TARGETS) {
        const out = at(`${name}-${to}`);
        const r = await cli("dequantize", input, "--to", to, "-o", out);
        expect(r.err).toMatch(/^\[1\/\d+\] /);
        expect(r.code).toBe(0);
        expect(
          readdirSync(out)
            .filter((f) => f.endsWith(".safetensors"))
            .sort(),
        ).toEqual(shards.sort());
        const got = await stored(shards.map((f) => join(out, f)));
        for (const [tensor, e] of Object.entries(want)) {
          const t = got.get(tensor)!;
          expect(t.shape).toEqual(e.shape);
          // Tensors another tool left unquantized are copied as they are (here BF16).
          if (e.scheme === "plain") {
            expect([t.dtype, t.bits]).toEqual(["BF16", bits(e.bf16, 16)]);
            continue;
          }
          expect(t.dtype).toBe(dtype);
          expect(t.bits).toEqual(bits(e[to], width));
          for (const part of e.parts.slice(1)) expect(got.has(part)).toBe(false);
        }
        const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
        expect(config.quantization_config).toBeUndefined();
        expect(config.hidden_size).toBe(64);
        expect(existsSync(join(out, "hf_quant_config.json"))).toBe(false);
        expect(existsSync(join(out, "expected.json"))).toBe(true); // every other file is copied
      }
    });
  }

  it("sharded: the scale in another shard is found; the new index maps the weights, drops the scales, counts the bytes", async () => {
    const input = checkpoint("sharded");
    const out = at("sharded-out");
    expect((await cli("dequantize", input, "--to", "bf16", "-o", out)).code).toBe(0);
    const index = JSON.parse(readFileSync(join(out, "model.safetensors.index.json"), "utf8"));
    const [a, b] = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"];
    expect(index.weight_map).toEqual({
      "model.layers.0.self_attn.k_proj.weight": b,
      "model.layers.0.self_attn.q_proj.weight": a,
      "model.norm.weight": a,
      "model.position_ids": a,
    });
    let total = 0;
    for (const f of [a, b]) {
      const r = await SafetensorsReader.open(join(out, f));
      total += r.tensors.reduce((n, t) => n + t.end - t.begin, 0);
      expect(r.metadata).toEqual({ format: "pt" });
      await r.close();
    }
    expect(index.metadata).toEqual({ total_size: total });
    for (const f of ["generation_config.json", "tokenizer.json"]) expect(readFileSync(join(out, f))).toEqual(readFileSync(join(input, f)));
    const ids = (await stored([join(out, a)])).get("model.position_ids")!;
    expect(ids.dtype).toBe("I64");
    expect(ids.bits).toEqual([...readFileSync(join(input, a)).subarray(-32)]); // the last 32 bytes of its shard, unchanged
  });

  it("--only: unselected quantized weights keep their scales, and the config keeps quantization_config", async () => {
    const out = at("sharded-only");
    expect((await cli("dequantize", checkpoint("sharded"), "--to", "f32", "--only", "*q_proj*", "-o", out)).code).toBe(0);
    const got = await stored(["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"].map((f) => join(out, f)));
    const p = "model.layers.0.self_attn";
    expect([got.get(`${p}.q_proj.weight`)!.dtype, got.has(`${p}.q_proj.weight_scale_inv`)]).toEqual(["F32", false]);
    expect([got.get(`${p}.k_proj.weight`)!.dtype, got.get(`${p}.k_proj.weight_scale_inv`)!.dtype]).toEqual(["F8_E4M3", "F32"]);
    expect(JSON.parse(readFileSync(join(out, "config.json"), "utf8")).quantization_config.quant_method).toBe("fp8");
  });

  it("a .safetensors file (config beside it) becomes a file; a GGUF file becomes a .safetensors file", async () => {
    const out = at("single.safetensors");
    const r = await cli("dequantize", join(checkpoint("ct-nvfp4"), "model.safetensors"), "--to", "f16", "-o", out);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/1 tensor\(s\) converted to F16 \(3 scale tensor\(s\) folded in\), 0 copied/);
    expect(r.err).toMatch(/^\[1\/1\] model\.layers\.0\.mlp\.down_proj\.weight: U8 \(compressed-tensors-nvfp4\) -> F16, /);
    const [name, e] = Object.entries(expectedTensors("ct-nvfp4"))[0]!;
    expect((await stored([out])).get(name)!.bits).toEqual(bits(e.f16, 16));

    const g = at("gguf.safetensors");
    expect((await cli("dequantize", ggufFixture("quantized"), "--to", "f32", "-o", g)).code).toBe(0);
    const got = await stored([g]);
    for (const t of ggufExpected("quantized").tensors) expect(got.get(t.name)!.bits).toEqual([...bitsOf(t.values!)]);
  });

  it("--raw keeps today's unscaled decoding: the scale tensors stay, converted like any float tensor", async () => {
    const out = at("raw.safetensors");
    expect((await cli("dequantize", join(checkpoint("deepseek-fp8"), "model.safetensors"), "--raw", "--to", "f32", "-o", out)).code).toBe(0);
    const got = await stored([out]);
    expect(got.has("model.layers.0.self_attn.q_proj.weight_scale_inv")).toBe(true);
    const weight = got.get("model.layers.0.self_attn.q_proj.weight")!;
    // Row 1 holds one planted E4M3 code everywhere: unscaled, every element is that code's value.
    expect(new Set(new Float32Array(Uint32Array.from(weight.bits.slice(130, 260)).buffer)).size).toBe(1);
  });

  it("an existing output needs --force; then it is replaced whole", async () => {
    const out = at("exists");
    expect((await cli("dequantize", checkpoint("ct-mxfp4"), "--to", "bf16", "-o", out)).code).toBe(0);
    writeFileSync(join(out, "stale.txt"), "x");
    const again = await cli("dequantize", checkpoint("ct-mxfp4"), "--to", "bf16", "-o", out);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/exists; allowed: a new path, or --force to replace it/);
    expect((await cli("dequantize", checkpoint("ct-mxfp4"), "--to", "bf16", "-o", out, "--force")).code).toBe(0);
    expect(existsSync(join(out, "stale.txt"))).toBe(false);
  });
});

describe("minifloat dequantize: malformed checkpoints are refused and nothing is written", () => {
  const cases: [string, string, RegExp][] = [
    [
      "bad-missing-scale",
      "",
      /q_proj\.weight": is a F8_E4M3 weight without its scale: the fp8 config needs tensor "model\.layers\.0\.self_attn\.q_proj\.weight_scale_inv"/,
    ],
    ["bad-scale-shape", "", /has shape \[1, 2\]; deepseek-fp8 expects \[2, 1\]/],
    ["bad-scale-dtype", "", /has dtype BF16; deepseek-fp8 scales are F32/],
    ["bad-nan-scale", "", /element 1 is NaN; allowed: a finite non-negative scale/],
    ["bad-negative-scale", "", /element 0 is -0\.5; allowed: a finite non-negative scale/],
    ["bad-ue8m0-scale", "", /element 0 is 0\.0084\d+; allowed: a power of two \(config scale_fmt ue8m0\)/],
    ["bad-unknown-method", "", /quant_method: is "mystery-quant"/],
    ["bad-unknown-format", "", /format: is "sparse-24-bitmask"/],
    ["bad-no-config-block", "", /the block size is unknown/],
    ["bad-missing-nvfp4-scale", "", /w\.weight": is a packed E2M1 weight without its scale: the modelopt config needs tensor "w\.weight_scale"/],
    ["bad-gguf", "unknown-type.gguf", /unknown ggml type 99/],
    ["bad-gguf", "truncated.gguf", /truncated/],
  ];
  for (const [name, file, message] of cases) {
    it(`${name}${file ? `/${file}` : ""}`, async () => {
      mkdirSync(at("refused"), { recursive: true });
      const out = at("refused", `${name}${file}`);
      const r = await cli("dequantize", join(checkpoint(name), file), "--to", "bf16", "-o", out);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(message);
      expect(existsSync(out)).toBe(false);
      expect(existsSync(at("refused")) ? readdirSync(at("refused")) : []).toEqual([]);
    });
  }
});

describe("dequantize on worker threads", () => {
  // Every tensor large enough (minElements 0) and not a table gather goes to the workers: the small-block NVFP4 and
  // MXFP4 schemes, gpt-oss, FP8 with per-tensor or per-channel scales.
  for (const name of GOOD) {
    it(`${name}: the same bits as the independent reference, with scales looked up by the workers`, async () => {
      const want = expectedTensors(name);
      const shards = readdirSync(checkpoint(name)).filter((f) => f.endsWith(".safetensors"));
      for (const [to, dtype, width] of TARGETS) {
        const out = at(`threads-${name}-${to}`);
        const result = await dequantizeCheckpoint(checkpoint(name), { to: dtype, output: out, threads: 2, minElements: 0 });
        expect(result.converted).toBeGreaterThan(0);
        const got = await stored(shards.map((f) => join(out, f)));
        for (const [tensor, e] of Object.entries(want)) {
          if (e.scheme === "plain") continue;
          expect([tensor, got.get(tensor)!.dtype]).toEqual([tensor, dtype]);
          expect(got.get(tensor)!.bits).toEqual(bits(e[to], width));
        }
      }
    });
  }

  it("--threads is an integer of at least 1; threads and minElements are checked", async () => {
    const r = await cli("dequantize", checkpoint("ct-nvfp4"), "--to", "bf16", "--threads", "two", "-o", at("threads-bad"));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--threads/);
    await expect(dequantizeCheckpoint(checkpoint("ct-nvfp4"), { to: "BF16", output: at("threads-bad"), threads: 0 })).rejects.toThrow(/threads: got 0/);
    await expect(dequantizeCheckpoint(checkpoint("ct-nvfp4"), { to: "BF16", output: at("threads-bad"), minElements: 0.5 })).rejects.toThrow(/minElements/);
    expect(existsSync(at("threads-bad"))).toBe(false);
    const two = await cli("dequantize", checkpoint("ct-nvfp4"), "--to", "bf16", "--threads", "2", "-o", at("threads-cli"));
    expect(two.code).toBe(0);
  });
});

describe("minifloat inspect on checkpoints", () => {
  const range = (e: { f32: string }) => {
    const v = new Float32Array(Uint32Array.from(bits(e.f32, 32)).buffer);
    return [num(v.reduce((m, x) => Math.min(m, x), Infinity)), num(v.reduce((m, x) => Math.max(m, x), -Infinity))];
  };
  for (const name of GOOD) {
    it(`${name}: each group's scheme, block shape and dequantized range; its scale tensors listed`, async () => {
      const r = await cli("inspect", checkpoint(name));
      expect(r.code).toBe(0);
      for (const [tensor, e] of Object.entries(expectedTensors(name))) {
        const [min, max] = range(e);
        const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        const block = e.blockShape ? `\\s+${e.blockShape[0]}×${e.blockShape[1]}` : "";
        const scheme = e.scheme === "plain" ? "" : ` \\(${esc(e.scheme)}\\)`;
        const row = new RegExp(`^${esc(tensor)}\\s+\\S+${scheme}\\s+\\[${e.shape.join(", ")}\\]\\s+\\d+\\s+${esc(min!)}\\s+${esc(max!)}\\s.*${block}$`, "m");
        expect(r.out).toMatch(row);
        for (const part of e.parts.slice(1))
          expect(r.out).toMatch(new RegExp(`^${esc(part)}\\s+\\S+ \\(${esc(e.scheme)} (scale|global scale|input scale)s\\)`, "m"));
      }
    });
  }

  it("a GGUF file: one row per tensor with its ggml type and block", async () => {
    const r = await cli("inspect", ggufFixture("quantized"));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^q8_0\s+Q8_0\s+\[2, 128\]\s+256\s.*1×32$/m);
  });
});
