// `minifloat gguf` against test/fixtures/gguf/convert* (inputs — files and model directories — and expected GGUF
// bytes built by scripts/fixtures/gguf_convert.py with the gguf Python package and NumPy).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "./cli-bundle.js";
import { GgufError, GgufReader, openCheckpoint } from "../src/io/index.js";
import type { GgufTensorType } from "../src/io/gguf/format.js";
import { planGguf, writeGguf } from "../src/io/gguf/from-checkpoint.js";
import { bitsOf } from "./io-gguf-fixtures.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "gguf");
const input = join(FIXTURES, "convert.safetensors");
const fixture = (name: string) => join(FIXTURES, name);

interface ExpectedTensor {
  name: string;
  type: string;
  shape: number[];
  bytes: string;
  values?: string;
}
const expected: { metadata: Record<string, string>; runs: Record<string, ExpectedTensor[]> } = JSON.parse(
  readFileSync(join(FIXTURES, "convert.expected.json"), "utf8"),
);

const checkpoints: Record<string, { input: string; type: string; tensors: ExpectedTensor[] }> = JSON.parse(
  readFileSync(join(FIXTURES, "convert-checkpoints.expected.json"), "utf8"),
);

const dir = mkdtempSync(join(tmpdir(), "minifloat-cli-gguf-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

/** Every file of an input (a file or a directory) with its bytes: the input must not change. */
function contents(path: string): [string, Buffer][] {
  return statSync(path).isDirectory() ? readdirSync(path).map((f) => [f, readFileSync(join(path, f))]) : [[path, readFileSync(path)]];
}

async function withReader<T>(path: string, f: (r: GgufReader) => Promise<T>): Promise<T> {
  const r = await GgufReader.open(path);
  try {
    return await f(r);
  } finally {
    await r.close();
  }
}

describe("minifloat gguf", () => {
  for (const [run, tensors] of Object.entries(expected.runs)) {
    it(`--type ${run}: every tensor's type, shape and bytes as the gguf package / NumPy computed, lossless ones exact`, async () => {
      const out = at(`${run}.gguf`);
      const { code, err } = await cli("gguf", input, "-o", out, ...(run === "keep" ? [] : ["--type", run]));
      expect(err).not.toMatch(/minifloat gguf:/);
      expect(code).toBe(0);
      await withReader(out, async (r) => {
        expect(r.tensors.map((t) => [t.name, t.typeName, t.shape])).toEqual(tensors.map((t) => [t.name, t.type, t.shape]));
        for (const [i, t] of tensors.entries()) {
          const got = r.tensors[i]!;
          expect(Buffer.from(await r.readTensorBytes(got)).toString("base64"), t.name).toBe(t.bytes);
          if (t.values) expect(new Uint32Array((await r.readValues(got)).buffer), t.name).toEqual(bitsOf(t.values));
        }
        expect(r.alignment).toBe(32);
        expect(r.metadata.get("general.alignment")).toEqual({ type: "UINT32", value: 32 });
        expect(r.metadata.has("general.architecture")).toBe(false);
        for (const [k, v] of Object.entries(expected.metadata)) expect(r.metadata.get(k)).toEqual({ type: "STRING", value: v });
      });
    });
  }

  it("reports one line per tensor, kept tensors with the reason", async () => {
    const { code, out, err } = await cli("gguf", input, "-o", at("lines.gguf"), "--type", "q8_0");
    expect(code).toBe(0);
    expect(out).toMatch(/^wrote .*lines\.gguf: 16 GGUF tensor\(s\) from 19; /);
    expect(err).toMatch(/^\[1\/16\] plain\.f32: F32 -> Q8_0, \d+\.\d\d s$/m);
    expect(err).toMatch(/^\[5\/16\] odd\.weight: kept F32: rows of 33 elements are not a multiple of the Q8_0 block \(32\), /m);
    expect(err).toMatch(/^\[6\/16\] norm\.weight: F16 -> F32 \(1-D tensors stay F32\), /m);
    expect(err).toMatch(/gate_proj\.weight: gpt-oss MXFP4 gate_up_proj_blocks rows 0::2 -> MXFP4 \(repacked, exact\)/);
    expect(err).toMatch(/q_proj\.weight: ModelOpt NVFP4 -> NVFP4 \(repacked, exact\)/);
    expect(err).toMatch(/up_proj\.bias: BF16 gate_up_proj_bias elements 1::2 -> F32/);
  });

  it("--only picks the tensors --type applies to; --arch records general.architecture", async () => {
    const out = at("only.gguf");
    expect((await cli("gguf", input, "-o", out, "--type", "nvfp4", "--only", "plain.f?4", "--only", "plain.f32", "--arch", "llama")).code).toBe(0);
    const nvfp4 = expected.runs.nvfp4!;
    const keep = expected.runs.keep!;
    await withReader(out, async (r) => {
      expect(r.metadata.get("general.architecture")).toEqual({ type: "STRING", value: "llama" });
      for (const [i, t] of r.tensors.entries()) {
        const want = /^plain\.f(32|64)$/.test(t.name) ? nvfp4[i]! : keep[i]!;
        expect([t.name, t.typeName], t.name).toEqual([want.name, want.type]);
        expect(Buffer.from(await r.readTensorBytes(t)).toString("base64"), t.name).toBe(want.bytes);
      }
    });
  });

  it("notes tensor names ggml refuses (64 bytes or more) and writes them as they are", async () => {
    const out = at("long.gguf");
    const { code, err } = await cli("gguf", fixture("convert-long-name.safetensors"), "-o", out);
    expect(code).toBe(0);
    expect(err).toMatch(/^note: 1 tensor name\(s\) of 64 bytes or more, which ggml \(llama\.cpp\) refuses to load: model\.language_model\.layers\.10\./m);
    await withReader(out, async (r) =>
      expect(r.tensors.map((t) => t.name)).toEqual(["model.language_model.layers.10.mlp.experts.shared_expert.gate_proj.weight"]),
    );
  });

  it("refuses an unknown --type and a missing -o before reading anything", async () => {
    const bad = await cli("gguf", input, "-o", at("never.gguf"), "--type", "q4_k");
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--type: got "q4_k"; allowed: f32, f16, bf16, q8_0, mxfp4, nvfp4/);
    expect((await cli("gguf", input)).err).toMatch(/--output: is required/);
    expect(existsSync(at("never.gguf"))).toBe(false);
  });

  it("refuses a GGUF input (nothing to convert)", async () => {
    const { code, err } = await cli("gguf", fixture("quantized.gguf"), "-o", at("from-gguf.gguf"));
    expect(code).toBe(2);
    expect(err).toMatch(/quantized\.gguf: is a GGUF file; allowed: a \.safetensors file or a model directory/);
    expect(existsSync(at("from-gguf.gguf"))).toBe(false);
  });

  it("keeps an existing output unless --force, and never replaces the input", async () => {
    const out = at("exists.gguf");
    writeFileSync(out, "precious");
    const refused = await cli("gguf", input, "-o", out);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/exists\.gguf: exists; allowed: a new path, or --force to replace it/);
    expect(readFileSync(out, "utf8")).toBe("precious");
    expect((await cli("gguf", input, "-o", out, "--force")).code).toBe(0);
    expect(readFileSync(out).subarray(0, 4).toString()).toBe("GGUF");
    const copy = at("input-copy.safetensors");
    copyFileSync(input, copy);
    const self = await cli("gguf", copy, "-o", copy, "--force");
    expect(self.err).toMatch(/is also an input; allowed: a different output path/);
    expect(readFileSync(copy)).toEqual(readFileSync(input));
  });

  it.each([
    ["a truncated input", "truncated", /truncated/],
    [
      "an integer tensor",
      "convert-int.safetensors",
      /tensor "position_ids": I64 \[8\] cannot be converted; allowed: floating-point tensors and the quantized conventions/,
    ],
    [
      "a NaN NVFP4 scale (found while writing)",
      "convert-nvfp4-nan.safetensors",
      /tensor "p\.weight_scale": has scale byte 0x7f; allowed: non-negative, non-NaN E4M3 scales/,
    ],
    ["a NaN E8M0 scale (found while writing)", "convert-mxfp4-nan.safetensors", /tensor "a\.weight_scale": has scale byte 0xff \(NaN\); allowed: E8M0 scales/],
    [
      "a weight whose scale is missing",
      "convert-missing-scale",
      /tensor "model\.layers\.0\.mlp\.experts\.down_proj_blocks": is a packed E2M1 weight without its scale: the mxfp4 config needs tensor "model\.layers\.0\.mlp\.experts\.down_proj_scales"/,
    ],
    [
      "a NaN ModelOpt weight_scale_2 beside a repacked NVFP4 weight",
      "convert-modelopt-nan-scale2",
      /tensor "model\.layers\.0\.self_attn\.q_proj\.weight_scale_2" in model\.safetensors: element 0 is NaN; allowed: a finite non-negative scale/,
    ],
    [
      "a negative ModelOpt input_scale beside a repacked NVFP4 weight",
      "convert-modelopt-negative-input",
      /tensor "model\.layers\.0\.self_attn\.q_proj\.input_scale" in model\.safetensors: element 0 is -0\.25; allowed: a finite non-negative scale/,
    ],
    ["a directory of shards without an index", "no-index", /has 2 \.safetensors files and no model\.safetensors\.index\.json/],
  ])("fails on %s and leaves nothing behind", async (_, file, message) => {
    const source = at(`in-${file}`);
    if (file === "truncated") writeFileSync(source, readFileSync(input).subarray(0, 3000));
    else if (file === "no-index") {
      mkdirSync(source);
      for (const shard of ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"])
        copyFileSync(join(FIXTURES, "convert-gpt-oss", shard), join(source, shard));
    } else if (statSync(fixture(file)).isDirectory()) {
      mkdirSync(source);
      for (const f of readdirSync(fixture(file))) copyFileSync(join(fixture(file), f), join(source, f));
    } else copyFileSync(fixture(file), source);
    const out = at(`fail-${file}.gguf`);
    const { code, err } = await cli("gguf", source, "-o", out);
    expect(code).toBe(1);
    expect(err).toMatch(message);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]);
  });

  it.each(["q8_0", "mxfp4", "nvfp4"])("--type %s refuses a NaN or infinite weight, naming the tensor and element", async (type) => {
    const out = at(`non-finite-${type}.gguf`);
    const { code, err } = await cli("gguf", fixture("convert-non-finite.safetensors"), "--type", type, "-o", out);
    expect(code).toBe(1);
    const name = type.toUpperCase();
    expect(err).toBe(`minifloat gguf: tensor "a.weight": element 133 is -Infinity; allowed: finite values (${name} encodes no NaN or infinity)\n`);
    expect(existsSync(out)).toBe(false);
    const only = await cli("gguf", fixture("convert-non-finite.safetensors"), "--type", type, "--only", "b.*", "-o", out);
    expect(only.err).toContain(`\nminifloat gguf: tensor "b.weight": element 40 is NaN; allowed: finite values (${name} encodes no NaN or infinity)\n`);
    expect(existsSync(out)).toBe(false);
  });

  for (const [name, c] of Object.entries(checkpoints)) {
    it(`${name}: ${c.input} as the gguf package / NumPy computed (repacked bytes, exact products rounded once)`, async () => {
      const out = at(`${name.replace(/ /g, "-")}.gguf`);
      const source = fixture(c.input);
      const before = contents(source);
      const { code, err } = await cli("gguf", source, "-o", out, ...(c.type === "keep" ? [] : ["--type", c.type]));
      expect(err).not.toMatch(/minifloat gguf:/);
      expect(code).toBe(0);
      await withReader(out, async (r) => {
        expect(r.tensors.map((t) => [t.name, t.typeName, t.shape])).toEqual(c.tensors.map((t) => [t.name, t.type, t.shape]));
        for (const [i, t] of c.tensors.entries()) expect(Buffer.from(await r.readTensorBytes(r.tensors[i]!)).toString("base64"), t.name).toBe(t.bytes);
      });
      expect(contents(source)).toEqual(before);
    });
  }

  it("reads a gpt-oss directory's shards, reports the split, the compressed-tensors repack and the decoded ModelOpt rows", async () => {
    const oss = await cli("gguf", fixture("convert-gpt-oss"), "-o", at("oss-lines.gguf"));
    expect(oss.code).toBe(0);
    expect(oss.out).toMatch(/: 7 GGUF tensor\(s\) from 7; /);
    expect(oss.err).toMatch(/down_proj\.weight: gpt-oss MXFP4 down_proj_blocks -> MXFP4 \(repacked, exact\)/);
    const mo = await cli("gguf", fixture("convert-modelopt"), "-o", at("mo-lines.gguf"));
    expect(mo.err).toMatch(/o_proj\.weight: F4 \(modelopt-nvfp4, decoded: rows of 32 elements are not whole GGUF NVFP4 blocks \(64\)\) -> F32/);
    const ct = await cli("gguf", fixture("convert-ct-mxfp4.safetensors"), "-o", at("ct-lines.gguf"));
    expect(ct.err).toMatch(/a\.weight: compressed-tensors MXFP4 -> MXFP4 \(repacked, exact\)/);
    await withReader(at("oss-lines.gguf"), async (r) => expect(r.metadata.get("safetensors.format")).toEqual({ type: "STRING", value: "pt" }));
  });
});

