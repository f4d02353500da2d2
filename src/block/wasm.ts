// The Wasm path of quantizeBlocks (assembly/block.ts): power-of-two scales, round to nearest even, element formats
// with IEEE-style layout and gradual subnormals, blocks of 16·j elements. Streams the input through a fixed
// scratch region (memory does not grow with the input); a trailing partial block runs through the reference.
import { float32Bits } from "../exact/value.js";
import { kernels } from "../wasm/instance.js";
import { CHUNK, allocBytesRaw, freeBytesRaw, keep, memoryBuffer, stream } from "../wasm/memory.js";
import { type BlockPlan, maxValue, quantizeBlocksReference } from "./mx.js";

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

/** The words of mxQuantize's parameter block for a plan (layout in assembly/block.ts). */
function mxParamWords(plan: BlockPlan): Int32Array {
  const s = plan.scheme;
  const e = s.element;
  const M = e.P - 1;
  const vectors = [
    0x7fffffff,
    float32Bits(maxValue(e)),
    0x7f800000,
    (23 - M) << 23,
    float32Bits(2 ** (e.minQuantumExponent + 23)),
    e.signBit,
    0xff,
    0x000f000f,
  ];
  const negZero = e.negativeZero === "zero" && e.policy.signedZeroAndNaN;
  const scalars = [
    plan.blockSize,
    s.emax,
    plan.fixedExp ?? -10000,
    s.minScaleExp,
    s.maxScaleExp,
    s.scale.minPositiveCode - s.minScaleExp,
    s.scale.nanCode,
    M,
    s.packed ? 1 : 0,
    s.twosComplement ? 1 : 0,
    negZero ? 1 : 0,
  ];
  return Int32Array.from([...vectors.flatMap((v) => [v, v, v, v]), ...scalars, 0]);
}

export function quantizeBlocksKernel(src: Float32Array, plan: BlockPlan, scales: Uint8Array, elements: Uint8Array): boolean {
  const k = kernels();
  if (!k || !kernelApplies(plan)) return false;
  const B = plan.blockSize;
  const full = Math.floor(src.length / B);
  // Taken before allocating: a memory growth detaches Wasm views, keep() re-creates them at the same address.
  const [srcNow, scalesNow, elementsNow] = [keep(src), keep(scales), keep(elements)];
  if (full > 0) {
    const params = mxParamWords(plan);
    const p = allocBytesRaw(params.byteLength);
    try {
      new Int32Array(memoryBuffer(), p, params.length).set(params);
      const elementBytes = plan.scheme.packed ? B / 2 : B;
      stream(srcNow(), elementsNow(), (s, d, count, _first, [sc]) => k.mxQuantize(p, s, count / B, sc!, d), {
        n: full * B,
        group: B,
        outGroupBytes: elementBytes,
        outputs: [{ array: scalesNow(), groupBytes: 1 }],
      });
    } finally {
      freeBytesRaw(p, params.byteLength);
    }
  }
  if (full * B < src.length) quantizeBlocksReference(srcNow(), plan, scalesNow(), elementsNow(), full);
  return true;
}
