// `minifloat quantize <in> --scheme <name> -o <dir>`: a model into another tool's quantized checkpoint convention.
import { MX_SCHEMES } from "../block/index.js";
import { produceCheckpoint } from "../checkpoint/produce-files.js";
import { type Granularity, PRODUCED_SCHEMES, type ProducedScheme } from "../checkpoint/scales.js";
import { UsageError, globMatcher, integerOption, parseCommand, stringOption } from "./args.js";
import type { CliIO } from "./io.js";
import { ErrorStats, errorReport } from "./stats.js";

const GRANULARITIES: readonly Granularity[] = ["tensor", "channel", "block"];

export const SCHEME_HELP = `
Checkpoint conventions of other tools (docs/cli.md has every formula):
  minifloat quantize <in.safetensors | model dir> --scheme <name> -o <out dir> [--granularity g] [--only glob]
  --scheme <name>        ${PRODUCED_SCHEMES.slice(0, 3).join(", ")},
                         ${PRODUCED_SCHEMES.slice(3).join(", ")}
  --granularity <g>      compressed-tensors-fp8 only: ${GRANULARITIES.join(", ")} (default tensor)
  --threads <n>          worker threads for weights of ≥ 2^22 elements (default: the logical processors, at most 8, on 3 or more; else 1: none)
Writes a model directory: every shard under its own name with the scale tensors beside their weights, the shard
index updated, config.json's quantization_config set (ModelOpt: hf_quant_config.json), other files copied. 2-D
"*.weight" tensors are quantized along K of [N, K] except lm_head, embeddings, norms and MoE routers
(gpt-oss-mxfp4: the MoE expert tensors); --only <glob> chooses the tensors instead. The scales follow each
tool's float32 arithmetic, so the files equal the tool's own.
`;

export async function quantizeCheckpoint(args: readonly string[], io: CliIO): Promise<number> {
  const p = parseCommand(
    "quantize",
    args,
    {
      scheme: { type: "string" },
      granularity: { type: "string" },
      only: { type: "string", multiple: true },
      output: { type: "string", short: "o" },
      force: { type: "boolean" },
      fsync: { type: "boolean" },
      threads: { type: "string" },
    },
    ["in.safetensors | model dir"],
  );
  const name = stringOption(p, "scheme")!;
  if (!(PRODUCED_SCHEMES as readonly string[]).includes(name)) {
    const block = (MX_SCHEMES as readonly string[]).includes(name) ? ` (minifloat's own ${name} layout is --block ${name})` : "";
    throw new UsageError("--scheme", `got ${JSON.stringify(name)}; allowed: ${PRODUCED_SCHEMES.join(", ")}${block}`);
  }
  const scheme = name as ProducedScheme;
  const g = stringOption(p, "granularity");
  if (g !== undefined && scheme !== "compressed-tensors-fp8") {
    throw new UsageError("--granularity", `not allowed with ${scheme}, whose blocks are fixed; allowed with compressed-tensors-fp8`);
  }
  if (g !== undefined && !(GRANULARITIES as readonly string[]).includes(g)) {
    throw new UsageError("--granularity", `got ${JSON.stringify(g)}; allowed: ${GRANULARITIES.join(", ")}`);
  }
  const output = stringOption(p, "output");
  if (output === undefined) throw new UsageError("--output", "is required; allowed: the path of the new model directory");
  const only = p.values.only as string[] | undefined;
  const threads = integerOption(p, "threads", 1, 256);
  const stats = new Map<string, ErrorStats>();
  const started = performance.now();
  const result = await produceCheckpoint({
    input: p.positionals[0]!,
    output,
    scheme,
    granularity: (g ?? "tensor") as Granularity,
    ...(only && { selected: globMatcher(only) }),
    force: p.values.force === true,
    fsync: p.values.fsync === true,
    ...(threads !== undefined && { threads }),
    progress: (shard, quantized, copied) => io.stderr(`${shard}: ${quantized} tensor(s) quantized, ${copied} copied\n`),
    observe(tensor, sums, elements) {
      if (!stats.has(tensor)) stats.set(tensor, new ErrorStats());
      stats.get(tensor)!.addSums(sums, elements);
    },
    quantized(tensor, seconds) {
      stats.get(tensor)!.seconds = seconds;
    },
  });
  io.stdout(errorReport(stats, { saturated: false }));
  const seconds = (performance.now() - started) / 1000;
  io.stdout(
    `\nwrote ${output}: ${result.quantized.length} weight(s) in ${scheme}${scheme === "compressed-tensors-fp8" ? ` (${g ?? "tensor"})` : ""}, ${result.copied} tensor(s) copied, ${result.shards} shard(s) in ${seconds.toFixed(1)} s\n`,
  );
  return 0;
}
