// Bulk kernels on a GPUDevice, each a generated WGSL module: dequantize (to float32 or binary16 bits), quantize,
// MX/NVFP4 block dequantize and matvec. One invocation writes one output word; codes are read from u32 words of
// storage buffers (bytes little-endian, as the CPU's typed arrays lay them out).
import { type FormatLike, resolveFormat } from "../api/scalar.js";
import { type BlockScheme, blockScheme, type CustomScheme, type SchemeName } from "../block/mx.js";
import { ArgumentTypeError, CodeRangeError, FormatError, ProjectionError, describe } from "../errors.js";
import { type Projection, isStochastic, resolveProjection } from "../exact/projection.js";
import { valuesFitFloat32 } from "../exact/tables.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { checkOptions } from "../options.js";
import { composeWgsl } from "./compose.js";
import { dispatch, type GpuBuffer, type GpuDevice, PRELUDE, USAGE, WORKGROUP } from "./gpu.js";
import { u32, wgsl } from "./wgsl.js";

/**
 * Where the codes sit: "u8" one per byte, "u16" one per 16-bit half, "u4" two per byte. `nibbleOrder` for "u4":
 * "low-first" (element 2j in the low nibble of byte j: OCP MX, gpt-oss, compressed-tensors, safetensors F4),
 * "high-first", or "split-half" (GGUF's MXFP4 blocks: in each block of B elements, byte j holds element j in its
 * low nibble and element j + B/2 in its high one; whole blocks, so a partial last block still takes B/2 bytes).
 */
export interface CodeLayout {
  layout?: "u8" | "u16" | "u4";
  nibbleOrder?: "low-first" | "high-first" | "split-half";
}

/** Plain codes of one format. */
export interface GpuCodes extends CodeLayout {
  format: FormatLike;
  codes: GpuBuffer;
}

/** A block-scaled tensor: one scale code per byte per block, element codes (packed for 4-bit elements). */
export interface GpuBlocks {
  scheme: SchemeName | CustomScheme | BlockScheme;
  elements: GpuBuffer;
  scales: GpuBuffer;
  /** Elements per block (default the scheme's: 32 for MX, 16 for NVFP4). */
  blockSize?: number;
  /** The float32 second-level scale of "ratio" schemes (NVFP4); default 1. */
  tensorScale?: number;
  nibbleOrder?: CodeLayout["nibbleOrder"];
}

/** Where `wbits(i)` (the float32 bits of element i) comes from, with the buffers it binds from binding 1 on. */
interface Source {
  readonly wgsl: string;
  readonly buffers: GpuBuffer[];
  readonly tensorScaleBits: number;
}

const bits32 = new Uint32Array(1);
const asF32 = new Float32Array(bits32.buffer);
function f32Bits(v: number): number {
  asF32[0] = v;
  return bits32[0]!;
}

function requireSize(buffer: unknown, bytes: number, argument: string): GpuBuffer {
  if (buffer === null || typeof buffer !== "object" || typeof (buffer as GpuBuffer).size !== "number") {
    throw new ArgumentTypeError(argument, `got ${describe(buffer)}; allowed: a GPUBuffer`);
  }
  const b = buffer as GpuBuffer;
  if (b.size < Math.ceil(bytes / 4) * 4)
    throw new CodeRangeError(argument, `has ${b.size} bytes; allowed: at least ${Math.ceil(bytes / 4) * 4} (${bytes} rounded up to whole words)`);
  return b;
}

function requireCount(n: unknown, argument: string): number {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n >= 2 ** 31)
    throw new CodeRangeError(argument, `got ${describe(n)}; allowed: an integer in [0, 2^31)`);
  return n;
}

/** A format of at most 16 bits (the kernels' widest layout), or a FormatError naming the argument that gave it. */
function narrowFormat(fmt: FormatLike, argument: string): Format {
  const f = resolveFormat(fmt, argument);
  if (f.K > 16) throw new FormatError(argument, `${f.name} has ${f.K}-bit codes; allowed: a format of at most 16 bits`);
  return f;
}

/** The resolved layout of codes of f: bits per code and the nibble order. */
function resolveLayout(f: Format, l: CodeLayout, argument: string): { bits: 4 | 8 | 16; order: NonNullable<CodeLayout["nibbleOrder"]> } {
  const layout = l.layout ?? (f.K > 8 ? "u16" : "u8");
  const bits = layout === "u4" ? 4 : layout === "u8" ? 8 : layout === "u16" ? 16 : undefined;
  if (bits === undefined || f.K > bits) {
    throw new ArgumentTypeError(
      `${argument}.layout`,
      `got ${describe(layout)} for ${f.K}-bit ${f.name} codes; allowed: ${f.K <= 4 ? "u4, " : ""}${f.K <= 8 ? "u8, " : ""}u16`,
    );
  }
  const order = l.nibbleOrder ?? "low-first";
  if (!["low-first", "high-first", "split-half"].includes(order) || (order !== "low-first" && bits !== 4)) {
    throw new ArgumentTypeError(`${argument}.nibbleOrder`, `got ${describe(order)}; allowed: low-first, high-first or split-half (u4 codes only)`);
  }
  return { bits, order };
}

