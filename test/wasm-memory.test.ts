// The JS-side Wasm allocator, handles across memory growth, and the streaming driver.
import { describe, expect, it } from "vitest";
import { ArgumentTypeError, CodeRangeError, allocBytes, allocCodes, allocFloat32, dequantize, memoryStats as publicStats, packCodes } from "../src/index.js";
import { initKernels } from "../src/api/init.js";
import { kernelStatus, kernels, useKernels } from "../src/wasm/instance.js";
import { CHUNK, MAX_MEMORY_BYTES, allocBytesRaw, freeBytesRaw, memoryStats, stream } from "../src/wasm/memory.js";

describe("allocator and handles", () => {
  it("hands out 64-byte aligned, disjoint views of the requested type and length", () => {
    const a = allocFloat32(100);
    const b = allocCodes("Binary12p5se", 7);
    const c = allocBytes(1);
    expect(a.array).toBeInstanceOf(Float32Array);
    expect(b.array).toBeInstanceOf(Uint16Array);
    expect([a.array.length, b.array.length, c.array.length]).toEqual([100, 7, 1]);
    expect(allocCodes("float8_e4m3fn", 3).array).toBeInstanceOf(Uint8Array);
    for (const h of [a, b, c]) {
      expect(h.ptr % 64).toBe(0);
      expect(h.array.buffer).toBe(kernels()!.memory.buffer);
      expect(h.array.byteOffset).toBe(h.ptr);
    }
    expect(b.ptr >= a.ptr + 400 || b.ptr + 14 <= a.ptr).toBe(true);
    expect(c.ptr >= b.ptr + 14 || c.ptr + 1 <= b.ptr).toBe(true);
    for (const h of [a, b, c]) h.free();
  });

  it("hands out zeroed arrays: a block used before (raw bytes written by a kernel, a freed array) and the memory above, partly both", () => {
    // Dirty a region through raw blocks (what kernels write is not zeroed on free), then free it.
    const raw = allocBytesRaw(3 * 4096);
    new Uint8Array(kernels()!.memory.buffer, raw, 3 * 4096).fill(0xa5);
    const old = allocFloat32(1024);
    old.array.fill(-1);
    freeBytesRaw(raw, 3 * 4096);
    old.free();
    // Larger than the freed blocks together: partly reused, partly never handed out before.
    for (const n of [16, 1024, 5000, 200_000]) {
      const h = allocFloat32(n);
      expect(h.array.every((v) => Object.is(v, 0))).toBe(true);
      h.array.fill(7);
      h.free();
    }
  });

  it("keeps data and re-creates views across memory growth; stale views are rejected by name", () => {
    const h = allocFloat32(1000);
    h.array.forEach((_, i, a) => (a[i] = i * 0.5));
    const stale = h.array;
    const before = memoryStats().memoryBytes;
    const big = allocBytes(before + 8 * 2 ** 20);
    expect(memoryStats().memoryBytes).toBeGreaterThan(before);
    expect(stale.length).toBe(0);
    expect(h.array === stale).toBe(false);
    expect(h.array[999]).toBe(499.5);
    expect(() => dequantize(new Uint8Array(0), "float8_e4m3fn", { out: stale })).toThrow(ArgumentTypeError);
    const codes = allocCodes("float8_e4m3fn", 1);
    const staleCodes = codes.array;
    const grow = allocBytes(memoryStats().memoryBytes);
    expect(() => dequantize(staleCodes, "float8_e4m3fn")).toThrow(/^codes: is a .*detached/);
    expect(() => packCodes(staleCodes, 4)).toThrow(/^codes: is a .*detached/);
    for (const x of [h, big, codes, grow]) x.free();
  });

  it("returns a current view when a call grows memory under zero-copy arrays", () => {
    // Binary16p8se decodes through a table (2^−127 and below are float32 subnormals, beyond the IEEE rule).
    const codes = allocCodes("Binary16p8se", 4);
    const out = allocFloat32(4);
    codes.array.set([0, 1, 0x3c00, 0x8000]);
    // A new 16-bit format needs a 256 KiB table: use up free blocks and the memory's tail so the upload must grow it.
    const fillers = [allocBytes(memoryStats().memoryBytes - memoryStats().topBytes)];
    while (memoryStats().largestFreeBlock >= 2 ** 18) fillers.push(allocBytes(2 ** 18));
    const size = memoryStats().memoryBytes;
    const y = dequantize(codes.array, "Binary16p8se", { out: out.array });
    expect(memoryStats().memoryBytes).toBeGreaterThan(size);
    expect(y.buffer).toBe(kernels()!.memory.buffer);
    expect(y.byteOffset).toBe(out.ptr);
    expect(y.length).toBe(4);
    expect(Array.from(out.array)).toEqual([0, 2 ** -134, 2 ** -8, NaN]);
    for (const x of [codes, out, ...fillers]) x.free();
  });

  it("10^4 alloc/free cycles of mixed sizes keep memory bounded and return every byte", () => {
    const start = memoryStats();
    const held: { free(): void }[] = [];
    let s = 12345;
    for (let i = 0; i < 10_000; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      held.push(s & 1 ? allocBytes(s % 100_000) : allocFloat32(s % 5000));
      if (held.length > 8) held.splice(s % held.length, 1)[0]!.free();
    }
    for (const h of held) h.free();
    const end = memoryStats();
    expect(end.liveBytes).toBe(start.liveBytes);
    expect(end.topBytes).toBeLessThanOrEqual(start.topBytes);
    expect(end.memoryBytes).toBeLessThanOrEqual(Math.max(start.memoryBytes, 16 * 2 ** 20));
  });

  it("rejects sizes beyond the 4 GiB wasm32 cap with CodeRangeError, before growing", () => {
    const before = memoryStats().memoryBytes;
    expect(() => allocFloat32(2 ** 30 + 1)).toThrow(CodeRangeError);
    expect(() => allocFloat32(2 ** 30 + 1)).toThrow(/^n: is 1073741825 elements \(4294967300 bytes\); allowed: at most 4 GiB/);
    expect(() => allocBytesRaw(MAX_MEMORY_BYTES - 1024)).toThrow(/allowed: at most 4 GiB in all/);
    expect(() => allocBytes(-1)).toThrow(/^n: got -1; allowed: a non-negative integer$/);
    expect(() => allocBytes(1.5)).toThrow(CodeRangeError);
    expect(memoryStats().memoryBytes).toBe(before);
  });

  it("free() is idempotent and a freed handle refuses use", () => {
    const h = allocBytes(10);
    const live = memoryStats().liveBytes;
    h.free();
    h.free();
    expect(h.freed).toBe(true);
    expect(memoryStats().liveBytes).toBe(live - 64);
    expect(() => h.array).toThrow(/^handle: was freed/);
    expect(() => h.ptr).toThrow(ArgumentTypeError);
  });

  it("memoryStats (public) returns to its value once handles are freed, and after a refused call", () => {
    // The kernels' tables and stream scratch, cached from the first calls on.
    dequantize(new Uint8Array(70000), "float4_e2m1fn");
    const before = publicStats().liveBytes;
    const handles = [allocFloat32(1000), allocCodes("Binary8p3se", 77), allocBytes(3)];
    expect(publicStats().liveBytes).toBe(before + 4032 + 128 + 64);
    const bad = new Uint8Array(70000).fill(1);
    bad[69999] = 16;
    expect(() => dequantize(bad, "float4_e2m1fn")).toThrow(CodeRangeError);
    for (const h of handles) h.free();
    expect(publicStats()).toMatchObject({ liveBytes: before });
  });
});

