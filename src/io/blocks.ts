// Block-scaled tensors (OCP MX, NVFP4) in safetensors: the elements keep the tensor's name and shape, the scale
// codes follow as "<name>.scales", and __metadata__["minifloat.block.<name>"] names the scheme ("mxfp4", or
// "nvfp4 tensor_scale=<float32>" for a second-level scale). Blocks run along rows of L elements and never cross a
// row: L = the last dimension for 1-D and 2-D tensors (scales [...shape[:-1], ceil(L / blockSize)]); for a tensor
// of 3 or more dimensions L = the product of the dimensions after the first (a conv weight [O, I, kh, kw] is
// [O, I·kh·kw], the input features of each output), scales [shape[0], ceil(L / blockSize)], recorded as
// " row_length=<L>". Files written before that layout (blocks along the last dimension whatever the rank, no
// row_length) stay readable.
import { type BlockScheme, type SchemeName, MX_SCHEMES, blockScheme } from "../block/index.js";
import { dequantizeBlockRows } from "../block/rows.js";
import { storageOf } from "./dtypes.js";
import { SafetensorsError } from "./errors.js";
import type { TensorInfo, TensorSpec } from "./header.js";
import type { SafetensorsReader } from "./reader.js";

export const BLOCK_KEY_PREFIX = "minifloat.block.";
export const SCALES_SUFFIX = ".scales";

export interface BlockLayout {
  readonly scheme: BlockScheme;
  readonly elements: TensorInfo;
  readonly scales: TensorInfo;
  /** Second-level float32 scale (1 when the scheme has none). */
  readonly tensorScale: number;
  /** Elements per row (blocks never cross a row): see the file comment. */
  readonly rowLength: number;
}

/** dtype of a scheme's element codes: the element format's own, or I8 for MXINT8's two's complement bytes. */
function elementDtype(s: BlockScheme): string {
  return s.twosComplement ? "I8" : storageOf(s.element).dtype;
}

/** Row length L of a tensor's blocks: the product of the dimensions after the first (the last for 1-D; 1 for a scalar). */
export function blockRowLength(shape: readonly number[]): number {
  return shape.length === 0 ? 1 : shape.length === 1 ? shape[0]! : shape.slice(1).reduce((a, b) => a * b, 1);
}

/** Specs of the two tensors that store a block-quantized tensor whose rows have `rowLength` elements. */
export function blockSpecs(name: string, shape: readonly number[], s: BlockScheme, rowLength = blockRowLength(shape)): TensorSpec[] {
  const last = shape.length === 0 ? 1 : shape[shape.length - 1]!;
  const perRow = Math.ceil(rowLength / s.blockSize);
  // Rows along the last dimension (every file of rank ≤ 2, and older files of higher rank) keep the leading dims.
  const scales = rowLength === last ? [...shape.slice(0, -1), perRow] : [shape[0]!, perRow];
  return [
    { name, dtype: elementDtype(s), shape },
    { name: name + SCALES_SUFFIX, dtype: storageOf(s.scale).dtype, shape: scales },
  ];
}

/** The metadata value recording a scheme, its tensor scale when it is not 1, and a row length that is not the last dimension. */
export function blockRecord(s: BlockScheme, tensorScale: number, shape: readonly number[]): string {
  const L = blockRowLength(shape);
  const last = shape.length === 0 ? 1 : shape[shape.length - 1]!;
  return `${s.name}${tensorScale === 1 ? "" : ` tensor_scale=${tensorScale}`}${L === last ? "" : ` row_length=${L}`}`;
}

/** Every block-quantized tensor of a file, validated against its metadata record. */
export function blockLayouts(reader: SafetensorsReader): Map<string, BlockLayout> {
  const out = new Map<string, BlockLayout>();
  for (const [key, value] of Object.entries(reader.metadata)) {
    if (!key.startsWith(BLOCK_KEY_PREFIX)) continue;
    const where = `${reader.path}: __metadata__["${key}"]`;
    const name = key.slice(BLOCK_KEY_PREFIX.length);
    const m = /^(\S+)(?: tensor_scale=(\S+))?(?: row_length=(\d+))?$/.exec(value);
    if (!m || !(MX_SCHEMES as readonly string[]).includes(m[1]!)) {
      throw new SafetensorsError(
        where,
        `is ${JSON.stringify(value)}; allowed: one of ${MX_SCHEMES.join(", ")}, optionally followed by " tensor_scale=<float32>" and " row_length=<n>"`,
      );
    }
    const scheme = blockScheme(m[1] as SchemeName);
    const tensorScale = m[2] === undefined ? 1 : Number(m[2]);
    if (!(tensorScale > 0) || !Number.isFinite(tensorScale) || Math.fround(tensorScale) !== tensorScale) {
      throw new SafetensorsError(where, `has tensor_scale ${m[2]}; allowed: a positive finite float32`);
    }
    const elements = reader.tensors.find((t) => t.name === name);
    const scales = reader.tensors.find((t) => t.name === name + SCALES_SUFFIX);
    if (!elements || !scales) throw new SafetensorsError(where, `needs tensors "${name}" and "${name}${SCALES_SUFFIX}"`);
    const shape = elements.shape;
    const rowLength = m[3] === undefined ? (shape.length === 0 ? 1 : shape[shape.length - 1]!) : Number(m[3]);
    if (m[3] !== undefined && (shape.length < 3 || rowLength !== blockRowLength(shape))) {
      throw new SafetensorsError(
        where,
        `has row_length ${m[3]}; allowed: the product of the dimensions after the first of a tensor of rank ≥ 3 ([${shape.join(", ")}])`,
      );
    }
    const [e, s] = blockSpecs(name, shape, scheme, rowLength) as [TensorSpec, TensorSpec];
    if (elements.dtype !== e.dtype) throw new SafetensorsError(where, `tensor "${name}" has dtype ${elements.dtype}; ${scheme.name} elements are ${e.dtype}`);
    if (scales.dtype !== s.dtype || scales.shape.join() !== s.shape.join()) {
      throw new SafetensorsError(
        where,
        `tensor "${scales.name}" is ${scales.dtype} [${scales.shape.join(", ")}]; ${scheme.name} scales of [${elements.shape.join(", ")}] are ${s.dtype} [${s.shape.join(", ")}]`,
      );
    }
    out.set(name, { scheme, elements, scales, tensorScale, rowLength });
  }
  return out;
}

/** Decoded values of rows [row, row + rows) of a block-quantized tensor. */
export async function readBlockRows(reader: SafetensorsReader, b: BlockLayout, row: number, rows: number): Promise<Float32Array> {
  const L = b.rowLength;
  const perRow = Math.ceil(L / b.scheme.blockSize);
  const codes = await readElementCodes(reader, b, row * L, rows * L);
  const scales = (await reader.readCodes(b.scales, row * perRow, rows * perRow)) as Uint8Array;
  return dequantizeBlockRows({ codes, scales }, rows, L, b.scheme, b.tensorScale, new Float32Array(rows * L));
}

/** Element codes as quantizeBlocks stores them, unpacked (MXINT8: the I8 bytes themselves). */
async function readElementCodes(reader: SafetensorsReader, b: BlockLayout, start: number, count: number): Promise<Uint8Array> {
  if (b.scheme.twosComplement) return (await reader.readElementBytes(b.elements, start, count)).bytes;
  return (await reader.readCodes(b.elements, start, count)) as Uint8Array;
}
