// One weight tensor into a checkpoint convention: which tensors a scheme quantizes, the names, dtypes and shapes
// of what it writes, and the streaming quantization of a [N, K] row view in bands of block rows. Every scheme
// takes the same path; only its ScaleRule (scales.ts) differs. Element codes are rounded once by the library's
// quantize from the tool's float32 quotient fl32(W / S) (two roundings, as the tools do: the files equal theirs).
import { packCodes } from "../api/packed.js";
import type { TensorInfo, TensorSpec } from "../io/header.js";
import { format } from "../format/registry.js";
import { dequantize, quantize } from "../io/kernels.js";
import { SafetensorsError } from "../io/errors.js";
import type { SafetensorsReader } from "../io/reader.js";
import type { SafetensorsWriter } from "../io/writer.js";
import { kernelStatus, kernels } from "../wasm/instance.js";
import { WasmArray, keep } from "../wasm/memory.js";
import { transposeWasm } from "../wasm/transpose.js";
import type { BlockGrid } from "../wasm/bands.js";
import { blockAmax, blockScale } from "../block/bands.js";
import { NO_OVERFLOW, errorSums } from "../io/error-sums.js";
import type { ErrorSums } from "../wasm/stats.js";
import { type AmaxJob, type JobContext, type JobRunner, type ProduceBandJob, type ProduceBandResult, inOrder } from "./jobs.js";
import { type Granularity, type ProducedScheme, type ScaleRule, scaleRule } from "./scales.js";

const BF16 = format("bfloat16");

/** Elements per band (about 4 MB of float32), rounded to whole block rows. */
const BAND_ELEMENTS = 1 << 20;

/** gpt-oss MoE expert weights (transformers GptOssExperts, [E, K, N]). */
const EXPERT = /\.mlp\.experts\.(?:gate_up_proj|down_proj)$/;
/** Weights the conventions leave in high precision: output head, embeddings, norms and MoE routers ("mlp.gate"). */
const KEPT = /(?:^|\.)(?:lm_head|embed_tokens|embeddings?|wte|wpe|gate|router|[a-z_]*norm[a-z_0-9]*)\.weight$/;

export interface ProducedTensor {
  /** Output tensors in file order: elements, block scales, then the second-level scale if any. */
  readonly specs: readonly TensorSpec[];
  /** Module name (the weight's name without ".weight"; for gpt-oss the experts' parameter name). */
  readonly module: string;
  /**
   * Writes the output tensors, its jobs run by `runner`; `observe` receives the error sums of each band's decoded
   * values against its input, in band order.
   */
  write(reader: SafetensorsReader, writer: SafetensorsWriter, runner: JobRunner, observe?: (sums: ErrorSums, elements: number) => void): Promise<void>;
}

/** Whether `t` is a tensor the scheme quantizes: floating point of ≥ 16 bits, and the convention's kind of weight. */
export function isCandidate(t: TensorInfo, scheme: ProducedScheme, selected: ((name: string) => boolean) | undefined): boolean {
  if (t.format === undefined || t.info.bits < 16 || t.length === 0) return false;
  if (scheme === "gpt-oss-mxfp4") return t.shape.length === 3 && (selected ? selected(t.name) : EXPERT.test(t.name));
  if (t.shape.length !== 2) return false;
  return selected ? selected(t.name) : t.name.endsWith(".weight") && !KEPT.test(t.name);
}

/** Output names of a quantized weight per scheme: [elements, block scales, second-level scale]. */
function outputNames(scheme: ProducedScheme, name: string): [string, string, string?] {
  const base = name.endsWith(".weight") ? name.slice(0, -".weight".length) : name;
  switch (scheme) {
    case "deepseek-fp8":
      return [name, `${base}.weight_scale_inv`];
    case "compressed-tensors-fp8":
      return [name, `${base}.weight_scale`];
    case "compressed-tensors-nvfp4":
      return [`${base}.weight_packed`, `${base}.weight_scale`, `${base}.weight_global_scale`];
    case "compressed-tensors-mxfp4":
      return [`${base}.weight_packed`, `${base}.weight_scale`];
    case "modelopt-fp8":
      return [name, `${base}.weight_scale`];
    case "modelopt-nvfp4":
      return [name, `${base}.weight_scale`, `${base}.weight_scale_2`];
    case "gpt-oss-mxfp4":
      return [`${name}_blocks`, `${name}_scales`];
  }
}

