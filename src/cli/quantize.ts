// `minifloat quantize`: every selected floating-point tensor of a safetensors file into one format or one block
// scheme, with an error report per tensor.
import { type BlockScheme, MX_SCHEMES, type SchemeName, blockScheme, quantizeBlocks } from "../block/index.js";
import { dequantizeBlockRows, quantizeBlockRows } from "../block/rows.js";
import { maxValue, scaleValues } from "../block/mx.js";
import { ArgumentTypeError, FormatError, ProjectionError } from "../errors.js";
import { decode } from "../api/scalar.js";
import { ROUNDINGS, type Rounding, SATURATIONS, type Saturation, isStochastic, resolveProjection } from "../exact/projection.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { BLOCK_KEY_PREFIX, blockRecord, blockRowLength, blockSpecs } from "../io/blocks.js";
import { dtypeInfo, storageOf } from "../io/dtypes.js";
import type { TensorInfo, TensorSpec } from "../io/header.js";
import { dequantize, quantize } from "../io/kernels.js";
import type { SafetensorsReader } from "../io/reader.js";
import { type Parsed, UsageError, integerOption, stringOption } from "./args.js";
import { SCHEME_HELP, quantizeCheckpoint } from "./quantize-checkpoint.js";
import { CHUNK_ELEMENTS, type RemoteConversion, type TensorPlan, convertFile, parseConvertCommand } from "./convert-file.js";
import type { Command } from "./io.js";
import { ErrorStats, MIN_TIMED_ELEMENTS, errorReport } from "./stats.js";
import { QuantizeWorkspace } from "./workspace.js";
import { countOverflows, overflowLimit } from "./overflow.js";
import { newFlags } from "../exact/cast.js";
import { bytes, num, rate } from "./text.js";

const HELP = `Usage: minifloat quantize <in.safetensors> (--to <format> | --block <scheme>) -o <out.safetensors> [options]
       minifloat quantize <in.safetensors | model dir> --scheme <convention> -o <out dir> [options]

Quantizes the floating-point tensors of 16 bits or more (F16, BF16, F32, F64) into <format> or a block scheme;
every other tensor is copied unchanged. The input is never modified; the output appears only when complete.

Options:
  --to <format>          target format: a P3109 name (Binary8p3se), an ml_dtypes name (float8_e4m3fn,
                         float4_e2m1fn, ...), a safetensors alias (F8_E4M3) or an IEEE name (binary16)
  --block <scheme>       block-scaled instead: ${MX_SCHEMES.join(", ")}; blocks run along K, the
                         product of the dimensions after the first (a conv weight [O, I, kh, kw] has
                         rows of I·kh·kw), with a partial last block per row
  --rounding <mode>      ${ROUNDINGS.join(", ")}
                         (default NearestTiesToEven; --block takes the deterministic modes)
  --saturation <mode>    ${SATURATIONS.join(", ")} (default SatFinite: overflow clamps to MaxFinite;
                         block elements always saturate)
  --stochastic-bits <n>  random bits N of the stochastic roundings (1 to 32)
  --seed <n>             seed of the stochastic roundings (0 to 4294967295); element i of every tensor uses
                         R_i of the library's counter-based generator, so results do not depend on chunking
  --only <glob>          quantize only tensors whose name matches (* any characters, ? one); repeatable
  -o, --output <path>    output file
  --force                replace an existing output file
  --fsync                flush the output to the disk before moving it into place (survives a power loss;
                         without it the output is still never partial: written aside, then moved into place)
  --threads <n>          worker threads for tensors of ≥ 2^22 elements with --to, a deterministic rounding and
                         codes of 8 or 16 bits (default 1: on two cores they measured about even)
  --verbose              stack traces on errors

Formats with their own safetensors dtype are stored with it (F8_E4M3, F8_E5M2, F8_E8M0, F6_E2M3, F6_E3M2,
F4 packed, F16, BF16); any other format is stored as U8 (up to 8 bits) or U16 codes and recorded in
__metadata__ as "minifloat.dtype.<tensor>": "<format>". A block-quantized tensor keeps its name for the element
codes (F8_E4M3, F8_E5M2, F6_*, F4 or I8 for mxint8), adds "<tensor>.scales" (F8_E8M0, or F8_E4M3 for nvfp4) of
shape [..., ceil(K / block size)] ([shape[0], ceil(K / block size)] for 3 or more dimensions) and records
"minifloat.block.<tensor>": "<scheme>" (nvfp4 adds " tensor_scale=<T>", its second-level float32 scale
amax / (448·6); tensors of 3 or more dimensions add " row_length=<K>"). F64 tensors are read as float32 for blocks.

At the end a table lists per tensor: elements, RMSE, max |error|, relative error ‖y−x‖/‖x‖, % saturated
(inputs that round beyond the largest value their block or format holds: overflow is judged after rounding),
% flushed to zero (nonzero inputs that became 0) and throughput (for tensors of at least 65536 elements;
smaller ones take too little time to measure).
${SCHEME_HELP}`;

