// `minifloat quantize --scheme`: every byte of the codes and scales, the tensor names, dtypes and shapes and the
// configuration entries against the files scripts/fixtures/checkpoint_produce.py computes independently.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./cli-bundle.js";
import { useKernels } from "../src/wasm/instance.js";
import { randomWeights } from "./random-weights.js";
import {
  CodeRangeError,
  type Granularity,
  type ProducedScheme,
  SafetensorsError,
  SafetensorsReader,
  SafetensorsWriter,
  type TensorSpec,
  produceCheckpoint,
} from "../src/io/index.js";

const fixtures = fileURLToPath(new URL("fixtures/checkpoint-produce/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "minifloat-produce-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every tensor of a safetensors file: dtype, shape and stored bytes, by name. */
async function tensors(path: string): Promise<Map<string, { dtype: string; shape: readonly number[]; bytes: Uint8Array }>> {
  const r = await SafetensorsReader.open(path);
  try {
    const out = new Map<string, { dtype: string; shape: readonly number[]; bytes: Uint8Array }>();
    for (const t of r.tensors) out.set(t.name, { dtype: t.dtype, shape: t.shape, bytes: await r.readTensorBytes(t, 0, t.end - t.begin) });
    return out;
  } finally {
    await r.close();
  }
}

const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));

/** The output directory equals the expected one: same files, same tensors byte for byte, same JSON. */
async function expectSameDirectory(actual: string, expected: string): Promise<void> {
  expect(readdirSync(actual).sort()).toEqual(
    readdirSync(expected)
      .sort()
      .concat(existsSync(join(actual, "generation_config.json")) ? ["generation_config.json"] : [])
      .sort(),
  );
  for (const f of readdirSync(expected)) {
    if (f.endsWith(".safetensors")) {
      const [a, e] = [await tensors(join(actual, f)), await tensors(join(expected, f))];
      expect([...a.keys()].sort()).toEqual([...e.keys()].sort());
      for (const [name, t] of e) {
        const got = a.get(name)!;
        expect({ name, dtype: got.dtype, shape: got.shape }).toEqual({ name, dtype: t.dtype, shape: t.shape });
        const mismatch = t.bytes.findIndex((b, i) => got.bytes[i] !== b);
        expect({ name, mismatch, length: got.bytes.length }).toEqual({ name, mismatch: -1, length: t.bytes.length });
      }
    } else expect(json(join(actual, f))).toEqual(json(join(expected, f)));
  }
}

const CASES: [string, string[]][] = [
  ["deepseek-fp8", ["--scheme", "deepseek-fp8"]],
  ["compressed-tensors-fp8-tensor", ["--scheme", "compressed-tensors-fp8"]],
  ["compressed-tensors-fp8-channel", ["--scheme", "compressed-tensors-fp8", "--granularity", "channel"]],
  ["compressed-tensors-fp8-block", ["--scheme", "compressed-tensors-fp8", "--granularity", "block"]],
  ["compressed-tensors-nvfp4", ["--scheme", "compressed-tensors-nvfp4"]],
  ["compressed-tensors-mxfp4", ["--scheme", "compressed-tensors-mxfp4"]],
  ["modelopt-fp8", ["--scheme", "modelopt-fp8"]],
  ["modelopt-nvfp4", ["--scheme", "modelopt-nvfp4"]],
];

