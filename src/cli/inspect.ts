// `minifloat inspect`: the logical tensors of a safetensors file, model directory or GGUF file: scheme, dtype,
// shape, block shape and statistics of the dequantized values (scales applied), then a histogram.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { openCheckpoint } from "../checkpoint/open.js";
import type { CheckpointTensor } from "../checkpoint/recognize.js";
import { globMatcher, parseCommand } from "./args.js";
import { CHUNK_ELEMENTS } from "./convert-file.js";
import type { Command } from "./io.js";
import { ValueStats, binadeHistogram } from "./stats.js";
import { bytes, num, percent, renderTable } from "./text.js";

const HELP = `Usage: minifloat inspect <file.safetensors | model directory | file.gguf> [--only <glob>]

Lists every tensor group: a weight with its scale tensors, named by the convention it follows (deepseek-fp8,
compressed-tensors-fp8/-nvfp4/-mxfp4, modelopt-fp8/-nvfp4, gpt-oss-mxfp4; minifloat's block schemes such as mxfp4;
the format recorded for U8/U16 codes; GGUF types), its dtype, shape, elements and block shape, with statistics of
the dequantized values (min, max, mean, standard deviation, zeros, NaN/Inf; scales applied), each scale tensor
on a line of its own, then a histogram of |x| by binade over the weights (scales excluded), the quantization
config and the files' __metadata__. A model directory (model.safetensors.index.json or one *.safetensors) is
read shard by shard; config.json and hf_quant_config.json beside the input decide the convention. Only reads.

Options:
  --only <glob>   only tensors whose name matches (* any characters, ? one); repeatable
  --verbose       stack traces on errors
`;

/** A tensor's stored dtype with its scheme: "F8_E4M3 (deepseek-fp8)", "F4 (mxfp4)", "U8 (Binary8p3se)". */
export function describeTensor(t: CheckpointTensor): string {
  const stored = t.parts[0]!.dtype;
  const note = t.scheme === "plain" || t.scheme.startsWith("gguf:") ? "" : t.scheme === "minifloat-block" || t.scheme === "minifloat" ? t.dtype : t.scheme;
  return note && note !== stored ? `${stored} (${note})` : stored;
}

export const inspectCommand: Command = {
  name: "inspect",
  summary: "list tensor groups, schemes, shapes, dequantized value statistics and a histogram",
  help: HELP,
  async run(args, io) {
    const p = parseCommand("inspect", args, { only: { type: "string", multiple: true } }, ["file"]);
    const path = p.positionals[0]!;
    const selected = globMatcher((p.values.only as string[] | undefined) ?? []);
    const c = await openCheckpoint(path);
    try {
      const all = new ValueStats();
      const rows: string[][] = [];
      let parameters = 0;
      const note = (t: CheckpointTensor) => (t.scheme === "minifloat-block" ? t.dtype : t.scheme);
      for (const t of c.tensors) {
        const scaleElements = t.parts.slice(1).map((part) => part.shape.reduce((a, d) => a * d, 1));
        parameters += t.length + scaleElements.reduce((a, n) => a + n, 0);
        if (!selected(t.name)) continue;
        const block = t.blockShape ? `${t.blockShape[0]}×${t.blockShape[1]}` : "";
        const head = [t.name, describeTensor(t), `[${t.shape.join(", ")}]`, String(t.length)];
        if (!t.decodable) rows.push([...head, "", "", "", "", "", "", block]);
        else {
          const s = new ValueStats();
          const K = Math.max(1, t.shape[t.shape.length - 1] ?? 1);
          const step = Math.max(1, Math.floor(CHUNK_ELEMENTS / K)) * K;
          for (let start = 0; start < t.length; start += step) s.add(await c.read(t.name, start, Math.min(step, t.length - start)));
          all.merge(s);
          // Without finite values (an empty tensor, or NaN/±∞ only) there is nothing to state.
          const moments = s.finite > 0 ? [num(s.min), num(s.max), num(s.mean), num(s.std)] : ["-", "-", "-", "-"];
          rows.push([...head, ...moments, percent(s.zeros, s.count), String(s.nan + s.infinite), block]);
        }
        for (const [i, part] of t.parts.slice(1).entries()) {
          rows.push([part.name, `${part.dtype} (${note(t)} ${part.role}s)`, `[${part.shape.join(", ")}]`, String(scaleElements[i])]);
        }
      }
      const size = await sizeOf(c.kind === "directory" ? c.files.map((f) => join(path, f)) : [path]);
      const header = [...c.readers.values()].reduce((n, r) => n + r.dataStart, 0);
      const files = c.kind === "directory" ? ` in ${c.files.length} file(s)` : "";
      io.stdout(`${path}: ${c.tensors.length} tensor(s)${files}, ${parameters} elements, ${bytes(size)}${header ? ` (header ${bytes(header)})` : ""}\n`);
      if (c.quantization) io.stdout(`quantization config: ${JSON.stringify(c.quantization)}\n`);
      io.stdout("\n");
      io.stdout(renderTable(["tensor", "dtype", "shape", "elements", "min", "max", "mean", "std", "zeros", "NaN/Inf", "block"], rows, [3, 4, 5, 6, 7, 8, 9]));
      if (all.count > 0) io.stdout(`\n|x| by binade over ${all.count} floating-point elements:\n${binadeHistogram(all)}`);
      const meta = [...c.readers.values()].flatMap((r) => Object.entries(r.metadata));
      const unique = [...new Map(meta).entries()];
      // --only selects tensors: the file-wide metadata would bury them.
      if (unique.length > 0 && p.values.only !== undefined) io.stdout(`\n__metadata__: ${unique.length} entries (listed without --only)\n`);
      else if (unique.length > 0) io.stdout(`\n__metadata__:\n${unique.map(([k, v]) => `  ${k}: ${v.length > 100 ? `${v.slice(0, 100)}…` : v}`).join("\n")}\n`);
      return 0;
    } finally {
      await c.close();
    }
  },
};

async function sizeOf(paths: readonly string[]): Promise<number> {
  let n = 0;
  for (const p of paths) n += (await stat(p)).size;
  return n;
}