describe("stream()", () => {
  const k = kernels()!;
  const sumBytes = (s: number, n: number) => {
    let t = 0;
    const m = new Uint8Array(k.memory.buffer, s, n);
    for (const b of m) t += b;
    return t;
  };

  it("copies JS arrays through fixed chunks, in order, without growing memory with n", () => {
    const n = 5 * CHUNK + 3;
    const src = new Uint8Array(n).map((_, i) => i * 13);
    const out = new Float32Array(n);
    const table = allocBytesRaw(1024);
    new Uint32Array(k.memory.buffer, table, 256).forEach((_, i, t) => (t[i] = i * 0x01010101));
    const firsts: number[] = [];
    stream(src, out, (s, d, count, first) => {
      firsts.push(first, count);
      k.decodeLut8(s, d, count, table);
    });
    expect(firsts).toEqual([0, CHUNK, CHUNK, CHUNK, 2 * CHUNK, CHUNK, 3 * CHUNK, CHUNK, 4 * CHUNK, CHUNK, 5 * CHUNK, 3]);
    const bits = new Uint32Array(out.buffer);
    expect(bits.every((v, i) => v === ((i * 13) & 255) * 0x01010101)).toBe(true);
    const grown = memoryStats().memoryBytes;
    stream(new Uint8Array(4 * n), new Float32Array(4 * n), (s, d, count) => k.decodeLut8(s, d, count, table));
    expect(memoryStats().memoryBytes).toBe(grown);
    freeBytesRaw(table, 1024);
  });

  it("passes Wasm views by address (zero-copy) and mixes them with copied sides", () => {
    const src = allocBytes(3 * CHUNK);
    src.array.fill(2);
    const ptrs = new Set<number>();
    stream(src.array, null, (s, _d, count, first) => {
      ptrs.add(s - first);
      expect(sumBytes(s, count)).toBe(2 * count);
    });
    expect([...ptrs]).toEqual([src.ptr]);
    const out = new Uint8Array(3 * CHUNK);
    stream(src.array, out, (s, d, count) => new Uint8Array(k.memory.buffer, d, count).set(new Uint8Array(k.memory.buffer, s, count)));
    expect(out.every((v) => v === 2)).toBe(true);
    src.free();
  });

  it("with whole: one call when every array is in Wasm memory, chunks as before when a side is a JS array", () => {
    const n = 3 * CHUNK + 5;
    const src = allocBytes(n);
    const out = allocBytes(n);
    src.array.forEach((_, i, a) => (a[i] = i * 7));
    const calls: number[] = [];
    const copy = (s: number, d: number, count: number, first: number) => {
      calls.push(first, count);
      new Uint8Array(k.memory.buffer, d, count).set(new Uint8Array(k.memory.buffer, s, count));
    };
    stream(src.array, out.array, copy, { whole: true });
    expect(calls).toEqual([0, n]);
    expect(out.array.every((v, i) => v === ((i * 7) & 255))).toBe(true);
    calls.length = 0;
    const plain = new Uint8Array(n);
    stream(src.array, plain, copy, { whole: true });
    expect(calls).toEqual([0, CHUNK, CHUNK, CHUNK, 2 * CHUNK, CHUNK, 3 * CHUNK, 5]);
    expect(plain.every((v, i) => v === ((i * 7) & 255))).toBe(true);
    src.free();
    out.free();
  });

  it("streams packed groups and extra inputs, with a nested stream getting its own scratch", () => {
    const n = CHUNK + 5;
    const packed = new Uint8Array(Math.ceil((3 * n) / 4)).map((_, i) => i);
    const extra = new Uint32Array(n).map((_, i) => i);
    const seen: number[] = [];
    stream(
      packed,
      null,
      (s, _d, count, first, [e]) => {
        expect(new Uint32Array(k.memory.buffer, e!, 1)[0]).toBe(first);
        expect(new Uint8Array(k.memory.buffer, s, 1)[0]).toBe(((first / 4) * 3) & 255);
        stream(new Uint8Array(10).fill(1), null, (s2, _d2, c2) => seen.push(sumBytes(s2, c2)));
        seen.push(count);
      },
      { n, group: 4, srcGroupBytes: 3, extra: [extra] },
    );
    expect(seen).toEqual([10, CHUNK, 10, 5]);
  });

  it("rejects overlapping input and output and too-short arrays", () => {
    const buf = new ArrayBuffer(4096);
    expect(() => stream(new Uint8Array(buf, 0, 100), new Float32Array(buf, 96, 100), () => {})).toThrow(/^out: overlaps the input; allowed: a separate array$/);
    expect(() => stream(new Uint8Array(10), new Float32Array(5), () => {}, { n: 10 })).toThrow(/^out: has 20 bytes; allowed: at least 40 for 10 elements$/);
  });
});