/**
 * How a weight is cut: a [N, K] weight is quantized along K (the input features); a gpt-oss expert tensor [E, K, N]
 * is transposed per expert to [N, K], as the real files store `*_blocks` [E, N, K/32, 16]. Whole-tensor scales take
 * bands of any rows; block rows are never split across bands.
 */
function geometryOf(t: TensorInfo, scheme: ProducedScheme, rule: ScaleRule) {
  const gptOss = scheme === "gpt-oss-mxfp4";
  const experts = gptOss ? t.shape[0]! : 1;
  const [N, K] = gptOss ? [t.shape[2]!, t.shape[1]!] : [t.shape[0]!, t.shape[1]!];
  const [bh, bw] = [rule.block[0] || N, rule.block[1] || K];
  const packed = rule.element.K === 4;
  const whole = rule.block[0] === 0;
  const unit = whole ? 1 : bh;
  const bandRows = unit * Math.max(1, Math.floor(BAND_ELEMENTS / (unit * K)));
  const blockCols = Math.ceil(K / bw);
  // gpt-oss rows hold whole 16-byte blocks (a partial last block is padded with zero codes); others pad to a byte.
  const rowCodes = gptOss ? blockCols * bw : packed ? K + (K & 1) : K;
  return { gptOss, experts, N, K, bh, bw, packed, whole, bandRows, blockRows: Math.ceil(N / bh), blockCols, rowCodes };
}

/** The plan of one weight. */
export function produceTensor(t: TensorInfo, scheme: ProducedScheme, granularity: Granularity): ProducedTensor {
  const rule = scaleRule(scheme, granularity);
  const { gptOss, experts, N, K, bh, packed, whole, bandRows, blockRows, blockCols, rowCodes } = geometryOf(t, scheme, rule);
  const [elementName, scaleName, secondName] = outputNames(scheme, t.name);
  const lead = gptOss ? [experts] : [];
  const elementShape = gptOss ? [experts, N, blockCols, rowCodes / blockCols / 2] : packed ? [N, rowCodes / 2] : [N, K];
  const scaleShape = scaleShapeOf(scheme, rule, lead, N, blockRows, blockCols);
  const specs: TensorSpec[] = [
    { name: elementName, dtype: packed ? "U8" : "F8_E4M3", shape: elementShape },
    { name: scaleName, dtype: rule.scaleDtype, shape: scaleShape },
  ];
  if (secondName) specs.push({ name: secondName, dtype: "F32", shape: scheme === "modelopt-nvfp4" ? [] : [1] });
  const module = t.name.endsWith(".weight") ? t.name.slice(0, -".weight".length) : t.name;

  return {
    specs,
    module,
    async write(reader, writer, runner, observe) {
      const base = { path: reader.path, tensor: t.name, kernels: kernelStatus().enabled };
      let tensorAmax = 0;
      if (rule.tensorScale || whole) {
        const ranges = function* (): Generator<AmaxJob> {
          for (let start = 0; start < t.length; start += BAND_ELEMENTS) {
            yield { op: "amax", ...base, start, count: Math.min(BAND_ELEMENTS, t.length - start) };
          }
        };
        await inOrder(runner, ranges(), (amax) => {
          tensorAmax = Math.max(tensorAmax, amax);
        });
      }
      const T = rule.tensorScale ? rule.tensorScale(tensorAmax) : 1;
      const stored = rule.scaleDtype === "F32" ? new Float32Array(experts * blockRows * blockCols) : new Uint8Array(experts * blockRows * blockCols);
      // gpt-oss: one job per expert (its transpose); else one per band.
      const jobs = function* (): Generator<ProduceBandJob> {
        const job = { op: "produce", ...base, scheme, granularity, tensorScale: T, errors: observe !== undefined } as const;
        for (let expert = 0; expert < experts; expert++) {
          for (let r0 = 0; r0 < N; r0 += gptOss ? N : bandRows) {
            const rows = gptOss ? N : Math.min(bandRows, N - r0);
            const output = runner.remote ? writer.reserveBytes(packed ? (rows * rowCodes) / 2 : rows * K) : undefined;
            yield { ...job, expert, r0, rows, ...(whole && { wholeAmax: tensorAmax }), ...(output && { output }) };
          }
        }
      };
      await inOrder(runner, jobs(), async (r, job) => {
        for (const [i, sums] of r.sums.entries()) observe?.(sums, r.elements[i]!);
        if (whole) stored.set(r.stored);
        else stored.set(r.stored, (job.expert * blockRows + job.r0 / bh) * blockCols);
        for (const bytes of r.bytes) await (packed ? writer.writeBytes(bytes) : writer.writeCodes(bytes));
      });
      if (stored instanceof Float32Array) await writer.writeValues(stored);
      else if (rule.scaleDtype === "U8") await writer.writeBytes(stored);
      else await writer.writeCodes(stored);
      if (secondName) await writer.writeValues(Float32Array.of(T));
    },
  };
}