/** WGSL `fn NAME(i: u32) -> u32`: code i from the u32 array `buffer` under the layout (`block`: split-half's B). */
function fetchWgsl(name: string, buffer: string, bits: number, order: string, block: number): string {
  if (bits !== 4) return `fn ${name}(i: u32) -> u32 { return (${buffer}[i / ${32 / bits}u] >> ((i % ${32 / bits}u) * ${bits}u)) & ${u32(2 ** bits - 1)}; }\n`;
  let byte = "i / 2u";
  let shift = order === "high-first" ? "(1u - (i & 1u)) * 4u" : "(i & 1u) * 4u";
  if (order === "split-half") {
    byte = `(i / ${block}u) * ${block / 2}u + (i % ${block / 2}u)`;
    shift = `select(0u, 4u, (i % ${block}u) >= ${block / 2}u)`;
  }
  return `fn ${name}(i: u32) -> u32 { let b = ${byte}; return (${buffer}[b / 4u] >> ((b % 4u) * 8u + ${shift})) & 15u; }\n`;
}

function codesSource(w: GpuCodes, n: number, argument: string): Source {
  if (w === null || typeof w !== "object") throw new ArgumentTypeError(argument, `got ${describe(w)}; allowed: { format, codes, layout?, nibbleOrder? }`);
  checkOptions(w, ["format", "codes", "layout", "nibbleOrder"], argument);
  const f = narrowFormat(w.format, `${argument}.format`);
  const { bits, order } = resolveLayout(f, w, argument);
  if (order === "split-half")
    throw new ArgumentTypeError(`${argument}.nibbleOrder`, "split-half applies to block-scaled tensors; allowed: low-first, high-first");
  const codes = requireSize(w.codes, Math.ceil((n * bits) / 8), `${argument}.codes`);
  const code = `@group(0) @binding(1) var<storage, read> codes: array<u32>;
${fetchWgsl("code", "codes", bits, order, 0)}${wgsl(f, "decodeBits", { name: "decodeBits" })}fn wbits(i: u32) -> u32 { return decodeBits(code(i)); }
`;
  return { wgsl: code, buffers: [codes], tensorScaleBits: 0 };
}

/**
 * X·P·T rounded once: the exact product of the element's, the scale's and the tensor scale's values (integers m with
 * trailing zeros dropped, so ≤ P_element + P_scale + 24 ≤ 32 bits), then compose; NaN if any is NaN or ∞·0.
 */
const SCALE_WGSL = `fn parts(b: u32) -> vec2<i32> {
  let E = (b >> 23u) & 255u;
  let m = select((b & 0x7fffffu) | 0x800000u, b & 0x7fffffu, E == 0u);
  if (m == 0u) { return vec2<i32>(0, 0); }
  let z = countTrailingZeros(m);
  return vec2<i32>(i32(m >> z), i32(max(E, 1u)) - 150 + i32(z));
}
fn scaled(x: u32, p: u32, t: u32) -> u32 {
  let s = (x ^ p ^ t) & 0x80000000u;
  let ax = x & 0x7fffffffu;
  let ap = p & 0x7fffffffu;
  let at = t & 0x7fffffffu;
  if (ax > 0x7f800000u || ap > 0x7f800000u || at > 0x7f800000u) { return 0x7fc00000u; }
  let inf = ax == 0x7f800000u || ap == 0x7f800000u || at == 0x7f800000u;
  let zero = ax == 0u || ap == 0u || at == 0u;
  if (inf && zero) { return 0x7fc00000u; }
  if (inf) { return s | 0x7f800000u; }
  if (zero) { return s; }
  let px = parts(ax);
  let pp = parts(ap);
  let pt = parts(at);
  return s | compose(u32(px.x) * u32(pp.x) * u32(pt.x), px.y + pp.y + pt.y);
}
`;

