// Wasm kernels of minifloat: raw pointer ABI (byte addresses and counts), no runtime objects, no imports.
export { decodeLut8, decodeLut16, decodeLut8To16, decodeLut16To16, decodeShift16, decodeIeee16, decodeIeee16NaNs, nibblePlanes, decodeNibbles, decodePacked4, decodePacked6, decodeAffine, decodeAffineTo16, decodePacked6Affine, maxU8, maxU16 } from "./decode";
export { pack4, unpack4, pack6, unpack6 } from "./pack";
export { encodeParams, encodeParamsBytes, encodeF32 } from "./encode";
export { dotBatch, dotParams, dotParamsBytes } from "./dot";
export { amaxFinite, mxParamsBytes, mxQuantize } from "./block";
export { lutApply2x8, lutApply1x8 } from "./lut";
export { gatherScaled8To16, gatherScaled8To32, gatherCodedTo16, gatherCodedTo32, scaledTablesOdd } from "./scaled";
export { errorSumsF32 } from "./stats";
export { amaxBlocks, scaleBlocks } from "./bands";
export { q8Elements, e2m1Nearest, e2m1Pack, q8Decode, e2m1Decode, ue4m3Scales } from "./ggml";
export { roundToOdd32 } from "./odd";
export { scaledValues } from "./scaled-values";
export { transpose32 } from "./transpose";

/** First byte the host allocator may use (after the kernels' constant tables). */
export function heapBase(): usize {
  return __heap_base;
}
