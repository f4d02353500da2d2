// Block-scaled tensors (OCP MX, NVFP4) in safetensors: the elements keep the tensor's name and shape, the scale
// codes follow as "<name>.scales" with shape [...shape[:-1], ceil(shape[-1] / blockSize)] (blocks run along the
// last dimension and never cross a row), and __metadata__["minifloat.block.<name>"] names the scheme
// ("mxfp4", or "nvfp4 tensor_scale=<float32>" for a second-level scale).
import { type BlockScheme, type BlockTensor, type SchemeName, MX_SCHEMES, blockScheme, dequantizeBlocks } from "../block/index.js";
import { packCodes } from "../api/packed.js";
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
  /** Elements per row: the last dimension (1 for a scalar). */
  readonly rowLength: number;
}

/** dtype of a scheme's element codes: the element format's own, or I8 for MXINT8's two's complement bytes. */
function elementDtype(s: BlockScheme): string {
  return s.twosComplement ? "I8" : storageOf(s.element).dtype;
}

/** Specs of the two tensors that store a block-quantized tensor. */
export function blockSpecs(name: string, shape: readonly number[], s: BlockScheme): TensorSpec[] {
  const row = shape.length === 0 ? 1 : shape[shape.length - 1]!;
  return [
    { name, dtype: elementDtype(s), shape },
    { name: name + SCALES_SUFFIX, dtype: storageOf(s.scale).dtype, shape: [...shape.slice(0, -1), Math.ceil(row / s.blockSize)] },
  ];
}

/** The metadata value recording a scheme (and its tensor scale when it is not 1). */
export function blockRecord(s: BlockScheme, tensorScale: number): string {
  return tensorScale === 1 ? s.name : `${s.name} tensor_scale=${tensorScale}`;
}

/** Every block-quantized tensor of a file, validated against its metadata record. */
export function blockLayouts(reader: SafetensorsReader): Map<string, BlockLayout> {
  const out = new Map<string, BlockLayout>();
  for (const [key, value] of Object.entries(reader.metadata)) {
    if (!key.startsWith(BLOCK_KEY_PREFIX)) continue;
    const where = `${reader.path}: __metadata__["${key}"]`;
    const name = key.slice(BLOCK_KEY_PREFIX.length);
    const m = /^(\S+)(?: tensor_scale=(\S+))?$/.exec(value);
    if (!m || !(MX_SCHEMES as readonly string[]).includes(m[1]!)) {
      throw new SafetensorsError(
        where,
        `is ${JSON.stringify(value)}; allowed: one of ${MX_SCHEMES.join(", ")}, optionally followed by " tensor_scale=<float32>"`,
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
    const [e, s] = blockSpecs(name, elements.shape, scheme) as [TensorSpec, TensorSpec];
    if (elements.dtype !== e.dtype) throw new SafetensorsError(where, `tensor "${name}" has dtype ${elements.dtype}; ${scheme.name} elements are ${e.dtype}`);
    if (scales.dtype !== s.dtype || scales.shape.join() !== s.shape.join()) {
      throw new SafetensorsError(
        where,
        `tensor "${scales.name}" is ${scales.dtype} [${scales.shape.join(", ")}]; ${scheme.name} scales of [${elements.shape.join(", ")}] are ${s.dtype} [${s.shape.join(", ")}]`,
      );
    }
    const rowLength = elements.shape.length === 0 ? 1 : elements.shape[elements.shape.length - 1]!;
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
  const out = new Float32Array(rows * L);
  // Rows whose length is a multiple of the block size tile into whole blocks: one call covers them all.
  const span = L % b.scheme.blockSize === 0 ? rows : 1;
  for (let r = 0; r < rows; r += span) {
    const elementCodes = codes.subarray(r * L, (r + span) * L);
    const q: BlockTensor = {
      scheme: b.scheme,
      length: span * L,
      blockSize: b.scheme.blockSize,
      scales: scales.subarray(r * perRow, (r + span) * perRow),
      elements: b.scheme.packed ? packCodes(elementCodes, 4) : elementCodes,
      tensorScale: b.tensorScale,
    };
    dequantizeBlocks(q, { out: out.subarray(r * L, (r + span) * L) });
  }
  return out;
}

/** Element codes as quantizeBlocks stores them, unpacked (MXINT8: the I8 bytes themselves). */
async function readElementCodes(reader: SafetensorsReader, b: BlockLayout, start: number, count: number): Promise<Uint8Array> {
  if (b.scheme.twosComplement) return (await reader.readElementBytes(b.elements, start, count)).bytes;
  return (await reader.readCodes(b.elements, start, count)) as Uint8Array;
}
