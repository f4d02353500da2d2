// Small blocks with coded scales (ModelOpt NVFP4: E2M1 nibbles under E4M3 scales and a float32 weight_scale_2;
// compressed-tensors MXFP4: E2M1 nibbles under E8M0 scales) through readRounded's scale-code tables
// (src/checkpoint/decode.ts roundCodedBlocks, assembly/scaled.ts gatherCoded) against the TypeScript reference (the
// kernels off): every valid scale code, ranges starting at odd and even elements, mid-row, partial last blocks; with
// a GatherRoom and without; dequantizeCheckpoint over several chunks; and an invalid scale code read ahead. The files
// are bytes from the conventions' layouts (two codes per byte, the even element in the low nibble; one scale byte per
// block), not written by minifloat.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { Target } from "../src/checkpoint/decode.js";
import { GatherRoom } from "../src/checkpoint/room.js";
import { dequantizeCheckpoint, openCheckpoint } from "../src/io/index.js";
import { useKernels } from "../src/wasm/instance.js";
import { WasmArray } from "../src/wasm/memory.js";

const TARGETS: Target[] = ["BF16", "F16", "F32"];
const bitsOf = (a: Float32Array | Uint16Array) => (a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a);
/** The first index where a and b differ (lengths included), or -1. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

const dir = mkdtempSync(join(tmpdir(), "minifloat-coded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Scheme = "modelopt-nvfp4" | "ct-mxfp4";

/**
 * A model directory with one weight of [rows, K] E2M1 codes (K even) and its scale codes: scale byte b of block i is
 * valid[i mod valid.length] (the E4M3 codes 0x00…0x7E, or the E8M0 codes 0…254), except `bad` (block index → byte).
 */
function model(scheme: Scheme, rows: number, K: number, bad: ReadonlyMap<number, number> = new Map()): string {
  const width = scheme === "modelopt-nvfp4" ? 16 : 32;
  const valid = Array.from({ length: scheme === "modelopt-nvfp4" ? 0x7f : 255 }, (_, c) => c);
  const packed = new Uint8Array((rows * K) / 2);
  for (let i = 0; i < packed.length; i++) packed[i] = (i * 37 + Math.floor(i / 7)) & 255;
  const cols = Math.ceil(K / width);
  const scales = Uint8Array.from({ length: rows * cols }, (_, i) => bad.get(i) ?? valid[(i * 5) % valid.length]!);
  const header: Record<string, unknown> = {};
  const parts: Uint8Array[] = [];
  let at = 0;
  const add = (name: string, dtype: string, shape: number[], bytes: Uint8Array) => {
    header[name] = { dtype, shape, data_offsets: [at, (at += bytes.length)] };
    parts.push(bytes);
  };
  const name = "model.layers.0.mlp.down_proj";
  if (scheme === "modelopt-nvfp4") {
    add(`${name}.weight`, "U8", [rows, K / 2], packed);
    add(`${name}.weight_scale`, "F8_E4M3", [rows, cols], scales);
    // weight_scale_2 with an odd 24-bit significand: products round in every target.
    add(`${name}.weight_scale_2`, "F32", [], new Uint8Array(Float32Array.of(Math.fround(1 / 3) * 2 ** -6).buffer));
  } else {
    add(`${name}.weight_packed`, "U8", [rows, K / 2], packed);
    add(`${name}.weight_scale`, "U8", [rows, cols], scales);
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(json.length), true);
  const path = join(dir, `${scheme}-${rows}x${K}-${[...bad.keys()].join("_")}`);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, "model.safetensors"), Buffer.concat([length, new TextEncoder().encode(json), ...parts]));
  const config: Record<string, unknown> = { architectures: ["TestForCausalLM"], torch_dtype: "bfloat16" };
  if (scheme === "modelopt-nvfp4")
    writeFileSync(
      join(path, "hf_quant_config.json"),
      JSON.stringify({ producer: { name: "modelopt" }, quantization: { quant_algo: "NVFP4", group_size: 16 } }),
    );
  else
    config.quantization_config = {
      quant_method: "compressed-tensors",
      format: "mxfp4-pack-quantized",
      config_groups: {
        group_0: { targets: ["Linear"], weights: { num_bits: 4, type: "float", strategy: "group", group_size: 32 }, format: "mxfp4-pack-quantized" },
      },
    };
  writeFileSync(join(path, "config.json"), JSON.stringify(config));
  return path;
}

async function reference<T>(run: () => Promise<T>): Promise<T> {
  useKernels(false);
  try {
    return await run();
  } finally {
    useKernels(true);
  }
}

