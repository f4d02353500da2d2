// `minifloat inspect`: the tensors of a safetensors file, their dtypes, shapes and value statistics.
import { stat } from "node:fs/promises";
import { blockLayouts, readBlockRows } from "../io/blocks.js";
import { SafetensorsReader } from "../io/reader.js";
import { globMatcher, parseCommand } from "./args.js";
import { CHUNK_ELEMENTS } from "./convert-file.js";
import type { Command } from "./io.js";
import { ValueStats, binadeHistogram } from "./stats.js";
import { bytes, num, percent, renderTable } from "./text.js";

const HELP = `Usage: minifloat inspect <file.safetensors> [--only <glob>]

Lists every tensor (dtype, the format recorded for U8/U16 codes or the block scheme, shape, elements) with value
statistics of the floating-point ones (min, max, mean, standard deviation, zeros, NaN/Inf; block-scaled tensors
decoded with their scales), then a histogram of |x| by binade over those tensors (scales excluded), and the
file's __metadata__. The file is only read.

Options:
  --only <glob>   only tensors whose name matches (* any characters, ? one); repeatable
  --verbose       stack traces on errors
`;

export const inspectCommand: Command = {
  name: "inspect",
  summary: "list tensors, dtypes, shapes, value statistics and a histogram",
  help: HELP,
  async run(args, io) {
    const p = parseCommand("inspect", args, { only: { type: "string", multiple: true } }, ["file"]);
    const path = p.positionals[0]!;
    const selected = globMatcher((p.values.only as string[] | undefined) ?? []);
    const reader = await SafetensorsReader.open(path);
    try {
      const all = new ValueStats();
      const rows: string[][] = [];
      let parameters = 0;
      const blocks = blockLayouts(reader);
      const scalesOf = new Map([...blocks.values()].map((b) => [b.scales.name, b]));
      for (const t of reader.tensors) {
        parameters += t.length;
        if (!selected(t.name)) continue;
        const block = blocks.get(t.name);
        const owner = scalesOf.get(t.name);
        const note = block ? block.scheme.name : owner ? `${owner.scheme.name} scales` : t.format && t.info.format !== t.format.name ? t.format.name : "";
        const head = [t.name, note ? `${t.dtype} (${note})` : t.dtype, `[${t.shape.join(", ")}]`, String(t.length)];
        if (!t.format && !block) {
          rows.push([...head, "", "", "", "", "", ""]);
          continue;
        }
        const s = new ValueStats();
        if (block) {
          // Block-scaled values: whole rows, decoded with their scales.
          const L = Math.max(block.rowLength, 1);
          const rows = Math.max(1, Math.floor(CHUNK_ELEMENTS / L));
          for (let row = 0; row * L < t.length; row += rows) s.add(await readBlockRows(reader, block, row, Math.min(rows, t.length / L - row)));
        } else {
          for (let start = 0; start < t.length; start += CHUNK_ELEMENTS) {
            s.add(await reader.readValues(t, start, Math.min(CHUNK_ELEMENTS, t.length - start)));
          }
        }
        // Scale codes are not weights: they stay out of the histogram.
        if (!owner) all.merge(s);
        rows.push([...head, num(s.min), num(s.max), num(s.mean), num(s.std), percent(s.zeros, s.count), String(s.nan + s.infinite)]);
      }
      const size = (await stat(path)).size;
      io.stdout(`${path}: ${reader.tensors.length} tensor(s), ${parameters} elements, ${bytes(size)} (header ${bytes(reader.dataStart)})\n\n`);
      io.stdout(renderTable(["tensor", "dtype", "shape", "elements", "min", "max", "mean", "std", "zeros", "NaN/Inf"], rows, [3, 4, 5, 6, 7, 8, 9]));
      if (all.count > 0) io.stdout(`\n|x| by binade over ${all.count} floating-point elements:\n${binadeHistogram(all)}`);
      const meta = Object.entries(reader.metadata);
      // --only selects tensors: the file-wide metadata would bury them.
      if (meta.length > 0 && p.values.only !== undefined) io.stdout(`\n__metadata__: ${meta.length} entries (listed without --only)\n`);
      else if (meta.length > 0) io.stdout(`\n__metadata__:\n${meta.map(([k, v]) => `  ${k}: ${v.length > 100 ? `${v.slice(0, 100)}…` : v}`).join("\n")}\n`);
      return 0;
    } finally {
      await reader.close();
    }
  },
};