/** What every selected tensor becomes. */
interface Target {
  /** "<format> <rounding> <saturation>…", the "minifloat.quantized" metadata. */
  readonly description: string;
  /** The same for the summary line: "<format> (<rounding>, …)". */
  readonly summary: string;
  plan(t: TensorInfo, reader: SafetensorsReader, stats: ErrorStats): Promise<TensorPlan>;
  /** Metadata records of the planned tensors. */
  readonly records: Map<string, string>;
  /** Releases what the conversion held (Wasm buffers, once no read into them is in flight). */
  dispose?(): void | Promise<void>;
}

export const quantizeCommand: Command = {
  name: "quantize",
  summary: "quantize a safetensors file's float tensors into a format or block scheme, with an error report",
  help: HELP,
  async run(args, io) {
    if (args.some((a) => a === "--scheme" || a.startsWith("--scheme="))) return quantizeCheckpoint(args, io);
    const { p, files, selected } = parseConvertCommand("quantize", args, {
      to: { type: "string" },
      block: { type: "string" },
      rounding: { type: "string" },
      saturation: { type: "string" },
      "stochastic-bits": { type: "string" },
      seed: { type: "string" },
    });
    const target = stringOption(p, "block") !== undefined ? blockTarget(p) : formatTarget(p);
    const stats = new Map<string, ErrorStats>();
    const result = await convertFile(
      {
        ...files,
        async plan(t, reader) {
          if (!(t.format !== undefined && t.info.bits >= 16 && selected(t.name))) return { specs: [passThrough(t)] };
          const s = new ErrorStats();
          stats.set(t.name, s);
          return target.plan(t, reader, s);
        },
        nothingToConvert: `has no F16/BF16/F32/F64 tensor${p.values.only ? " matching --only" : ""} to quantize`,
        metadata: (m) => {
          const out: Record<string, string> = { ...m, "minifloat.quantized": target.description };
          for (const [name, record] of target.records) out[BLOCK_KEY_PREFIX + name] = record;
          return out;
        },
        converted(t, seconds) {
          const s = stats.get(t.name)!;
          s.seconds = seconds;
          return s.elements >= MIN_TIMED_ELEMENTS ? `RMSE ${num(s.rmse)}, ${rate(s.elements, seconds)}` : `RMSE ${num(s.rmse)}`;
        },
      },
      io,
    ).finally(() => target.dispose?.());
    io.stdout(errorReport(stats, { saturated: true }));
    io.stdout(
      `\nwrote ${files.output}: ${result.converted} tensor(s) quantized to ${target.summary}, ${result.copied} copied; ${bytes(result.inputBytes)} -> ${bytes(result.outputBytes)}\n`,
    );
    return 0;
  },
};