describe("coded scales: readRounded's tables equal the reference", () => {
  for (const scheme of ["modelopt-nvfp4", "ct-mxfp4"] as const) {
    it(`${scheme}: every valid scale code, odd and even starts, mid-row, partial last blocks, with and without a room`, async () => {
      // K = 1000: 62 blocks of 16 and one of 8 (NVFP4), 31 of 32 and one of 8 (MXFP4) per row.
      const c = await openCheckpoint(model(scheme, 40, 1000));
      const t = c.tensors.find((t) => t.scheme !== "plain")!;
      expect(c.codedBlocks(t)).toBe(true);
      const room = GatherRoom.create(40_000, 256)!;
      try {
        for (const to of TARGETS) {
          const type = to === "F32" ? Float32Array : Uint16Array;
          for (const [start, count] of [
            [0, 40_000],
            [3, 2_997], // odd start: codes unpacked first
            [1_016, 17], // mid-row, mid-block
            [999, 2], // across a row boundary from an odd element
            [38_990, 1_010], // the last rows, ending in a partial block
          ] as const) {
            const want = bitsOf(await reference(() => c.readRounded(t.name, to, start, count)));
            expect(firstDifference(bitsOf(await c.readRounded(t.name, to, start, count)), want)).toBe(-1);
            const out = new WasmArray<Float32Array | Uint16Array>(type, count);
            try {
              expect(await c.readRounded(t.name, to, start, count, out.array, room)).toBe(out.array);
              expect(firstDifference(bitsOf(out.array), want)).toBe(-1);
            } finally {
              out.free();
            }
          }
        }
      } finally {
        await room.close();
        await c.close();
      }
    });
  }

  it("an invalid scale code in the range: CheckpointError naming the scale tensor and element; outside it: no error", async () => {
    // Block 70 (row 1, column 7) has E4M3 NaN (0x7F); block 100 is −0 (0x80).
    const c = await openCheckpoint(model("modelopt-nvfp4", 4, 1000, new Map([[70, 0x7f]])));
    const t = c.tensors.find((t) => t.scheme !== "plain")!;
    try {
      await expect(c.readRounded(t.name, "BF16", 1000, 1000)).rejects.toThrow(/weight_scale".*element 70 is NaN/);
      expect((await c.readRounded(t.name, "BF16", 2000, 2000)).length).toBe(2000);
    } finally {
      await c.close();
    }
    const d = await openCheckpoint(model("ct-mxfp4", 4, 1000, new Map([[40, 255]])));
    try {
      await expect(d.readRounded(d.tensors[0]!.name, "F32", 0, 4000)).rejects.toThrow(/weight_scale".*element 40 is NaN/);
    } finally {
      await d.close();
    }
  });
});

describe("dequantizeCheckpoint of coded scales over several chunks equals the reference", () => {
  // 2300 rows of 1000: chunks of 1048 rows; the room reads each chunk's nibbles and scale codes ahead.
  for (const scheme of ["modelopt-nvfp4", "ct-mxfp4"] as const) {
    const input = model(scheme, 2300, 1000);
    for (const to of TARGETS) {
      it(`${scheme} → ${to}: the room path is taken, and the output is the reference's byte for byte`, async () => {
        const codes = vi.spyOn(GatherRoom.prototype, "codes");
        const out = join(dir, `out-${scheme}-${to}`);
        try {
          await dequantizeCheckpoint(input, { to, output: out, force: true });
          expect(codes).toHaveBeenCalled();
        } finally {
          codes.mockRestore();
        }
        const ref = join(dir, `reference-${scheme}-${to}`);
        await reference(() => dequantizeCheckpoint(input, { to, output: ref, force: true }));
        expect(readFileSync(join(out, "model.safetensors")).equals(readFileSync(join(ref, "model.safetensors")))).toBe(true);
      });
    }
  }

  it("an invalid scale code in a chunk read ahead: CheckpointError naming the element, no output left", async () => {
    // Block 63 · 2200 lies in the third chunk (rows 2096…2299), read ahead during the second.
    const input = model("modelopt-nvfp4", 2300, 1000, new Map([[63 * 2200, 0xff]]));
    const out = join(dir, "bad-out");
    await expect(dequantizeCheckpoint(input, { to: "BF16", output: out })).rejects.toThrow(new RegExp(`weight_scale".*element ${63 * 2200} is NaN`));
    expect(existsSync(out)).toBe(false);
  });
});
