// `minifloat gguf`: a safetensors file or model directory as a GGUF file (tensors decoded through openCheckpoint to a
// ggml type, gpt-oss MXFP4 and ModelOpt NVFP4 tensors repacked without re-rounding); the work is in
// src/io/gguf/from-checkpoint.ts.
import { openCheckpoint } from "../checkpoint/open.js";
import { planGguf, writeGguf } from "../io/gguf/from-checkpoint.js";
import { UsageError, stringOption } from "./args.js";
import { parseConvertCommand } from "./convert-file.js";
import type { Command } from "./io.js";
import { Progress } from "./progress.js";
import { bytes } from "./text.js";

/** ggml's GGML_MAX_NAME: its GGUF loader refuses tensor names of this many bytes or more. */
const GGML_MAX_NAME = 64;

const TYPES = { f32: "F32", f16: "F16", bf16: "BF16", q8_0: "Q8_0", mxfp4: "MXFP4", nvfp4: "NVFP4" } as const;

const HELP = `Usage: minifloat gguf <in.safetensors | model directory> -o <out.gguf> [--type f32|f16|bf16|q8_0|mxfp4|nvfp4] [options]

Writes the tensors of a safetensors file or a model directory (shards with model.safetensors.index.json, or one
*.safetensors; config.json and hf_quant_config.json are read) into one new GGUF file:
  - repacked bit for bit, never re-rounded, whatever --type and --only say: gpt-oss MXFP4 experts (<p>_blocks +
    <p>_scales) as MXFP4 <p>.weight, gate_up (and its bias) split into gate/up as llama.cpp; compressed-tensors
    MXFP4 as MXFP4; ModelOpt NVFP4 as NVFP4 <p>.weight with F32 <p>.scale and <p>.input_scale
  - every other float tensor (plain, minifloat formats and blocks, DeepSeek / compressed-tensors / ModelOpt FP8,
    compressed-tensors NVFP4, packed rows that are not whole GGUF blocks) decoded exactly, scales applied, under
    its logical name; two or more dimensions to --type (default: F32, F16, BF16 kept, others F32): f16/bf16
    rounded once from the exact values, f32/q8_0/mxfp4/nvfp4 from the values rounded once to float32 (as llama.cpp)
    with ggml's reference quantizers along the last dimension; rows that are not a multiple of the type's block
    (32 for q8_0 and mxfp4, 64 for nvfp4) kept, with a line saying so
  - 0-D and 1-D tensors (norms, biases): F32, as llama.cpp does
Integer tensors are refused. The safetensors __metadata__ becomes string keys "safetensors.<key>". llama.cpp
needs its own architecture metadata and tensor names to run a model: this file holds the tensors, not a runnable
model.

Options:
  --type <type>         f32, f16, bf16, q8_0, mxfp4 or nvfp4 (default: keep)
  --only <glob>         apply --type only to tensors whose name matches (* any characters, ? one); repeatable
  --arch <name>         record general.architecture = <name> (default: none)
  -o, --output <path>   output file
  --force               replace an existing output file
  --fsync               flush the output to the disk before moving it into place (survives a power loss)
  --threads <n>         worker threads for files with a tensor of ≥ 2^22 elements (default: the logical processors,
                        at most 8, on 3 or more, when a tensor is quantized to MXFP4 or NVFP4; else 1)
  --verbose             stack traces on errors
`;

export const ggufCommand: Command = {
  name: "gguf",
  summary: "convert a file or model directory to GGUF (f32 … nvfp4; packed MXFP4/NVFP4 repacked exactly)",
  help: HELP,
  async run(args, io) {
    const { p, files, selected } = parseConvertCommand("gguf", args, { type: { type: "string" }, arch: { type: "string" } });
    const name = stringOption(p, "type");
    const type = name === undefined ? undefined : TYPES[name.toLowerCase() as keyof typeof TYPES];
    if (name !== undefined && !type) throw new UsageError("--type", `got ${JSON.stringify(name)}; allowed: ${Object.keys(TYPES).join(", ")}`);
    const checkpoint = await openCheckpoint(files.input);
    try {
      if (checkpoint.kind === "gguf") throw new UsageError(files.input, "is a GGUF file; allowed: a .safetensors file or a model directory");
      const steps = await planGguf(checkpoint, { type, selected });
      const long = steps.filter((s) => Buffer.byteLength(s.spec.name) >= GGML_MAX_NAME).map((s) => s.spec.name);
      if (long.length > 0) {
        io.stderr(`note: ${long.length} tensor name(s) of ${GGML_MAX_NAME} bytes or more, which ggml (llama.cpp) refuses to load: ${long.join(", ")}\n`);
      }
      const progress = new Progress(
        io,
        steps.reduce((n, s) => n + s.elements, 0),
        steps.length,
      );
      let started = performance.now();
      const size = await writeGguf(
        checkpoint,
        steps,
        files.output,
        {
          architecture: stringOption(p, "arch"),
          force: files.force,
          fsync: files.fsync,
          // Workers plan the same steps from the input and these options.
          plan: {
            input: files.input,
            type,
            ...(p.values.only !== undefined && { selected: checkpoint.tensors.filter((t) => selected(t.name)).map((t) => t.name) }),
          },
          ...(files.threads !== undefined && { threads: files.threads }),
        },
        {
          advance: (n, i, tensor) => progress.advance(n, i, tensor),
          finished(i, tensor, how) {
            progress.finished(i, tensor, `${how}, ${((performance.now() - started) / 1000).toFixed(2)} s`);
            started = performance.now();
          },
        },
      ).finally(() => progress.end());
      const readers = [...checkpoint.readers.values()];
      const input = readers.reduce((n, r) => n + r.dataStart + (r.tensors.at(-1)?.end ?? 0), 0);
      const stored = readers.reduce((n, r) => n + r.tensors.length, 0);
      io.stdout(`wrote ${files.output}: ${steps.length} GGUF tensor(s) from ${stored}; ${bytes(input)} -> ${bytes(size)}\n`);
    } finally {
      await checkpoint.close();
    }
    return 0;
  },
};