describe("instance", () => {
  it("compiles asynchronously too, and useKernels(false) switches bulk calls to the reference", async () => {
    expect(await initKernels()).toBe(true);
    useKernels(false);
    expect(kernelStatus()).toEqual({ available: true, enabled: false, tier: process.env.MINIFLOAT_EXPECT_TIER });
    expect(() => allocBytes(1)).toThrow(/^wasm: the WebAssembly kernels are unavailable/);
    expect(Array.from(dequantize(new Uint8Array([0x38, 0xb8]), "float8_e4m3fn"))).toEqual([1, -1]);
    useKernels(true);
    expect(kernelStatus()).toEqual({ available: true, enabled: true, tier: process.env.MINIFLOAT_EXPECT_TIER });
  });
});

describe("bundles", () => {
  it("the browser bundle carries the kernels inline and instantiates them without Node APIs", async () => {
    const url = new URL("../build/browser/index.js", import.meta.url);
    const browser = await import(/* @vite-ignore */ url.href);
    expect(browser.kernelStatus()).toEqual({ available: true, enabled: true, tier: process.env.MINIFLOAT_EXPECT_TIER });
    const codes = browser.allocCodes("float4_e2m1fn", 3);
    codes.array.set([1, 7, 15]);
    expect(Array.from(browser.dequantize(codes.array, "float4_e2m1fn"))).toEqual([0.5, 6, -6]);
    codes.free();
  });
});
