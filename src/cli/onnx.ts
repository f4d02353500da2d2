// `minifloat onnx`: weight-only quantization of ONNX models and a listing of their tensors (src/onnx does the work;
// loaded on first use, so the other commands never parse protobufjs).
import { readFile } from "node:fs/promises";
import { fsError } from "../io/fs-errors.js";
import { MX_SCHEMES } from "../block/mx.js";
import type { OnnxQuantizeOptions } from "../onnx/index.js";
import { UsageError, globMatcher, integerOption, parseCommand, stringOption } from "./args.js";
import type { CliIO, Command } from "./io.js";
import { bytes, renderTable } from "./text.js";

const HELP = `Usage: minifloat onnx quantize <in.onnx> --to <format> --mode qdq|fake [--scale axis|tensor|none] [--block <n>] -o <out.onnx>
       minifloat onnx inspect <in.onnx>

quantize: the float32/float16 weights of MatMul (B), Gemm (B) and Conv (W) nodes, from initializers or Constant
nodes, each read only as such a weight; every other tensor is left as it is. The input is never modified; the
output appears only when complete.

  --mode qdq     element codes + scales + a DequantizeLinear node per weight (whose output keeps the weight's
                 name). --to float8_e4m3fn | float8_e5m2 (opset 19; 21 with --block), int4 (opset 21),
                 float4_e2m1fn (opset 23), or mxfp8_e4m3 | mxfp8_e5m2 | mxfp4 (blocked, power-of-two scales).
                 The opset is raised only if no operator of the graph changed its signature in between; scales
                 are float32 (float16 for float16 weights).
  --mode fake    the dequantized values written back in the weight's own type: any format of at most 16 bits
                 (P3109 names such as Binary8p3se included), or a block scheme with blocks along the reduction
                 axis (--block overrides the scheme's block size):
                 ${MX_SCHEMES.join(", ")}.
  --to <format>  target format or block scheme (see above)
  --scale <s>    axis: one scale per output channel (default); tensor: one scale; none: no scale (fake mode)
  --block <n>    one scale per block of n elements along the reduction axis (K of MatMul/Gemm; for Conv the
                 whole reduction, input channels × kernel, with a Reshape after DequantizeLinear)
  --only <glob>  quantize only weights whose name matches (* any characters, ? one); repeatable
  -o, --output   output .onnx file
  --force        replace an existing output file
  --verbose      stack traces on errors

Scale rule: s = amax / MaxFinite(format), rounded once (1 when amax = 0); codes = round-to-nearest-even(w / s)
saturated to ±MaxFinite, computed exactly. At the end a table lists per weight its shape and the error of the
values the model now computes with (relative ‖ŵ − w‖ / ‖w‖ and max |ŵ − w|).

inspect: ir_version, opsets and every initializer and Constant tensor with dtype, shape and size.
`;

const OPTIONS = {
  to: { type: "string" },
  mode: { type: "string" },
  scale: { type: "string" },
  block: { type: "string" },
  only: { type: "string", multiple: true },
  output: { type: "string", short: "o" },
  force: { type: "boolean" },
} as const;

/** A library error about `options.<name>` as one about the command's `--<name>` (same class; options named in its words too). */
function asOption(e: unknown): unknown {
  const argument = (e as { argument?: unknown }).argument;
  if (!(e instanceof Error) || typeof argument !== "string" || !argument.startsWith("options.")) return e;
  const option = `--${argument.slice("options.".length)}`;
  const words = e.message.slice(argument.length + 2).replace(/\boptions\.(\w+)/g, "--$1");
  return new (e.constructor as new (argument: string, message: string) => Error)(option, words);
}

async function quantize(args: readonly string[], io: CliIO): Promise<number> {
  const p = parseCommand("onnx quantize", args, OPTIONS, ["in.onnx"]);
  const to = stringOption(p, "to");
  if (to === undefined) throw new UsageError("--to", "is required; allowed: a format name, int4 or a block scheme (minifloat onnx --help)");
  const mode = stringOption(p, "mode");
  if (mode !== "qdq" && mode !== "fake") throw new UsageError("--mode", `got ${JSON.stringify(mode ?? null)}; allowed: qdq or fake`);
  const scale = stringOption(p, "scale");
  if (scale !== undefined && !["axis", "tensor", "none"].includes(scale))
    throw new UsageError("--scale", `got ${JSON.stringify(scale)}; allowed: axis, tensor or none`);
  const block = integerOption(p, "block", 1, 2 ** 20);
  const output = stringOption(p, "output");
  if (output === undefined) throw new UsageError("--output", "is required; allowed: the path of the new .onnx file");
  const options: OnnxQuantizeOptions & { force: boolean } = {
    to,
    mode,
    ...(scale !== undefined && { scale: scale as "axis" | "tensor" | "none" }),
    ...(block !== undefined && { block }),
    select: globMatcher((p.values.only as string[] | undefined) ?? []),
    force: p.values.force === true,
  };
  const { quantizeOnnxFile } = await import("../onnx/index.js");
  const report = await quantizeOnnxFile(p.positionals[0]!, output, options).catch((e) => {
    throw asOption(e);
  });
  const rows = report.weights.map((w) => [
    w.name,
    w.ops.join(", "),
    w.dtype,
    `[${w.shape.join(", ")}]`,
    w.relativeError.toExponential(3),
    w.maxAbsError.toExponential(3),
  ]);
  io.stdout(`${output}: ${report.weights.length} weight(s) quantized to ${to} (${mode})`);
  io.stdout(report.opset.to !== report.opset.from ? `, opset ${report.opset.from} → ${report.opset.to}\n\n` : "\n\n");
  io.stdout(renderTable(["weight", "op", "dtype", "shape", "rel. error", "max |error|"], rows, [4, 5]));
  for (const s of report.skipped) io.stdout(`left as it is: ${s.name}: ${s.reason}\n`);
  return 0;
}

async function inspect(args: readonly string[], io: CliIO): Promise<number> {
  const p = parseCommand("onnx inspect", args, {}, ["in.onnx"]);
  const path = p.positionals[0]!;
  let data: Uint8Array;
  try {
    data = await readFile(path);
  } catch (e) {
    throw fsError(e, path);
  }
  const { inspectOnnx } = await import("../onnx/index.js");
  const m = inspectOnnx(data);
  const total = m.tensors.reduce((a, t) => a + t.bytes, 0);
  io.stdout(`${path}: ${bytes(data.length)}, ir_version ${m.irVersion}, opset ${m.opsets.map((o) => `${o.domain || "ai.onnx"} ${o.version}`).join(", ")}, `);
  io.stdout(`${m.nodes} node(s), ${m.tensors.length} tensor(s) of ${bytes(total)}\n\n`);
  const rows = m.tensors.map((t) => [t.name, t.source, t.dtype, `[${t.shape.join(", ")}]`, `${bytes(t.bytes)}${t.external ? " (external)" : ""}`]);
  io.stdout(renderTable(["tensor", "source", "dtype", "shape", "size"], rows, [4]));
  return 0;
}

export const onnxCommand: Command = {
  name: "onnx",
  summary: "quantize the weights of an ONNX model (qdq or fake); list its tensors",
  help: HELP,
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === "quantize") return quantize(rest, io);
    if (sub === "inspect") return inspect(rest, io);
    throw new UsageError("onnx", `got ${JSON.stringify(sub ?? null)}; allowed: quantize or inspect (minifloat onnx --help)`);
  },
};