function blocksSource(q: GpuBlocks, n: number, argument: string): Source {
  if (q === null || typeof q !== "object")
    throw new ArgumentTypeError(argument, `got ${describe(q)}; allowed: { scheme, elements, scales, blockSize?, tensorScale?, nibbleOrder? }`);
  checkOptions(q, ["scheme", "elements", "scales", "blockSize", "tensorScale", "nibbleOrder"], argument);
  const s = blockScheme(q.scheme, `${argument}.scheme`);
  if (s.twosComplement) throw new ArgumentTypeError(`${argument}.scheme`, `is ${s.name}; allowed: a scheme with floating-point elements (not MXINT8)`);
  if (s.element.P + s.scale.P > 8) {
    throw new ArgumentTypeError(
      `${argument}.scheme`,
      `${s.name}: element P + scale P = ${s.element.P + s.scale.P}; allowed: at most 8 (the exact product must fit 32 bits)`,
    );
  }
  const B = q.blockSize ?? s.blockSize;
  if (!Number.isInteger(B) || B < 1 || (s.packed && B % 2 !== 0))
    throw new CodeRangeError(`${argument}.blockSize`, `got ${describe(B)}; allowed: a positive integer${s.packed ? ", even for 4-bit elements" : ""}`);
  const T = q.tensorScale ?? 1;
  if (typeof T !== "number" || !(T > 0) || Math.fround(T) !== T || T === Infinity) {
    throw new CodeRangeError(`${argument}.tensorScale`, `got ${describe(T)}; allowed: a positive finite float32`);
  }
  const { bits, order } = resolveLayout(s.element, { layout: s.packed ? "u4" : "u8", ...(q.nibbleOrder && { nibbleOrder: q.nibbleOrder }) }, argument);
  // split-half stores whole blocks (a partial last block still takes B/2 bytes).
  const elementBytes = order === "split-half" ? Math.ceil(n / B) * (B / 2) : Math.ceil((n * bits) / 8);
  const elements = requireSize(q.elements, elementBytes, `${argument}.elements`);
  const scales = requireSize(q.scales, Math.ceil(n / B), `${argument}.scales`);
  const code = `@group(0) @binding(1) var<storage, read> elements: array<u32>;
@group(0) @binding(2) var<storage, read> scales: array<u32>;
${fetchWgsl("element", "elements", bits, order, B)}${fetchWgsl("scale", "scales", 8, "low-first", 0)}${wgsl(s.element, "decodeBits", { name: "elementBits" })}${wgsl(s.scale, "decodeBits", { name: "scaleBits" })}${composeWgsl("compose")}${SCALE_WGSL}fn wbits(i: u32) -> u32 { return scaled(elementBits(element(i)), scaleBits(scale(i / ${B}u)), params.c); }
`;
  return { wgsl: code, buffers: [elements, scales], tensorScaleBits: f32Bits(T) };
}

function source(w: GpuCodes | GpuBlocks, n: number, argument: string): Source {
  return w !== null && typeof w === "object" && "scheme" in w ? blocksSource(w, n, argument) : codesSource(w as GpuCodes, n, argument);
}

function output(device: GpuDevice, out: GpuBuffer | undefined, bytes: number, argument: string): GpuBuffer {
  if (out !== undefined) return requireSize(out, bytes, argument);
  return device.createBuffer({ size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST });
}

export interface GpuDequantizeOptions {
  /** "float32" (default): one float32 per element; "float16": binary16 bits, two per u32 word (element 2j low). */
  target?: "float32" | "float16";
  /** A storage buffer to write (else a new one, usable as storage and copy source). */
  out?: GpuBuffer;
}

/**
 * Decodes n elements, plain codes or a block-scaled tensor, into float32 (the exact value's float32, as the CPU
 * `dequantize`/`dequantizeBlocks`) or binary16 bits (plain codes of a format whose values are float32s: the value
 * rounded once to binary16, nearest even, as `dequantize(codes, fmt, { to: "float16" })`). Enqueues the work on device.queue and returns the output buffer.
 */
export function dequantizeGpu(device: GpuDevice, src: GpuCodes | GpuBlocks, n: number, options?: GpuDequantizeOptions): GpuBuffer {
  requireCount(n, "n");
  const o = checkOptions(options, ["target", "out"]);
  const target = o.target ?? "float32";
  if (target !== "float32" && target !== "float16") throw new ArgumentTypeError("options.target", `got ${describe(target)}; allowed: float32, float16`);
  const s = source(src, n, "src");
  const half = target === "float16";
  // binary16 bits are the float32 value rounded once more: one rounding only where that float32 is the exact value.
  if (half && ("scheme" in src || !valuesFitFloat32(resolveFormat(src.format, "src.format")))) {
    throw new ArgumentTypeError("options.target", `is float16; allowed: float32, or float16 for plain codes of a format whose values are float32s`);
  }
  const out = output(device, o.out, half ? 2 * n : 4 * n, "options.out");
  const body = half
    ? `${wgsl(format("binary16"), "encodeBits", { name: "toHalf", projection: { rounding: "NearestTiesToEven", saturation: "SatNone" } })}
@compute @workgroup_size(${WORKGROUP}) fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let w = index(gid, groups);
  if (w >= params.n) { return; }
  let i = 2u * w;
  var word = toHalf(wbits(i));
  if (i + 1u < params.a) { word = word | (toHalf(wbits(i + 1u)) << 16u); }
  out[w] = word;
}`
    : `@compute @workgroup_size(${WORKGROUP}) fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = index(gid, groups);
  if (i >= params.n) { return; }
  out[i] = wbits(i);
}`;
  const binding = s.buffers.length + 1;
  const code = `${PRELUDE}${s.wgsl}@group(0) @binding(${binding}) var<storage, read_write> out: array<u32>;\n${body}\n`;
  dispatch(device, code, half ? Math.ceil(n / 2) : n, [n, 0, s.tensorScaleBits], [...s.buffers, out]);
  return out;
}