/** --to: one format, element by element, with the full projection vocabulary. */
function formatTarget(p: Parsed): Target {
  const to = stringOption(p, "to");
  if (to === undefined) throw new UsageError("--to", "is required; allowed: a format name, e.g. float8_e4m3fn or Binary8p3se (or --block <scheme>)");
  let fmt: Format;
  try {
    fmt = format(to);
  } catch (e) {
    if (e instanceof FormatError) throw new UsageError("--to", e.message.slice(e.argument.length + 2));
    throw e;
  }
  if (fmt.K > 16) throw new UsageError("--to", `${fmt.name} has ${fmt.K}-bit codes; allowed: formats of up to 16 bits (use dequantize --to f32 for float32)`);
  const rounding = (stringOption(p, "rounding") ?? "NearestTiesToEven") as Rounding;
  const saturation = (stringOption(p, "saturation") ?? "SatFinite") as Saturation;
  const stochasticBits = integerOption(p, "stochastic-bits", 1, 32);
  const seed = integerOption(p, "seed", 0, 0xffffffff);
  if (isStochastic(rounding) !== (seed !== undefined)) {
    throw new UsageError(
      "--seed",
      seed === undefined
        ? `is required with ${rounding}; allowed: an integer in [0, 4294967295]`
        : `only allowed with StochasticA, StochasticB or StochasticC (rounding is ${rounding})`,
    );
  }
  try {
    resolveProjection(fmt, { rounding, saturation, ...(stochasticBits !== undefined && { stochasticBits }) });
  } catch (e) {
    if (!(e instanceof ProjectionError)) throw e;
    throw new UsageError(
      e.argument === "options.stochasticBits" ? "--stochastic-bits" : e.argument.replace("options.", "--"),
      e.message.slice(e.argument.length + 2),
    );
  }
  const storage = storageOf(fmt);
  const maxFinite = Math.abs(decode(fmt.maxFiniteCode, fmt));
  const limits = [overflowLimit(fmt, rounding, false), overflowLimit(fmt, rounding, true)] as const;
  let workspace: QuantizeWorkspace | undefined;
  return {
    description: `${fmt.name} ${rounding} ${saturation}${seed !== undefined ? ` seed=${seed} N=${stochasticBits}` : ""}`,
    summary: `${fmt.name} (${rounding}, ${saturation}${seed !== undefined ? `, seed ${seed}, N = ${stochasticBits}` : ""})`,
    records: new Map(),
    dispose: () => workspace?.close(),
    async plan(t, reader, s) {
      // Deterministic roundings of float32/16-bit inputs run in place in Wasm memory (the stochastic overflow check
      // below quantizes single elements, which may grow the memory under the workspace's views).
      if (!isStochastic(rounding) && QuantizeWorkspace.takes(t)) workspace ??= QuantizeWorkspace.create(fmt, CHUNK_ELEMENTS);
      const work = isStochastic(rounding) || !QuantizeWorkspace.takes(t) ? undefined : workspace;
      // Unpacked codes of a deterministic rounding through the workspace can go to worker threads, whose sums come
      // back per chunk in order.
      const bits = dtypeInfo(storage.dtype).bits;
      const remote: RemoteConversion | undefined =
        work && (bits === 8 || bits === 16)
          ? {
              bytesPerElement: bits / 8,
              job: (start, count, output) => ({
                op: "quantize",
                path: reader.path,
                tensor: t.name,
                kernels: true,
                format: fmt.toJSON(),
                rounding,
                saturation,
                limits,
                start,
                count,
                chunk: CHUNK_ELEMENTS,
                output,
              }),
              done: (sums, job) => {
                for (const [k, chunk] of sums.entries()) s.addSums(chunk, Math.min(CHUNK_ELEMENTS, job.count - k * CHUNK_ELEMENTS));
              },
            }
          : undefined;
      return {
        specs: [{ name: t.name, dtype: storage.dtype, shape: t.shape, ...(storage.recorded && { format: fmt }) }],
        convert: {
          ...(remote && { remote }),
          async chunk(start, count, writer) {
            if (work) {
              const { codes, sums } = await work.quantizeChunk(reader, t, { rounding, saturation }, { start: 0, end: t.length }, start, count, limits);
              s.addSums(sums, count);
              // Unpacked codes (U8, U16, F8_*, F16, BF16; not F4, F6_*) are their stored bytes: written from reused arrays.
              const bits = writer.next!.info.bits;
              if (bits === 8 || bits === 16) await writer.writeBytes(work.storedBytes(codes), { copy: false });
              else await writer.writeCodes(codes);
              return;
            }
            const x = await reader.readValues(t, start, count);
            // Seeded R_i is indexed by the element's place in its tensor (seedIndex), so chunking does not matter.
            const options = { rounding, saturation, ...(seed !== undefined && { stochasticBits: stochasticBits!, seed, seedIndex: start }) };
            const codes = quantize(x, fmt, options);
            await writer.writeCodes(codes);
            if (!isStochastic(rounding)) s.add(x, dequantize(codes, fmt), limits);
            else {
              s.add(x, dequantize(codes, fmt));
              // Whether R_i rounded past MaxFinite: the exact projection's overflow flag, for the few candidates.
              for (let i = 0; i < x.length; i++) {
                if (!(Math.abs(x[i]!) > maxFinite) || !Number.isFinite(x[i]!)) continue;
                const flags = newFlags();
                quantize(x.subarray(i, i + 1), fmt, { ...options, seedIndex: start + i, flags });
                s.overflowed += flags.overflow;
              }
            }
          },
        },
      };
    },
  };
}

