// Quantize in Wasm: packs the encode kernel's constants (src/kernel/encode-constants.ts) into its parameter block (layout:
// encode-layout.ts, generated from scripts/encode-layout.mjs) and streams float32 arrays through it. Unsupported
// cases return undefined so the caller runs the exact reference.
import { type ResolvedProjection, isStochastic } from "../exact/projection.js";
import type { Format } from "../format/model.js";
import { type EncodeConstants, encodeConstants, encodeSupported } from "../kernel/encode-constants.js";
import { fieldsLog2, seedKeys } from "../random.js";
import { BLOCK_WORDS, RandomSource, SCALAR, SLOT, SLOT_TYPE, type ScalarName, type SlotName, Variant } from "./encode-layout.js";
import { kernels } from "./instance.js";
import { keep, memoryBuffer, stream, type WasmView } from "./memory.js";
import { float32Bits } from "../exact/value.js";
import { binary32Prefix } from "../exact/tables.js";

export { BLOCK_WORDS } from "./encode-layout.js";
export { MAX_KERNEL_STOCHASTIC_BITS, encodeSupported } from "../kernel/encode-constants.js";

export type WasmRandom = { seed: number } | { array: Uint8Array | Uint16Array | Uint32Array } | undefined;

/** The i32 word of a slot's lanes: float32 bits, a 16-bit value in both halves, a narrow code in every byte (K ≤ 8) or half, or the value. */
function laneWord(type: "i32" | "f32" | "half" | "narrow", v: number, wide: boolean): number {
  if (type === "f32") return float32Bits(v) | 0;
  if (type === "half") return (v & 0xffff) * 0x10001;
  if (type === "narrow") return wide ? (v & 0xffff) * 0x10001 : (v & 0xff) * 0x01010101;
  return v | 0;
}

/** The Wasm kernel's words: the shared constants plus the random source, its seed keys and the variant flags. */
function wasmConstants(
  c: EncodeConstants,
  f: Format,
  rho: ResolvedProjection,
  random: number,
  key0: number,
  key1: number,
): Record<SlotName | ScalarName, number> {
  const N = rho.stochasticBits;
  const fast = c.fast
    ? Variant.fast |
      (c.fastKeepPayload ? Variant.keepPayload : 0) |
      (c.fastDirected ? Variant.directed : 0) |
      (c.fastNoZero ? Variant.noZero : 0) |
      (c.fastCarry ? Variant.carry : 0)
    : 0;
  // binary32's prefixes under NearestTiesToEven round the float32 bits in place (assembly/encode.ts, prefix); codes in
  // the top binade (∞, NaN, overflow) take the fast path.
  const prefix = fast && !c.fastDirected && !c.fastNoZero && rho.rounding === "NearestTiesToEven" && binary32Prefix(f) ? Variant.prefix : 0;
  const variant = (f.K > 8 ? Variant.wide : 0) | (c.stageC ? Variant.stageC : 0) | fast | prefix;
  return { ...c, key0, key1, random, fields: N > 0 ? fieldsLog2(N) : 0, variant };
}

/** The parameter block's words: every slot splatted over its four lanes, then the scalar words. */
function packBlock(c: Record<SlotName | ScalarName, number>, wide: boolean): Int32Array {
  const block = new Int32Array(BLOCK_WORDS);
  for (const name of Object.keys(SLOT) as SlotName[]) block.fill(laneWord(SLOT_TYPE[name], c[name], wide), SLOT[name] * 4, SLOT[name] * 4 + 4);
  const scalars = Object.keys(SLOT).length * 4;
  for (const [name, index] of Object.entries(SCALAR)) block[scalars + index] = c[name as keyof typeof SCALAR];
  return block;
}

const blocks = new WeakMap<Format, Map<string, Int32Array>>();

/** The last block handed out and what it was for: repeated calls with one format skip building the map's key. */
let last: { f: Format; rho: ResolvedProjection; kind: number; key0: number; key1: number; block: Int32Array } | undefined;