describe("quantize --scheme: a sharded model directory", () => {
  for (const [name, args] of CASES) {
    it(`${name} equals the tool's tensors and config byte for byte`, async () => {
      const out = join(dir, name);
      const r = await cli("quantize", join(fixtures, "input"), ...args, "-o", out);
      expect(r.err.split("\n").filter((l) => l.includes("error"))).toEqual([]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/wrote .*: 3 weight\(s\) in .*, 5 tensor\(s\) copied, 2 shard\(s\)/);
      // The error report: the all-zero weight decodes exactly.
      expect(r.out).toMatch(/\nmodel\.layers\.0\.mlp\.zero_proj\.weight +512 +0 +0 +0% +0% +- *\n/);
      await expectSameDirectory(out, join(fixtures, "expected", name));
      expect(readFileSync(join(out, "generation_config.json"), "utf8")).toBe(readFileSync(join(fixtures, "input", "generation_config.json"), "utf8"));
    });
  }

  it("the library call under the CLI (produceCheckpoint) writes the same directory, granularity and force defaulted", async () => {
    const out = join(dir, "library-compressed-tensors-fp8");
    const result = await produceCheckpoint({ input: join(fixtures, "input"), output: out, scheme: "compressed-tensors-fp8" });
    expect(result).toMatchObject({ shards: 2, copied: 5 });
    expect(result.quantized).toHaveLength(3);
    await expectSameDirectory(out, join(fixtures, "expected", "compressed-tensors-fp8-tensor"));
    await expect(produceCheckpoint({ input: join(fixtures, "input"), output: out, scheme: "compressed-tensors-fp8" })).rejects.toThrow(/exists/);
  });

  it("--fsync (each shard flushed before the directory is moved into place) writes the same directory", async () => {
    const out = join(dir, "fsync");
    const r = await cli("quantize", join(fixtures, "input"), "--scheme", "deepseek-fp8", "--fsync", "-o", out);
    expect(r.code, r.err).toBe(0);
    await expectSameDirectory(out, join(fixtures, "expected", "deepseek-fp8"));
  });

  it("gpt-oss-mxfp4 quantizes the MoE experts along K, transposed to [E, N, K/32, 16] blocks", async () => {
    const out = join(dir, "gpt-oss");
    const r = await cli("quantize", join(fixtures, "input-gptoss"), "--scheme", "gpt-oss-mxfp4", "-o", out);
    expect(r.code).toBe(0);
    await expectSameDirectory(out, join(fixtures, "expected", "gpt-oss-mxfp4"));
  });

  it("a single file in writes the file and config.json into the output directory", async () => {
    const out = join(dir, "single");
    const r = await cli("quantize", join(fixtures, "input", "model-00001-of-00002.safetensors"), "--scheme", "deepseek-fp8", "-o", out);
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["config.json", "model-00001-of-00002.safetensors"]);
    const [a, e] = [
      await tensors(join(out, "model-00001-of-00002.safetensors")),
      await tensors(join(fixtures, "expected", "deepseek-fp8", "model-00001-of-00002.safetensors")),
    ];
    expect(a).toEqual(e);
    expect(json(join(out, "config.json"))).toEqual(json(join(fixtures, "expected", "deepseek-fp8", "config.json")));
  });

  it("an output directory inside the input directory is not copied into itself", async () => {
    const model = join(dir, "nested");
    cpSync(join(fixtures, "input"), model, { recursive: true });
    const out = join(model, "quantized");
    expect((await cli("quantize", model, "--scheme", "deepseek-fp8", "-o", out)).code).toBe(0);
    await expectSameDirectory(out, join(fixtures, "expected", "deepseek-fp8"));
    expect(readdirSync(model).sort()).toEqual([...readdirSync(join(fixtures, "input")), "quantized"].sort());
  });

  it("--only replaces the convention's choice (lm_head quantized, q_proj kept)", async () => {
    const out = join(dir, "only");
    const r = await cli("quantize", join(fixtures, "input"), "--scheme", "modelopt-fp8", "--only", "lm_head.*", "-o", out);
    expect(r.code).toBe(0);
    const t = await tensors(join(out, "model-00002-of-00002.safetensors"));
    expect(t.get("lm_head.weight")!.dtype).toBe("F8_E4M3");
    expect(t.get("lm_head.weight_scale")!.shape).toEqual([]);
    expect(t.get("model.layers.0.self_attn.k_proj.weight")!.dtype).toBe("F32");
    expect(json(join(out, "hf_quant_config.json")).quantization.exclude_modules).toEqual([
      "model.layers.0.mlp.gate",
      "model.layers.0.mlp.zero_proj",
      "model.layers.0.self_attn.k_proj",
      "model.layers.0.self_attn.q_proj",
    ]);
  });
});

