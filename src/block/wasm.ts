// The Wasm path of quantizeBlocks (assembly/block.ts): power-of-two scales, round to nearest even, element formats
// with IEEE-style layout and gradual subnormals, blocks of 16·j elements. Streams the input through a fixed
// scratch region (memory does not grow with the input); a trailing partial block runs through the reference.
import { float32Bits } from "../exact/value.js";
import { kernels } from "../wasm/instance.js";
import { allocBytesRaw, freeBytesRaw, inWasm, keep, memoryBuffer } from "../wasm/memory.js";
import { type BlockPlan, maxValue, quantizeBlocksReference } from "./mx.js";

interface BlockKernels {
  mxParams(M: number, bias: number, maxBits: number, minNormalBits: number, cBits: number, signBit: number): void;
  mxQuantize(src: number, blocks: number, B: number, scales: number, elems: number, emax: number, fixedExp: number, minExp: number, maxExp: number, code0: number, nanCode: number, M: number, packed: number, twos: number, negZero: number): void;
}

/** Elements per streamed chunk (a multiple of every kernel block size up to it). */
const CHUNK = 65536;

/** Whether the kernel computes exactly what quantizeBlocksReference computes for this plan. */
export function kernelApplies(plan: BlockPlan): boolean {
  const s = plan.scheme;
  const e = s.element;
  return (
    s.rule === "pow2" &&
    plan.rho.rounding === "NearestTiesToEven" &&
    plan.blockSize % 16 === 0 &&
    plan.blockSize <= CHUNK &&
    e.signed &&
    e.zero &&
    e.subnormals === "gradual" &&
    e.K <= 8 &&
    e.minQuantumExponent >= -100 &&
    e.bias + e.P < 120 &&
    s.scale.K <= 8 &&
    s.scale.P === 1 &&
    s.scale.signBit === 0
  );
}

export function quantizeBlocksKernel(src: Float32Array, plan: BlockPlan, scales: Uint8Array, elements: Uint8Array): boolean {
  const k = kernels() as unknown as BlockKernels | undefined;
  if (!k || typeof k.mxQuantize !== "function" || !kernelApplies(plan)) return false;
  const s = plan.scheme;
  const e = s.element;
  const B = plan.blockSize;
  const full = Math.floor(src.length / B);
  if (full > 0) {
    const chunkBlocks = Math.floor(CHUNK / B);
    const chunk = chunkBlocks * B;
    const elemBytes = s.packed ? chunk / 2 : chunk;
    // Taken before allocating: a memory growth detaches Wasm views, keep() re-creates them at the same address.
    const current = keep(src);
    const pSrc = allocBytesRaw(chunk * 4);
    const pScales = allocBytesRaw(chunkBlocks);
    const pElems = allocBytesRaw(elemBytes);
    try {
      k.mxParams(e.P - 1, e.bias, float32Bits(maxValue(e)), float32Bits(2 ** (1 - e.bias)), float32Bits(2 ** (e.minQuantumExponent + 23)), e.signBit);
      const code0 = s.scale.minPositiveCode - s.minScaleExp;
      const nanCode = s.scale.nanCode;
      const negZero = e.negativeZero === "zero" && e.signedZeroAndNaN ? 1 : 0;
      for (let b0 = 0; b0 < full; b0 += chunkBlocks) {
        const blocks = Math.min(chunkBlocks, full - b0);
        const n = blocks * B;
        // A Float32Array that already lives in Wasm memory (allocFloat32) is read in place: no copy.
        const view = current();
        const inPlace = inWasm(view);
        const from = inPlace ? view.byteOffset + b0 * B * 4 : pSrc;
        if (!inPlace) new Float32Array(memoryBuffer(), pSrc, n).set(view.subarray(b0 * B, b0 * B + n));
        k.mxQuantize(from, blocks, B, pScales, pElems, s.emax, plan.fixedExp ?? -10000, s.minScaleExp, s.maxScaleExp, code0, nanCode, e.P - 1, s.packed ? 1 : 0, s.twosComplement ? 1 : 0, negZero);
        const buf = memoryBuffer();
        scales.set(new Uint8Array(buf, pScales, blocks), b0);
        const bytes = s.packed ? n / 2 : n;
        elements.set(new Uint8Array(buf, pElems, bytes), s.packed ? (b0 * B) / 2 : b0 * B);
      }
    } finally {
      freeBytesRaw(pElems, elemBytes);
      freeBytesRaw(pScales, chunkBlocks);
      freeBytesRaw(pSrc, chunk * 4);
    }
  }
  if (full * B < src.length) quantizeBlocksReference(keep(src)(), plan, scales, elements, full);
  return true;
}
