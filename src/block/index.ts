// Public entry points of block-scaled tensors (OCP MX v1.0, NVFP4); the P3109 §5 block operations are in p3109.ts.
import { ArgumentTypeError, CodeRangeError, describe } from "../errors.js";
import {
  type BlockQuantizeOptions,
  type BlockScheme,
  type BlockTensor,
  type CustomScheme,
  type SchemeName,
  blockScheme,
  elementBytes,
  elementValues,
  planBlocks,
  quantizeBlocksReference,
  scaleValues,
} from "./mx.js";
import { quantizeBlocksKernel } from "./wasm.js";
import { OUT_KEYS, requireAttached } from "../api/validate.js";
import { checkOptions } from "../options.js";

export {
  MX_SCHEMES,
  MXINT8_ELEMENT,
  blockScheme,
  type BlockQuantizeOptions,
  type BlockScheme,
  type BlockTensor,
  type CustomScheme,
  type SchemeName,
} from "./mx.js";

/**
 * Quantizes float32 values into a block-scaled tensor: per block of `blockSize` elements one scale code (OCP MX:
 * E8M0 2^(⌊log2 amax⌋ − emax_elem) from the float32 exponent bits, clamped to [2^−127, 2^127]; NVFP4: E4M3
 * amax / (6·T)) and the elements V/X rounded (default RNE) and saturated into the element format.
 */
export function quantizeBlocks(src: Float32Array, scheme: SchemeName | CustomScheme | BlockScheme, options?: BlockQuantizeOptions): BlockTensor {
  if (!(src instanceof Float32Array)) throw new ArgumentTypeError("src", `got ${describe(src)}; allowed: a Float32Array`);
  requireAttached(src, "src");
  const s = blockScheme(scheme);
  const plan = planBlocks(src, s, options);
  const n = src.length;
  const [scales, elements] = blockOutputs(src, options?.out, Math.ceil(n / plan.blockSize), elementBytes(s, n));
  // The kernel when on (useKernels) and covering the plan, else the reference: the same codes either way. The
  // kernel returns the outputs' current views (a Wasm view is re-created when memory grew during the call).
  const written = quantizeBlocksKernel(src, plan, scales, elements);
  if (!written) quantizeBlocksReference(src, plan, scales, elements);
  const [sc, el] = written ?? [scales, elements];
  return { scheme: s, length: n, blockSize: plan.blockSize, scales: sc, elements: el, ...(s.rule === "ratio" && { tensorScale: plan.tensorScale }) };
}

/** options.out checked (lengths, live, no overlap with src or each other), or two new arrays. */
function blockOutputs(src: Float32Array, out: unknown, scaleCount: number, elementCount: number): [Uint8Array, Uint8Array] {
  if (out === undefined) return [new Uint8Array(scaleCount), new Uint8Array(elementCount)];
  if (out === null || typeof out !== "object")
    throw new ArgumentTypeError("options.out", `got ${describe(out)}; allowed: { scales, elements }, two Uint8Arrays`);
  checkOptions(out, OUTPUT_KEYS, "options.out");
  const { scales, elements } = out as { scales: unknown; elements: unknown };
  const checked = [
    [scales, scaleCount, "options.out.scales", "one scale code per block"],
    [elements, elementCount, "options.out.elements", "the element codes"],
  ] as const;
  for (const [a, length, argument, what] of checked) {
    if (!(a instanceof Uint8Array)) throw new ArgumentTypeError(argument, `got ${describe(a)}; allowed: a Uint8Array of length ${length} (${what})`);
    requireAttached(a, argument);
    if (a.length !== length) throw new CodeRangeError(argument, `has length ${a.length}; allowed: ${length} (${what})`);
  }
  const s = scales as Uint8Array;
  const e = elements as Uint8Array;
  if (overlap(s, e)) throw new ArgumentTypeError("options.out.elements", "overlaps options.out.scales; allowed: separate arrays");
  for (const [a, argument] of [
    [s, "options.out.scales"],
    [e, "options.out.elements"],
  ] as const) {
    if (overlap(a, src)) throw new ArgumentTypeError(argument, "overlaps src; allowed: an array apart from the input");
  }
  return [s, e];
}