/** --block: a block scheme along rows of K elements (src/io/blocks.ts); scale codes go to "<name>.scales" after the elements. */
function blockTarget(p: Parsed): Target {
  for (const option of ["to", "saturation", "seed", "stochastic-bits"]) {
    if (p.values[option] !== undefined)
      throw new UsageError(
        `--${option}`,
        "not allowed with --block (the scheme fixes the element format; elements always saturate; rounding is deterministic)",
      );
  }
  const name = stringOption(p, "block")!;
  const rounding = (stringOption(p, "rounding") ?? "NearestTiesToEven") as Rounding;
  let scheme: BlockScheme;
  try {
    scheme = blockScheme(name.toLowerCase() as SchemeName);
    quantizeBlocks(new Float32Array(0), scheme, { rounding });
  } catch (e) {
    if (e instanceof ArgumentTypeError && e.argument === "scheme")
      throw new UsageError("--block", `got ${JSON.stringify(name)}; allowed: ${MX_SCHEMES.join(", ")}`);
    if (e instanceof ProjectionError) throw new UsageError("--rounding", e.message.slice(e.argument.length + 2));
    throw e;
  }
  const records = new Map<string, string>();
  const scaleValue = scaleValues(scheme);
  const limits = [overflowLimit(scheme.element, rounding, false), overflowLimit(scheme.element, rounding, true)] as const;
  return {
    description: `${scheme.name} ${rounding}`,
    summary: `${scheme.name} (${rounding})`,
    records,
    async plan(t, reader, s) {
      const T = scheme.rule === "ratio" ? await tensorScale(reader, t, scheme) : 1;
      records.set(t.name, blockRecord(scheme, T, t.shape));
      const L = blockRowLength(t.shape);
      const B = scheme.blockSize;
      const perRow = Math.ceil(L / B);
      const scales = new Uint8Array((t.length / Math.max(L, 1)) * perRow);
      // Whole rows per chunk, quantized in one call (quantizeBlockRows pads a partial last block per row).
      const rowsPerChunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / Math.max(L, 1)));
      return {
        specs: blockSpecs(t.name, t.shape, scheme),
        convert: {
          chunkElements: rowsPerChunk * L,
          async chunk(start, count, writer) {
            const read = await reader.readValues(t, start, count);
            const x = read instanceof Float32Array ? read : Float32Array.from(read);
            const rows = count / L;
            const q = quantizeBlockRows(x, rows, L, scheme, { rounding, ...(scheme.rule === "ratio" && { tensorScale: T }) });
            if (scheme.twosComplement) await writer.writeBytes(q.codes);
            else await writer.writeCodes(q.codes);
            scales.set(q.scales, (start / L) * perRow);
            s.add(x, dequantizeBlockRows(q, rows, L, scheme, T, new Float32Array(count)));
            s.overflowed += countOverflows(x, limits[0], limits[1], { rowLength: L, blockSize: B, scale: (b) => scaleValue[q.scales[b]!]! * T });
          },
          async finish(writer) {
            // An empty tensor has no scales: the writer has already moved past its empty scale tensor.
            if (scales.length > 0) await writer.writeCodes(scales);
          },
        },
      };
    },
  };
}

/** NVFP4's second-level scale: fround(amax / (MaxFinite(scale)·MaxFinite(element))) over the finite |x|, or 1. */
async function tensorScale(reader: SafetensorsReader, t: TensorInfo, scheme: BlockScheme): Promise<number> {
  let amax = 0;
  for (let start = 0; start < t.length; start += CHUNK_ELEMENTS) {
    const x = await reader.readValues(t, start, Math.min(CHUNK_ELEMENTS, t.length - start));
    for (let i = 0; i < x.length; i++) {
      const a = Math.abs(Math.fround(x[i]!));
      if (a > amax && a !== Infinity) amax = a;
    }
  }
  const T = Math.fround(amax / (maxValue(scheme.scale) * maxValue(scheme.element)));
  return T > 0 && Number.isFinite(T) ? T : 1;
}

function passThrough(t: TensorInfo): TensorSpec {
  const recorded = t.format !== undefined && (t.dtype === "U8" || t.dtype === "U16");
  return { name: t.name, dtype: t.dtype, shape: t.shape, ...(recorded && { format: t.format }) };
}