export interface GpuQuantizeOptions extends CodeLayout {
  /** The projection (default the format's); deterministic roundings (stochastic ones need R: wgsl's encodeBits). */
  projection?: Projection;
  out?: GpuBuffer;
}

/** Encodes n float32 values (a storage buffer) into codes of fmt in the layout (default u8, u16 above 8 bits). */
export function quantizeGpu(device: GpuDevice, src: GpuBuffer, n: number, fmt: FormatLike, options?: GpuQuantizeOptions): GpuBuffer {
  requireCount(n, "n");
  const o = checkOptions(options, ["projection", "out", "layout", "nibbleOrder"]);
  const f = narrowFormat(fmt, "fmt");
  const { bits, order } = resolveLayout(f, o, "options");
  if (order === "split-half") throw new ArgumentTypeError("options.nibbleOrder", "split-half applies to block-scaled tensors; allowed: low-first, high-first");
  requireSize(src, 4 * n, "src");
  if (o.projection && isStochastic(resolveProjection(f, o.projection, "options.projection").rounding)) {
    throw new ProjectionError(
      "options.projection.rounding",
      `is ${o.projection.rounding}; allowed: a deterministic rounding (quantizeGpu has no random input: call wgsl(fmt, "encodeBits", …) with your own R)`,
    );
  }
  const per = 32 / bits;
  const slot = bits === 4 && order === "high-first" ? "(k ^ 1u)" : "k";
  // The WGSL first: it checks the projection before anything is allocated on the device.
  const code = `${PRELUDE}@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
${wgsl(f, "encodeBits", { name: "encodeBits", ...(o.projection && { projection: o.projection }) })}
@compute @workgroup_size(${WORKGROUP}) fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let w = index(gid, groups);
  if (w >= params.n) { return; }
  var word = 0u;
  for (var k = 0u; k < ${per}u; k++) {
    let i = w * ${per}u + k;
    if (i < params.a) { word = word | (encodeBits(src[i]) << (${slot} * ${bits}u)); }
  }
  out[w] = word;
}
`;
  const out = output(device, o.out, Math.ceil((n * bits) / 8), "options.out");
  dispatch(device, code, Math.ceil(n / per), [n], [src, out]);
  return out;
}

/**
 * y = W·x for W of rows × cols elements (row-major; plain codes or a block-scaled tensor whose blocks run along the
 * rows), x a float32 storage buffer of cols values. Each y[r] is accumulated in float32 in one fixed order:
 * acc = +0, then for j = 0, 1, …, cols − 1: acc = acc + w[r][j]·x[j] with the product and the sum each rounded to
 * float32, w[r][j] the exact element value's float32 (as dequantize gives it).
 */
export function matvecGpu(device: GpuDevice, w: GpuCodes | GpuBlocks, x: GpuBuffer, rows: number, cols: number, options?: { out?: GpuBuffer }): GpuBuffer {
  requireCount(rows, "rows");
  requireCount(cols, "cols");
  if (rows * cols >= 2 ** 32) throw new CodeRangeError("rows", `rows · cols = ${rows * cols}; allowed: below 2^32`);
  const o = checkOptions(options, ["out"]);
  const s = source(w, rows * cols, "w");
  requireSize(x, 4 * cols, "x");
  const out = output(device, o.out, 4 * rows, "options.out");
  const next = s.buffers.length + 1;
  const code = `${PRELUDE}${s.wgsl}@group(0) @binding(${next}) var<storage, read> x: array<f32>;
@group(0) @binding(${next + 1}) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(${WORKGROUP}) fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let r = index(gid, groups);
  if (r >= params.n) { return; }
  var acc = 0.0f;
  for (var j = 0u; j < params.a; j++) {
    let p = bitcast<f32>(wbits(r * params.a + j)) * x[j];
    acc = acc + p;
  }
  y[r] = acc;
}
`;
  dispatch(device, code, rows, [cols, 0, s.tensorScaleBits], [...s.buffers, x, out]);
  return out;
}
