// `minifloat dequantize`: every floating-point tensor of a safetensors file, a model directory or a GGUF file to
// F32, F16 or BF16, scales folded in (the work is src/checkpoint/dequantize.ts).
import { NothingToConvertError, dequantizeCheckpoint } from "../checkpoint/dequantize.js";
import { UsageError, stringOption } from "./args.js";
import { parseConvertCommand } from "./convert-file.js";
import { describeTensor } from "./inspect.js";
import type { Command } from "./io.js";
import { Progress } from "./progress.js";
import { bytes } from "./text.js";

const TARGETS = { f32: "F32", f16: "F16", bf16: "BF16" } as const;

const HELP = `Usage: minifloat dequantize <file.safetensors | model directory | file.gguf> --to f32|f16|bf16 -o <out> [options]

Converts every floating-point tensor to the target dtype, scales folded in:
  quantized checkpoints of other tools (DeepSeek FP8, compressed-tensors FP8/NVFP4/MXFP4, ModelOpt FP8/NVFP4,
  gpt-oss MXFP4; docs/checkpoints.md): each weight with its scale tensors becomes one tensor, the scales dropped;
  minifloat's own block-scaled tensors ("minifloat.block.<tensor>" + "<tensor>.scales") likewise;
  narrow float dtypes (F8_E4M3, F4, F6_*, ...) and formats recorded in __metadata__ ("minifloat.dtype.<tensor>");
  GGUF tensors (F32, F16, BF16, Q8_0, MXFP4, NVFP4) into a .safetensors file.
Values are decoded exactly and rounded once to the target (round to nearest, ties to even). Integer tensors,
tensors already in the target dtype and the tensors another tool's checkpoint left unquantized are copied unchanged. A model directory (model.safetensors.index.json or one
*.safetensors) becomes a directory: the same shard names, a new index, config.json without quantization_config,
hf_quant_config.json left out, every other file copied. Nothing is written unless everything succeeds; the
input is never modified.

Options:
  --to <dtype>          f32, f16 or bf16
  --raw                 decode narrow weights without their scales; scale tensors stay, as plain tensors (no conventions applied)
  --only <glob>         convert only tensors whose name matches (* any characters, ? one); repeatable
  -o, --output <path>   output file (directory for a directory input)
  --force               replace an existing output
  --fsync               flush the output to the disk before moving it into place (survives a power loss;
                        without it the output is still never partial: written aside, then moved into place)
  --threads <n>         worker threads for tensors of ≥ 2^22 elements (default: the logical processors, at most 8, on 3 or more; else 1: none)
  --verbose             stack traces on errors
`;

export const dequantizeCommand: Command = {
  name: "dequantize",
  summary: "dequantize a file, model directory or GGUF file to f32, f16 or bf16 (scales folded in)",
  help: HELP,
  async run(args, io) {
    const { p, files, selected } = parseConvertCommand("dequantize", args, { to: { type: "string" }, raw: { type: "boolean" } });
    const to = stringOption(p, "to");
    const dtype = to === undefined ? undefined : TARGETS[to.toLowerCase() as keyof typeof TARGETS];
    if (!dtype) throw new UsageError("--to", `got ${to === undefined ? "nothing" : JSON.stringify(to)}; allowed: f32, f16 or bf16`);
    let progress: Progress | undefined;
    try {
      const result = await dequantizeCheckpoint(files.input, {
        to: dtype,
        output: files.output,
        force: files.force,
        fsync: files.fsync,
        raw: p.values.raw === true,
        ...(files.threads !== undefined && { threads: files.threads }),
        ...(p.values.only !== undefined && { selected }),
        progress: (elements, tensors) => {
          progress = new Progress(io, elements, tensors);
          return {
            advance: (n, index, name) => progress!.advance(n, index, name),
            finished: (index, t, seconds) => progress!.finished(index, t.name, `${describeTensor(t)} -> ${dtype}, ${seconds.toFixed(2)} s`),
          };
        },
      });
      progress?.end();
      const dropped = result.dropped > 0 ? ` (${result.dropped} scale tensor(s) folded in)` : "";
      io.stdout(
        `wrote ${files.output}: ${result.converted} tensor(s) converted to ${dtype}${dropped}, ${result.copied} copied; ${bytes(result.inputBytes)} -> ${bytes(result.outputBytes)}\n`,
      );
      return 0;
    } catch (e) {
      progress?.end();
      if (e instanceof NothingToConvertError) {
        const what = p.values.only !== undefined ? " matching --only" : "";
        throw new UsageError(files.input, `has no floating-point tensor${what} that is not already ${dtype}; no output written`);
      }
      throw e;
    }
  },
};