function sameRequest(f: Format, rho: ResolvedProjection, kind: number, key0: number, key1: number): boolean {
  if (!last || last.f !== f || last.kind !== kind || last.key0 !== key0 || last.key1 !== key1) return false;
  const r = last.rho;
  return (
    r.rounding === rho.rounding &&
    r.saturation === rho.saturation &&
    r.stochasticBits === rho.stochasticBits &&
    r.vendor === rho.vendor &&
    r.datums === rho.datums
  );
}

function cachedBlock(f: Format, rho: ResolvedProjection, kind: number, key0: number, key1: number): Int32Array {
  if (sameRequest(f, rho, kind, key0, key1)) return last!.block;
  let perFormat = blocks.get(f);
  if (!perFormat) blocks.set(f, (perFormat = new Map()));
  const key = `${rho.rounding}/${rho.saturation}/${rho.stochasticBits}/${rho.vendor}/${rho.datums}/${kind}/${key0}/${key1}`;
  let block = perFormat.get(key);
  if (!block) {
    block = packBlock(wasmConstants(encodeConstants(f, rho), f, rho, kind, key0, key1), f.K > 8);
    if (perFormat.size > 64) perFormat.clear();
    perFormat.set(key, block);
  }
  last = { f, rho, kind, key0, key1, block };
  return block;
}

function randomKind(random: WasmRandom): number {
  if (random === undefined) return RandomSource.none;
  if ("seed" in random) return RandomSource.seed;
  return random.array instanceof Uint8Array ? RandomSource.u8 : random.array instanceof Uint16Array ? RandomSource.u16 : RandomSource.u32;
}

/**
 * The constant words of a parameter block for (f, ρ) and the random source, or undefined when the kernel does not
 * implement the case exactly (the caller runs the reference). For hosts placing blocks themselves (minifloat/parallel).
 */
export function encodeBlock(f: Format, rho: ResolvedProjection, random: WasmRandom): Int32Array | undefined {
  if (!encodeSupported(f, rho) || isStochastic(rho.rounding) !== (random !== undefined)) return undefined;
  const [key0, key1] = random !== undefined && "seed" in random ? seedKeys(random.seed) : [0, 0];
  return cachedBlock(f, rho, randomKind(random), key0, key1);
}

/** The kernel path a constant block selects: one of the fast variants, or "generic" (the full per-lane path). */
export function encodeVariant(block: Int32Array): "generic" | "bytes" | "wide" | "wideKeep" | "prefix" {
  const v = block[Object.keys(SLOT).length * 4 + SCALAR.variant]!;
  if (!(v & Variant.fast)) return "generic";
  if (v & Variant.prefix) return "prefix";
  return !(v & Variant.wide) ? "bytes" : v & Variant.keepPayload ? "wideKeep" : "wide";
}

/**
 * Projects src into out (validated by the caller: Uint8Array codes for K ≤ 8, Uint16Array up to 16 bits, R < 2^N)
 * with the Wasm kernel and returns the current view of out (a new view when out lives in Wasm memory that grew).
 * Returns undefined, having written nothing, when the kernels are unavailable or (f, ρ) is not supported: the
 * caller then runs quantizeReference. `first` is the absolute index of src[0] (seeded R_i for a part of a larger array).
 */
export function quantizeWasm<T extends Uint8Array | Uint16Array>(
  src: Float32Array,
  f: Format,
  rho: ResolvedProjection,
  out: T,
  random: WasmRandom,
  first = 0,
): T | undefined {
  const k = kernels();
  const block = k && encodeBlock(f, rho, random);
  if (!k || !block) return undefined;
  const srcNow = keep<WasmView>(src);
  const outNow = keep<T>(out);
  const extra = random !== undefined && "array" in random ? [keep<WasmView>(random.array)] : [];
  // The block sits in the kernel's static data, so writing it cannot grow memory.
  const params = k.encodeParams();
  new Int32Array(memoryBuffer(), params, BLOCK_WORDS).set(block);
  stream(srcNow(), outNow(), (s, d, count, start, extraPtrs) => k.encodeF32(params, s, d, count, first + start, extraPtrs[0] ?? 0), {
    extra: extra.map((a) => a()),
    whole: true,
  });
  return outNow();
}