const OUTPUT_KEYS = ["scales", "elements"] as const;

function overlap(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return (
    a.buffer === b.buffer && a.byteLength > 0 && b.byteLength > 0 && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength
  );
}

/** Decodes a block-scaled tensor into float32: X·P_i (·T), rounded once to float32; a NaN scale gives NaN elements. */
export function dequantizeBlocks(q: BlockTensor, options?: { out?: Float32Array }): Float32Array {
  if (q === null || typeof q !== "object") throw new ArgumentTypeError("q", `got ${describe(q)}; allowed: a BlockTensor from quantizeBlocks`);
  const s = blockScheme(q.scheme, "q.scheme");
  const n = q.length;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw new CodeRangeError("q.length", `got ${describe(n)}; allowed: a non-negative integer`);
  const B = q.blockSize ?? s.blockSize;
  if (!Number.isInteger(B) || B < 1) throw new CodeRangeError("q.blockSize", `got ${describe(B)}; allowed: a positive integer`);
  // Attached first: a freed or transferred array must not be read, nor misreported by its length.
  if (q.scales instanceof Uint8Array) requireAttached(q.scales, "q.scales");
  if (q.elements instanceof Uint8Array) requireAttached(q.elements, "q.elements");
  if (!(q.scales instanceof Uint8Array) || q.scales.length !== Math.ceil(n / B)) {
    throw new CodeRangeError("q.scales", `got ${describe(q.scales)}; allowed: a Uint8Array of ceil(${n} / ${B}) = ${Math.ceil(n / B)} scale codes`);
  }
  if (!(q.elements instanceof Uint8Array) || q.elements.length !== elementBytes(s, n)) {
    throw new CodeRangeError("q.elements", `got ${describe(q.elements)}; allowed: a Uint8Array of ${elementBytes(s, n)} bytes`);
  }
  const T = q.tensorScale ?? 1;
  if (typeof T !== "number" || !(T > 0)) throw new CodeRangeError("q.tensorScale", `got ${describe(T)}; allowed: a positive float32`);
  const given = checkOptions(options, OUT_KEYS).out;
  if (given instanceof Float32Array) requireAttached(given, "options.out");
  if (given !== undefined && (!(given instanceof Float32Array) || given.length !== n))
    throw new CodeRangeError("options.out", `got ${describe(given)}; allowed: a Float32Array of length ${n}`);
  const ev = elementValues(s);
  const sv = scaleValues(s);
  // Every code is checked before the first write: a refused call leaves out as it was.
  const limit = s.twosComplement ? 256 : s.element.codeCount;
  if (!s.packed && limit < 256) {
    for (let i = 0; i < n; i++) {
      if (q.elements[i]! >= limit) throw new CodeRangeError(`q.elements[${i}]`, `is ${q.elements[i]}; allowed: a ${s.element.name} code in [0, ${limit - 1}]`);
    }
  }
  for (let k = 0; k * B < n; k++) {
    const c = q.scales[k]!;
    if (c >= sv.length) throw new CodeRangeError(`q.scales[${k}]`, `is ${c}; allowed: a ${s.scale.name} code in [0, ${sv.length - 1}]`);
  }
  const out = given ?? new Float32Array(n);
  for (let k = 0; k * B < n; k++) {
    const X = sv[q.scales[k]!]! * T; // ≤ 8 + 24 significant bits: exact
    const end = Math.min(n, (k + 1) * B);
    for (let i = k * B; i < end; i++) {
      const code = s.packed ? (i & 1 ? q.elements[i >> 1]! >> 4 : q.elements[i >> 1]! & 15) : q.elements[i]!;
      // The exact float64 product, rounded once to float32 by the store; ∞ · 0 as the canonical quiet NaN (the
      // hardware's own NaN for it has the sign bit set on x86 and not on Arm or GPUs).
      const v = X * ev[code]!;
      out[i] = v === v ? v : Number.NaN;
    }
  }
  return out;
}
