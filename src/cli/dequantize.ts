// `minifloat dequantize`: every floating-point tensor (minifloat formats and block-scaled tensors included) back
// to F32, F16 or BF16.
import { BLOCK_KEY_PREFIX, type BlockLayout, blockLayouts, readBlockRows } from "../io/blocks.js";
import type { TensorInfo } from "../io/header.js";
import type { SafetensorsReader } from "../io/reader.js";
import { UsageError, stringOption } from "./args.js";
import { CHUNK_ELEMENTS, type TensorPlan, convertFile, parseConvertCommand } from "./convert-file.js";
import type { Command } from "./io.js";
import { bytes } from "./text.js";

const TARGETS: Record<string, string> = { f32: "F32", f16: "F16", bf16: "BF16" };

const HELP = `Usage: minifloat dequantize <in.safetensors> --to f32|f16|bf16 -o <out.safetensors> [options]

Converts every floating-point tensor to the target dtype: safetensors float dtypes (F8_E4M3, F4, F6_*, ...),
tensors whose format is recorded in __metadata__ ("minifloat.dtype.<tensor>", written by quantize) and
block-scaled tensors ("minifloat.block.<tensor>": their "<tensor>.scales" are folded in and dropped).
Values are decoded exactly; f16/bf16 targets then round to nearest, ties to even. Integer tensors and tensors
already in the target dtype are copied unchanged. The input is never modified.

Options:
  --to <dtype>          f32, f16 or bf16
  --only <glob>         convert only tensors whose name matches (* any characters, ? one); repeatable
  -o, --output <path>   output file
  --force               replace an existing output file
  --verbose             stack traces on errors
`;

export const dequantizeCommand: Command = {
  name: "dequantize",
  summary: "convert a file's minifloat and block-scaled tensors back to f32, f16 or bf16",
  help: HELP,
  async run(args, io) {
    const { p, files, selected } = parseConvertCommand("dequantize", args, { to: { type: "string" } });
    const to = stringOption(p, "to");
    const dtype = to === undefined ? undefined : TARGETS[to.toLowerCase()];
    if (!dtype) throw new UsageError("--to", `got ${to === undefined ? "nothing" : JSON.stringify(to)}; allowed: f32, f16 or bf16`);
    let blocks: Map<string, BlockLayout> | undefined;
    /** Block layouts whose tensor is converted (their scales and records are dropped). */
    const folded = new Set<string>();
    const result = await convertFile(
      {
        ...files,
        plan(t, reader): TensorPlan {
          blocks ??= blockLayouts(reader);
          const block = blocks.get(t.name);
          if (block && selected(t.name)) {
            folded.add(t.name);
            return { specs: [{ name: t.name, dtype, shape: t.shape }], convert: blockConversion(reader, block) };
          }
          const owner = [...blocks.values()].find((b) => b.scales.name === t.name);
          if (owner && selected(owner.elements.name)) return { specs: [] };
          if (owner || !(t.format !== undefined && t.dtype !== dtype && selected(t.name))) {
            const recorded = t.format !== undefined && (t.dtype === "U8" || t.dtype === "U16");
            return { specs: [{ name: t.name, dtype: t.dtype, shape: t.shape, ...(recorded && { format: t.format }) }] };
          }
          return {
            specs: [{ name: t.name, dtype, shape: t.shape }],
            convert: { chunk: async (start, count, writer) => writer.writeValues(await reader.readValues(t, start, count)) },
          };
        },
        nothingToConvert: `has no floating-point tensor${p.values.only ? " matching --only" : ""} that is not already ${dtype}`,
        metadata: (m) => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(m)) {
            if (k !== "minifloat.quantized" && !(k.startsWith(BLOCK_KEY_PREFIX) && folded.has(k.slice(BLOCK_KEY_PREFIX.length)))) out[k] = v;
          }
          return out;
        },
        converted: (t, seconds) => `${describeSource(t, blocks?.get(t.name))} -> ${dtype}, ${seconds.toFixed(2)} s`,
      },
      io,
    );
    io.stdout(
      `wrote ${files.output}: ${result.converted} tensor(s) converted to ${dtype}, ${result.copied} copied; ${bytes(result.inputBytes)} -> ${bytes(result.outputBytes)}\n`,
    );
    return 0;
  },
};

/** Whole rows per chunk, decoded block by block with their scales. */
function blockConversion(reader: SafetensorsReader, b: BlockLayout): TensorPlan["convert"] {
  const L = Math.max(b.rowLength, 1);
  const rowsPerChunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / L));
  return {
    chunkElements: rowsPerChunk * L,
    chunk: async (start, count, writer) => writer.writeValues(await readBlockRows(reader, b, start / L, count / L)),
  };
}

function describeSource(t: TensorInfo, block: BlockLayout | undefined): string {
  if (block) return `${t.dtype} (${block.scheme.name})`;
  return `${t.dtype}${t.info.format === t.format?.name ? "" : ` (${t.format!.name})`}`;
}