describe("gguf on worker threads", () => {
  /** writeGguf with every step on two workers (minElements 0), which plan the same steps from the input. */
  async function onWorkers(source: string, out: string, type?: GgufTensorType, selected?: readonly string[]): Promise<void> {
    const c = await openCheckpoint(source);
    try {
      const names = selected && new Set(selected);
      const steps = await planGguf(c, { type, ...(names && { selected: (n: string) => names.has(n) }) });
      await writeGguf(c, steps, out, { plan: { input: source, type, ...(selected && { selected }) }, threads: 2, minElements: 0 });
    } finally {
      await c.close();
    }
  }

  const cases = [
    ...Object.entries(expected.runs).map(([run, tensors]) => ({ name: `--type ${run}`, source: input, type: run, tensors })),
    ...Object.entries(checkpoints).map(([name, c]) => ({ name, source: fixture(c.input), type: c.type, tensors: c.tensors })),
  ];
  for (const { name, source, type, tensors } of cases) {
    it(`${name}: the bytes the gguf package / NumPy computed`, async () => {
      const out = at(`threads-${name.replace(/[ /]/g, "-")}.gguf`);
      await onWorkers(source, out, type === "keep" ? undefined : (type.toUpperCase() as GgufTensorType));
      await withReader(out, async (r) => {
        expect(r.tensors.map((t) => [t.name, t.typeName, t.shape])).toEqual(tensors.map((t) => [t.name, t.type, t.shape]));
        for (const [i, t] of tensors.entries()) expect(Buffer.from(await r.readTensorBytes(r.tensors[i]!)).toString("base64"), t.name).toBe(t.bytes);
      });
    });
  }

  it("--only's names reach the workers: the same file as on one thread", async () => {
    const [one, two] = [at("threads-only-1.gguf"), at("threads-only-2.gguf")];
    expect((await cli("gguf", input, "-o", one, "--type", "nvfp4", "--only", "plain.f?4", "--threads", "1")).code).toBe(0);
    const c = await openCheckpoint(input);
    const names = c.tensors.map((t) => t.name).filter((n) => /^plain\.f.4$/.test(n));
    await c.close();
    expect(names.length).toBeGreaterThan(0);
    await onWorkers(input, two, "NVFP4", names);
    expect(readFileSync(two)).toEqual(readFileSync(one));
    await withReader(two, async (r) => expect(r.tensors.filter((t) => t.typeName === "NVFP4").map((t) => t.name)).toEqual(expect.arrayContaining(names)));
  });

  it("a NaN scale found by a worker is the same GgufError, and nothing is left behind", async () => {
    const out = at("threads-nan.gguf");
    const run = onWorkers(fixture("convert-mxfp4-nan.safetensors"), out);
    await expect(run).rejects.toThrow(GgufError);
    await expect(run).rejects.toThrow(/tensor "a\.weight_scale": has scale byte 0xff \(NaN\); allowed: E8M0 scales/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]);
  });
});