describe("quantize --scheme: bad input writes nothing", () => {
  const input = join(fixtures, "input");
  it.each([
    [["--scheme", "fp8-everything"], /--scheme: got "fp8-everything"; allowed: deepseek-fp8, compressed-tensors-fp8, .*gpt-oss-mxfp4/],
    [["--scheme", "nvfp4"], /--scheme: got "nvfp4"; allowed: .* \(minifloat's own nvfp4 layout is --block nvfp4\)/],
    [["--scheme", "modelopt-nvfp4", "--granularity", "channel"], /--granularity: not allowed with modelopt-nvfp4/],
    [["--scheme", "compressed-tensors-fp8", "--granularity", "row"], /--granularity: got "row"; allowed: tensor, channel, block/],
    [["--scheme", "deepseek-fp8", "--to", "float8_e4m3fn"], /--to: unknown option/],
  ])("%j is a usage error", async (args, message) => {
    const out = join(dir, `usage-${args.join("")}`);
    const r = await cli("quantize", input, ...args, "-o", out);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });

  it("an existing output needs --force, which replaces it", async () => {
    const out = join(dir, "exists");
    cpSync(join(fixtures, "input-gptoss"), out, { recursive: true });
    writeFileSync(join(out, "keep.txt"), "old");
    const r = await cli("quantize", input, "--scheme", "deepseek-fp8", "-o", out);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/exists; allowed: a new path, or --force to replace it/);
    expect(readFileSync(join(out, "keep.txt"), "utf8")).toBe("old");
    expect((await cli("quantize", input, "--scheme", "deepseek-fp8", "-o", out, "--force")).code).toBe(0);
    expect(existsSync(join(out, "keep.txt"))).toBe(false);
    await expectSameDirectory(out, join(fixtures, "expected", "deepseek-fp8"));
  });

  it.each([
    ["nan", "NaN", "compressed-tensors-nvfp4"],
    ["inf", "-Infinity", "modelopt-fp8"],
  ])("a weight holding %s is an error naming the tensor, and no output or temporary file remains", async (file, value, scheme) => {
    const out = join(dir, `bad-${file}`);
    const r = await cli("quantize", join(fixtures, "input-bad", `${file}.safetensors`), "--scheme", scheme, "-o", out);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`tensor "model.layers.0.mlp.down_proj.weight": holds ${value}; allowed: finite values`);
    expect(readdirSync(dir).filter((f) => f.includes(`bad-${file}`))).toEqual([]);
  });

  it("an already quantized model is refused", async () => {
    const out = join(dir, "twice");
    const r = await cli("quantize", join(fixtures, "expected", "deepseek-fp8"), "--scheme", "modelopt-fp8", "-o", out);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/expected\/deepseek-fp8: is already quantized \("fp8"\); allowed: an unquantized model/);
    expect(existsSync(out)).toBe(false);
  });

  it("a model without a tensor the scheme quantizes is an error", async () => {
    const out = join(dir, "none");
    const r = await cli("quantize", join(fixtures, "input"), "--scheme", "gpt-oss-mxfp4", "-o", out);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/has no tensor that gpt-oss-mxfp4 quantizes/);
    expect(existsSync(out)).toBe(false);
  });
});

