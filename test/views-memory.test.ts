// MiniFloatArray and Wasm memory: inputs re-read after a growth, bounded memory over 10^5 cycles, the
// FinalizationRegistry safety net, and ordinary storage when the kernels are off.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { MiniFloatArray, WasmArray, allocFloat32, dequantize, quantize, useKernels } from "../src/index.js";
import { memoryStats } from "../src/wasm/memory.js";

const FORMATS = ["float8_e4m3fn", "float4_e2m1fn", "float6_e3m2fn", "bfloat16", "Binary12p7se"];
const x = new Float32Array([0.5, -1.25, 3, 1e-3, 448, -0, 7.5, 1e6, Number.NaN, 0.1]);

/** A full garbage collection (the flag is set at run time, so vitest needs no extra node options). */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

describe("MiniFloatArray over Wasm memory", () => {
  // First in the file, so the allocator has no free gaps: from() must then grow memory for its own storage.
  it("re-reads views of Wasm memory at their address after from()/fromCodes() grew the memory", () => {
    /** Fills Wasm memory up to its end, so the next allocation must grow it. */
    const fill = (): { filler: WasmArray<Uint8Array>; memoryBytes: number } => {
      const { memoryBytes, topBytes } = memoryStats();
      const filler = new WasmArray(Uint8Array, memoryBytes - topBytes);
      expect(memoryStats()).toMatchObject({ memoryBytes, topBytes: memoryBytes, freeBlocks: 0 });
      return { filler, memoryBytes };
    };
    const source = allocFloat32(x.length);
    source.array.set(x);
    const first = fill();
    const view = source.array;
    const a = MiniFloatArray.from(view, "float8_e4m3fn");
    expect(memoryStats().memoryBytes).toBeGreaterThan(first.memoryBytes);
    expect(view.length).toBe(0);
    expect(Array.from(a.codes)).toEqual(Array.from(quantize(x, "float8_e4m3fn")));
    const codes = a.codes;
    const second = fill();
    const b = MiniFloatArray.fromCodes(codes, "float8_e4m3fn");
    expect(memoryStats().memoryBytes).toBeGreaterThan(second.memoryBytes);
    expect(codes.length).toBe(0);
    expect(Array.from(b.codes)).toEqual(Array.from(a.codes));
    for (const r of [a, b, first.filler, second.filler, source]) r.free();
  });

  it("keeps Wasm memory bounded over 10^5 create/convert/free cycles", () => {
    const cycle = (i: number): void => {
      const a = MiniFloatArray.from(x, FORMATS[i % FORMATS.length]!);
      const y = a.toFloat32Array();
      const copy = a.subarray(1, 6).slice(1);
      copy.set(0, y[0]!);
      if (copy.get(0) !== a.get(0) && !Number.isNaN(y[0])) throw new Error(`cycle ${i}: ${copy.get(0)} ≠ ${a.get(0)}`);
      a.free();
      copy.free();
    };
    for (let i = 0; i < 1000; i++) cycle(i);
    const before = memoryStats();
    for (let i = 0; i < 100_000; i++) cycle(i);
    const after = memoryStats();
    expect(after.memoryBytes).toBe(before.memoryBytes);
    expect(after.liveBytes).toBe(before.liveBytes);
    expect(after.topBytes).toBeLessThanOrEqual(before.topBytes + 4096);
  });

  it("returns the storage of unreachable arrays through the FinalizationRegistry", async () => {
    const before = memoryStats().liveBytes;
    (() => {
      for (let i = 0; i < 100; i++) MiniFloatArray.from(x, "bfloat16").subarray(2);
    })();
    expect(memoryStats().liveBytes).toBe(before + 100 * 64);
    // A full collection finds the arrays unreachable and queues the registry's callbacks as a task; Node runs it on
    // its next event-loop turn. Counted turns, no clock: a slow machine takes as many turns as a fast one.
    for (let turn = 0; turn < 8 && memoryStats().liveBytes > before; turn++) {
      collectGarbage();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(memoryStats().liveBytes).toBe(before);
  });

  it("uses ordinary typed arrays with the same results when the kernels are off", () => {
    const wasm = FORMATS.map((name) => MiniFloatArray.from(x, name));
    const expected = wasm.map((a) => ({ codes: Array.from(a.codes), values: Array.from(a.toFloat32Array()) }));
    for (const a of wasm) a.free();
    useKernels(false);
    try {
      FORMATS.forEach((name, i) => {
        const a = MiniFloatArray.from(x, name);
        expect(a.codes.buffer.byteLength).toBe(a.byteLength);
        expect(a.codes.byteOffset).toBe(0);
        expect(Array.from(a.codes)).toEqual(expected[i]!.codes);
        expect(Array.from(a.toFloat32Array())).toEqual(expected[i]!.values);
        expect(Array.from(dequantize(a.slice(3).codes, name))).toEqual(expected[i]!.values.slice(3));
        a.free();
        expect(() => a.get(0)).toThrow(/array: was freed/);
      });
    } finally {
      useKernels(true);
    }
  });
});