/** One job of produceTensor's write: codes, block scales and error sums of a band (gpt-oss: of an expert). */
export async function produceJob(job: ProduceBandJob, context: JobContext): Promise<ProduceBandResult> {
  const reader = await context.reader(job.path);
  const t = reader.tensor(job.tensor);
  const rule = scaleRule(job.scheme, job.granularity);
  const { gptOss, N, K, bh, bw, packed, bandRows, rowCodes } = geometryOf(t, job.scheme, rule);
  const buffers = kernels() ? await bandBuffers(context, Math.min(N, bandRows) * K) : undefined;
  // gpt-oss: the expert [K, N] transposed to [N, K]; in Wasm memory when the kernels run (its bands are views).
  let matrix: Float32Array | undefined;
  if (gptOss) {
    const expert = await readFloat32(reader, t, job.expert * K * N, K * N, rule.bfloat16Input);
    if (buffers) buffers.transpose(expert, K, N);
    else matrix = transpose(expert, K, N);
  }
  const [bytes, stored, sums, elements]: [Uint8Array[], (Float32Array | Uint8Array)[], ErrorSums[], number[]] = [[], [], [], []];
  for (let r0 = job.r0; r0 < job.r0 + job.rows; r0 += bandRows) {
    const rows = Math.min(bandRows, job.r0 + job.rows - r0);
    const count = rows * K;
    const read = matrix ? matrix.subarray(r0 * K, r0 * K + count) : buffers ? undefined : await readFloat32(reader, t, r0 * K, count);
    if (!read && !gptOss) await buffers!.values(reader, t, r0 * K, count);
    // The band's values as a view made now: a kernel's first call may grow the memory, detaching older views.
    const x = () => read ?? (gptOss ? buffers!.matrix(r0 * K, count) : buffers!.x(count));
    const band = quantizeBand(x(), rows, K, bh, bw, rule, job.tensorScale, job.wholeAmax, t.name, buffers?.out(count));
    if (job.errors) {
      const decoded = decodeBand(band, rule, buffers?.decoded(count));
      sums.push(errorSums(x(), decoded, ...NO_OVERFLOW));
      elements.push(count);
    }
    stored.push(band.stored);
    const codes = buffers?.codes(count) ?? band.codes;
    bytes.push(packed ? packRows(codes, rows, K, rowCodes) : codes);
  }
  if (job.output) {
    const append = context.appender(job.output);
    for (const b of bytes.splice(0)) await append(b);
  }
  return { bytes, stored: stored.length === 1 ? stored[0]! : concat(stored), sums, elements };
}

/** Largest |x| of a range of a tensor, with the same NaN/∞ error as the blocks. */
export async function amaxJob(job: AmaxJob, context: JobContext): Promise<number> {
  const reader = await context.reader(job.path);
  const t = reader.tensor(job.tensor);
  const buffers = kernels() ? await bandBuffers(context, job.count) : undefined;
  const x = await (buffers?.values(reader, t, job.start, job.count) ?? readFloat32(reader, t, job.start, job.count));
  const amax = new Float32Array(1);
  const at = blockAmax(x, { rows: 1, K: job.count, width: job.count, bh: 1 }, amax);
  if (at >= 0) throw nonFinite(t.name, x[at]!);
  return amax[0]!;
}

/** The thread's band buffers, of at least `elements` elements. */
function bandBuffers(context: JobContext, elements: number): Promise<BandBuffers> {
  return context.scratchOf(
    "produce",
    (b: BandBuffers) => b.elements >= elements,
    () => BandBuffers.create(elements),
  );
}