describe("quantize --scheme on worker threads", () => {
  type Observed = { tensor: string; sums: unknown; elements: number }[];
  /** produceCheckpoint with `threads` (every weight sent to the workers when threads > 1), and what observe received. */
  async function produce(input: string, output: string, scheme: ProducedScheme, threads: number, granularity?: Granularity) {
    const observed: Observed = [];
    const result = await produceCheckpoint({
      input,
      output,
      scheme,
      threads,
      minElements: 0,
      ...(granularity && { granularity }),
      observe: (tensor, sums, elements) => void observed.push({ tensor, sums, elements }),
    });
    return { result, observed };
  }

  for (const [name, args] of [...CASES, ["gpt-oss-mxfp4", ["--scheme", "gpt-oss-mxfp4"]] as [string, string[]]]) {
    it(`${name}: the same files as the tool's, and the same error sums as one thread`, async () => {
      const input = join(fixtures, name === "gpt-oss-mxfp4" ? "input-gptoss" : "input");
      const scheme = args[1] as ProducedScheme;
      const granularity = args[3] as Granularity | undefined;
      const one = await produce(input, join(dir, `one-${name}`), scheme, 1, granularity);
      const two = await produce(input, join(dir, `threads-${name}`), scheme, 2, granularity);
      await expectSameDirectory(join(dir, `threads-${name}`), join(fixtures, "expected", name));
      expect(two.result).toEqual(one.result);
      expect(two.observed.length).toBeGreaterThan(0);
      expect(two.observed).toEqual(one.observed);
    });
  }

  // Weights of several bands (and, for whole-tensor scales, several amax ranges), and gpt-oss experts of several
  // jobs: the workers' results land in order. One thread's output is the reference (checked above against the tools').
  const big = join(dir, "big");
  beforeAll(async () => {
    mkdirSync(big);
    const random = randomWeights(12345, 12);
    const specs: TensorSpec[] = [
      { name: "model.layers.0.mlp.down_proj.weight", dtype: "BF16", shape: [1000, 2304] },
      { name: "model.layers.0.mlp.up_proj.weight", dtype: "F32", shape: [300, 4000] },
      { name: "model.layers.0.mlp.experts.gate_up_proj", dtype: "BF16", shape: [5, 64, 96] },
    ];
    const w = await SafetensorsWriter.create(join(big, "model.safetensors"), specs);
    for (const s of specs) await w.writeValues(Float32Array.from({ length: s.shape.reduce((a, b) => a * b) }, random));
    await w.commit();
  });

  it.each([
    ["deepseek-fp8", undefined],
    ["compressed-tensors-fp8", "tensor"],
    ["compressed-tensors-fp8", "channel"],
    ["compressed-tensors-nvfp4", undefined],
    ["modelopt-nvfp4", undefined],
    ["gpt-oss-mxfp4", undefined],
  ] as [ProducedScheme, Granularity | undefined][])(
    "%s %s: weights of several jobs give the same files and sums on 1 and 3 threads",
    async (scheme, granularity) => {
      const tag = `${scheme}-${granularity}`;
      const one = await produce(big, join(dir, `big-one-${tag}`), scheme, 1, granularity);
      const three = await produce(big, join(dir, `big-three-${tag}`), scheme, 3, granularity);
      await expectSameDirectory(join(dir, `big-three-${tag}`), join(dir, `big-one-${tag}`));
      expect(three.observed).toEqual(one.observed);
      expect(one.observed.length).toBeGreaterThan(scheme === "gpt-oss-mxfp4" ? 4 : 2);
    },
  );

  it("with the kernels switched off, the workers take the TypeScript path too (same files)", async () => {
    const out = join(dir, "threads-reference");
    useKernels(false);
    try {
      await produceCheckpoint({ input: join(fixtures, "input"), output: out, scheme: "compressed-tensors-nvfp4", threads: 2, minElements: 0 });
    } finally {
      useKernels(true);
    }
    await expectSameDirectory(out, join(fixtures, "expected", "compressed-tensors-nvfp4"));
  });

  it.each([
    ["nan", "NaN", "compressed-tensors-nvfp4"],
    ["inf", "-Infinity", "modelopt-fp8"],
    ["inf", "-Infinity", "deepseek-fp8"],
  ])("a weight holding %s fails in a worker with the same typed error, and nothing remains (%s, %s)", async (file, value, scheme) => {
    const out = join(dir, `threads-bad-${file}-${scheme}`);
    const run = produceCheckpoint({
      input: join(fixtures, "input-bad", `${file}.safetensors`),
      output: out,
      scheme: scheme as ProducedScheme,
      threads: 2,
      minElements: 0,
    });
    await expect(run).rejects.toThrow(SafetensorsError);
    await expect(run).rejects.toThrow(`tensor "model.layers.0.mlp.down_proj.weight": holds ${value}; allowed: finite values`);
    expect(readdirSync(dir).filter((f) => f.includes(`threads-bad-${file}-${scheme}`))).toEqual([]);
  });

  it("a non-finite weight in a later band fails in its worker while earlier bands are consumed: the typed error, nothing left", async () => {
    const model = join(dir, "late-nan");
    mkdirSync(model);
    const values = new Float32Array(2304 * 1000).fill(0.25);
    values[values.length - 7] = Number.NaN;
    const w = await SafetensorsWriter.create(join(model, "model.safetensors"), [
      { name: "model.layers.0.mlp.down_proj.weight", dtype: "F32", shape: [1000, 2304] },
    ]);
    await w.writeValues(values);
    await w.commit();
    const out = join(dir, "late-nan-out");
    const run = produceCheckpoint({ input: model, output: out, scheme: "deepseek-fp8", threads: 2, minElements: 0 });
    await expect(run).rejects.toThrow(SafetensorsError);
    await expect(run).rejects.toThrow(/holds NaN; allowed: finite values/);
    expect(readdirSync(dir).filter((f) => f.startsWith("late-nan-out") || f.startsWith(".late-nan-out"))).toEqual([]);
  });

  it("threads and minElements are checked; --threads is an integer of at least 1", async () => {
    const input = join(fixtures, "input");
    await expect(produceCheckpoint({ input, output: join(dir, "t0"), scheme: "deepseek-fp8", threads: 0 })).rejects.toThrow(
      /threads: got 0; allowed: an integer in \[1, 256\]/,
    );
    await expect(produceCheckpoint({ input, output: join(dir, "t0"), scheme: "deepseek-fp8", minElements: -1 })).rejects.toThrow(CodeRangeError);
    const r = await cli("quantize", input, "--scheme", "deepseek-fp8", "--threads", "0", "-o", join(dir, "t0"));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--threads/);
    expect(existsSync(join(dir, "t0"))).toBe(false);
  });
});