function concat<T extends Float32Array | Uint8Array>(parts: readonly T[]): T {
  const out = new (parts[0]!.constructor as new (n: number) => T)(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function scaleShapeOf(scheme: ProducedScheme, rule: ScaleRule, lead: number[], N: number, blockRows: number, blockCols: number): number[] {
  if (rule.block[0] === 0) return scheme === "modelopt-fp8" ? [] : [1];
  if (rule.block[1] === 0) return [N, 1];
  return [...lead, blockRows, blockCols];
}

/**
 * Codes and block scales of `rows` rows of K elements (a band starting on a block-row boundary): per block the
 * amax (exact), the rule's scale and float32 factor, then every element's fl32 quotient rounded once into the
 * element format (saturating). A NaN or ±∞ element is an error: the tools would write a NaN scale.
 */
interface Band {
  readonly codes: Uint8Array;
  readonly stored: Float32Array | Uint8Array;
  /** Per block the float32 divisor (or multiplier). */
  readonly factor: Float32Array;
  readonly grid: BlockGrid;
}

/** Where a band's quotients and codes go (Wasm memory when the kernels run), or fresh arrays. */
interface BandOut {
  readonly y: Float32Array;
  readonly codes: Uint8Array;
}

function quantizeBand(
  x: Float32Array,
  rows: number,
  K: number,
  bh: number,
  bw: number,
  rule: ScaleRule,
  T: number,
  wholeAmax: number | undefined,
  name: string,
  out: BandOut = { y: new Float32Array(x.length), codes: new Uint8Array(x.length) },
): Band {
  // A whole-tensor scale is one block covering the band, its amax from the first pass over the tensor.
  const whole = wholeAmax !== undefined;
  const grid = whole ? { rows, K, width: K, bh: rows } : { rows, K, width: bw, bh };
  const amax = new Float32Array(Math.ceil(rows / grid.bh) * Math.ceil(K / grid.width));
  // Views of Wasm memory re-made after each call that may allocate there (a growth detaches them).
  const [xs, ys, cs] = [keep(x), keep(out.y), keep(out.codes)];
  const at = blockAmax(xs(), grid, amax);
  if (at >= 0) throw nonFinite(name, xs()[at]!);
  if (whole) amax[0] = wholeAmax;
  const { stored, factor } = rule.blockScales(amax, T);
  // Stored into float32: the tool's fl32 quotient (or gpt-oss' product); a −0 quotient becomes +0 for unsignedZero.
  blockScale(xs(), ys(), grid, factor, rule.multiply, rule.unsignedZero === true);
  const codes = quantize(ys(), rule.element, { rounding: rule.rounding, saturation: "SatFinite", out: cs() }) as Uint8Array;
  return { codes, stored, factor, grid };
}

/** The values a consumer decodes from a band: element × divisor (gpt-oss: element / multiplier), rounded to float32. */
function decodeBand(band: Band, rule: ScaleRule, out: Float32Array = new Float32Array(band.codes.length)): Float32Array {
  const decoded = dequantize(band.codes, rule.element, { out }) as Float32Array;
  let scale = band.factor;
  if (rule.multiply) {
    scale = new Float32Array(scale.length);
    for (let i = 0; i < scale.length; i++) scale[i] = band.factor[i] === 0 ? 0 : 1 / band.factor[i]!; // f is a power of two
  }
  blockScale(decoded, decoded, band.grid, scale, true, false);
  return decoded;
}

function nonFinite(name: string, v: number): SafetensorsError {
  return new SafetensorsError(`tensor "${name}"`, `holds ${v}; allowed: finite values (the tools would write a NaN scale for its block); nothing was written`);
}

/** Rows of K 4-bit codes packed two per byte, low nibble first, each row padded with zero codes to rowCodes. */
function packRows(codes: Uint8Array, rows: number, K: number, rowCodes: number): Uint8Array {
  if (rowCodes === K) return packCodes(codes, 4);
  const padded = new Uint8Array(rows * rowCodes);
  for (let r = 0; r < rows; r++) padded.set(codes.subarray(r * K, (r + 1) * K), r * rowCodes);
  return packCodes(padded, 4);
}

/** Values as float32 (F64 weights are rounded to float32, as the tools load them), or rounded to bfloat16 (RNE). */
async function readFloat32(reader: SafetensorsReader, t: TensorInfo, start: number, count: number, bfloat16 = false): Promise<Float32Array> {
  const v = await reader.readValues(t, start, count);
  if (bfloat16 && t.dtype !== "BF16") return dequantize(quantize(v, BF16), BF16);
  return v instanceof Float32Array ? v : Float32Array.from(v);
}

/** [K, N] → [N, K], in tiles that stay in cache (a row-by-column walk missed it on every element). */
function transpose(m: Float32Array, K: number, N: number): Float32Array {
  const out = new Float32Array(m.length);
  const T = 64;
  for (let k0 = 0; k0 < K; k0 += T) {
    for (let n0 = 0; n0 < N; n0 += T) {
      const [k1, n1] = [Math.min(K, k0 + T), Math.min(N, n0 + T)];
      for (let n = n0; n < n1; n++) for (let k = k0; k < k1; k++) out[n * K + k] = m[k * N + n]!;
    }
  }
  return out;
}

/**
 * One weight's band buffers in Wasm memory, so that the kernels run on them in place: the input's 16-bit codes, its
 * float32 values (F32 inputs are read straight into them), the quotients, the codes and the decoded values. Views are
 * taken anew after each kernel call (a kernel's first call for a format may grow the memory, which detaches them).
 */
class BandBuffers {
  /** gpt-oss experts: the one read ([K, N]) and its transpose ([N, K]). */
  private transposed: [WasmArray<Float32Array>, WasmArray<Float32Array>] | undefined;

  private constructor(
    /** Stored 16-bit codes (F16, BF16 inputs), decoded into the values. */
    private readonly bits16: WasmArray<Uint16Array>,
    private readonly values32: WasmArray<Float32Array>,
    private readonly quotients: WasmArray<Float32Array>,
    private readonly codes8: WasmArray<Uint8Array>,
    private readonly decoded32: WasmArray<Float32Array>,
  ) {}

  get elements(): number {
    return this.values32.length;
  }

  /** Buffers of `elements` elements (callers check that the kernels run). */
  static create(elements: number): BandBuffers {
    const f32 = () => new WasmArray(Float32Array, elements);
    return new BandBuffers(new WasmArray(Uint16Array, elements), f32(), f32(), new WasmArray(Uint8Array, elements), f32());
  }

  /** Elements [start, start + count) of t as float32 (F64 rounded, as readFloat32), read into Wasm memory. */
  async values(reader: SafetensorsReader, t: TensorInfo, start: number, count: number): Promise<Float32Array> {
    if (t.dtype !== "F32" && (t.info.bits !== 16 || t.format === undefined)) {
      const values = await readFloat32(reader, t, start, count);
      this.x(count).set(values);
      return this.x(count);
    }
    if (t.dtype === "F32") {
      const x = this.x(count);
      await reader.readTensorBytesInto(t, start * 4, new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
    } else {
      const bits = this.bits16.array.subarray(0, count);
      await reader.readTensorBytesInto(t, start * 2, new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength));
      dequantize(bits, t.format!, { out: this.x(count) });
    }
    return this.x(count);
  }

  /** An expert [K, N] (gpt-oss) transposed into the matrix buffer, [N, K] (allocated at the first expert, grown for a larger one). */
  transpose(values: Float32Array, K: number, N: number): void {
    if (this.transposed && this.transposed[0].array.length < K * N) {
      for (const a of this.transposed) a.free();
      this.transposed = undefined;
    }
    this.transposed ??= [new WasmArray(Float32Array, K * N), new WasmArray(Float32Array, K * N)];
    const [from, to] = this.transposed;
    from.array.set(values);
    if (!transposeWasm(from.array, K, N, to.array)) to.array.set(transpose(values, K, N));
  }

  /** Elements [start, start + count) of the transposed matrix. */
  matrix(start: number, count: number): Float32Array {
    return this.transposed![1].array.subarray(start, start + count);
  }

  x(count: number): Float32Array {
    return this.values32.array.subarray(0, count);
  }

  out(count: number): BandOut {
    return { y: this.quotients.array.subarray(0, count), codes: this.codes(count) };
  }

  codes(count: number): Uint8Array {
    return this.codes8.array.subarray(0, count);
  }

  decoded(count: number): Float32Array {
    return this.decoded32.array.subarray(0, count);
  }

  free(): void {
    for (const a of [this.bits16, this.values32, this.quotients, this.codes8, this.decoded32, ...(this.transposed ?? [])]) a.free();
  }
}
