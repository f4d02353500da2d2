// MiniFloatArray: every method for an 8-, 4-, 6-, 16- and 12-bit format, checked against the functional API
// (encode/decode/quantize/dequantize/packCodes), with Wasm memory growing between operations.
import { describe, expect, it } from "vitest";
import {
  ArgumentTypeError,
  CodeRangeError,
  FormatError,
  MiniFloatArray,
  ProjectionError,
  WasmArray,
  allocFloat32,
  decode,
  dequantize,
  encode,
  format,
  packCodes,
  quantize,
} from "../src/index.js";
import { memoryStats } from "../src/wasm/memory.js";

const FORMATS = [
  { name: "float8_e4m3fn", K: 8, type: Uint8Array },
  { name: "float4_e2m1fn", K: 4, type: Uint8Array },
  { name: "float6_e3m2fn", K: 6, type: Uint8Array },
  { name: "bfloat16", K: 16, type: Uint16Array },
  { name: "Binary12p7se", K: 12, type: Uint16Array },
] as const;

/** Values that exercise rounding, ties, subnormals, overflow, −0 and NaN in every format above. */
const VALUES = [0, -0, 1, -1.5, 0.3, 2.75, 3.5, -7, 100, 1e30, -1e30, 1e-3, 1e-9, 448, 6, Infinity, -Infinity, NaN, 0.0625, -0.4375];

/**
 * Forces Wasm memory to grow (which detaches every view of it): blocks of one byte more than the space above the
 * top until one of them lands above it (first-fit may place a block in a free gap first). Returns them to free.
 */
function growMemory(): WasmArray<Uint8Array>[] {
  const before = memoryStats().memoryBytes;
  const blocks: WasmArray<Uint8Array>[] = [];
  while (memoryStats().memoryBytes === before) blocks.push(new WasmArray(Uint8Array, before - memoryStats().topBytes + 1));
  return blocks;
}

/** The current Wasm memory (through a one-byte block), to check where arrays live. */
function wasmMemory(): ArrayBufferLike {
  const probe = new WasmArray(Uint8Array, 1);
  const buffer = probe.array.buffer;
  probe.free();
  return buffer;
}

function bits(a: Float32Array): number[] {
  return Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));
}

/** Element-wise Object.is (so −0 and NaN count), reported as the list of differing indices. */
function sameValues(a: Iterable<number>, b: Iterable<number>): void {
  const x = Array.from(a);
  const y = Array.from(b);
  expect(x.length).toBe(y.length);
  expect(x.flatMap((v, i) => (Object.is(v, y[i]) ? [] : [`${i}: ${v} vs ${y[i]}`]))).toEqual([]);
}

describe.each(FORMATS)("MiniFloatArray of $name", ({ name, K, type }) => {
  const f = format(name);
  const x = new Float32Array(VALUES);
  const expected = quantize(x, f);

  it("new (fmt, length) holds zeros in Wasm memory, with length/format/byteLength/BYTES_PER_ELEMENT", () => {
    const a = new MiniFloatArray(name, 5);
    expect(a.length).toBe(5);
    const other = new MiniFloatArray(name, 0);
    expect(a.format).toBe(other.format);
    other.free();
    expect(a.format.name).toBe(f.name);
    expect(a.BYTES_PER_ELEMENT).toBe(type.BYTES_PER_ELEMENT);
    expect(a.byteLength).toBe(5 * type.BYTES_PER_ELEMENT);
    expect(a.codes).toBeInstanceOf(type);
    expect(a.codes.buffer).toBe(wasmMemory());
    expect(Array.from(a.codes)).toEqual([0, 0, 0, 0, 0]);
    sameValues(a, [0, 0, 0, 0, 0]);
    a.free();
  });

  it("get/set(i, v) are the exact scalar decode/encode, with index checks", () => {
    const a = new MiniFloatArray(f, VALUES.length);
    VALUES.forEach((v, i) => a.set(i, v));
    expect(Array.from(a.codes)).toEqual(VALUES.map((v) => encode(v, f)));
    VALUES.forEach((v, i) => expect(Object.is(a.get(i), decode(encode(v, f), f))).toBe(true));
    for (const bad of [-1, VALUES.length, 1.5, Number.NaN]) {
      expect(() => a.get(bad)).toThrow(CodeRangeError);
      expect(() => a.set(bad, 1)).toThrow(CodeRangeError);
    }
    expect(() => a.get("0" as unknown as number)).toThrow(/index: got "0"; allowed: an integer in \[0, 19\]/);
    expect(() => a.set(0, "1" as unknown as number)).toThrow(ArgumentTypeError);
    expect(() => new MiniFloatArray(f, 0).get(0)).toThrow(/allowed: none \(the array is empty\)/);
    a.free();
  });

  it("from(Float32Array | Float64Array | numbers | iterable) equals quantize, with options", () => {
    const views = [
      MiniFloatArray.from(x, f),
      MiniFloatArray.from(Float64Array.from(x), f),
      MiniFloatArray.from(Array.from(x), name),
      MiniFloatArray.from(
        (function* () {
          yield* x;
        })(),
        f,
      ),
    ];
    for (const v of views) expect(Array.from(v.codes)).toEqual(Array.from(expected));
    const sat = MiniFloatArray.from(x, f, { saturation: "SatFinite" });
    expect(Array.from(sat.codes)).toEqual(Array.from(quantize(x, f, { saturation: "SatFinite" })));
    const sr = { rounding: "StochasticA", stochasticBits: 8, seed: 7 } as const;
    const stochastic = MiniFloatArray.from(x, f, sr);
    expect(Array.from(stochastic.codes)).toEqual(Array.from(quantize(x, f, sr)));
    expect(() => MiniFloatArray.from(x, f, { rounding: "StochasticA", stochasticBits: 8 })).toThrow(ProjectionError);
    expect(() => MiniFloatArray.from([1, "2"] as unknown as number[], f)).toThrow(/source\[1\]: got "2"; allowed: a number/);
    expect(() => MiniFloatArray.from(42 as unknown as number[], f)).toThrow(ArgumentTypeError);
    for (const v of [...views, sat, stochastic]) v.free();
  });

  it("from(MiniFloatArray) copies codes of the same format and converts others exactly", () => {
    const a = MiniFloatArray.from(x, f);
    const copy = MiniFloatArray.from(a, f);
    expect(Array.from(copy.codes)).toEqual(Array.from(a.codes));
    const wide = MiniFloatArray.from(x, "binary16");
    const converted = MiniFloatArray.from(wide, f);
    expect(Array.from(converted.codes)).toEqual(Array.from(quantize(wide.toFloat64Array(), f)));
    for (const v of [a, copy, wide, converted]) v.free();
  });

  it("fromCodes/setCodes copy checked codes", () => {
    const all = Array.from({ length: f.codeCount }, (_, c) => c);
    const codes = K <= 8 ? Uint8Array.from(all) : Uint16Array.from(all);
    const a = MiniFloatArray.fromCodes(codes, f);
    expect(Array.from(a.codes)).toEqual(Array.from(codes));
    sameValues(
      a,
      Array.from(codes, (c) => decode(c, f)),
    );
    expect(() => MiniFloatArray.fromCodes([0, f.codeCount], f)).toThrow(
      new RegExp(`codes\\[1\\]: is ${f.codeCount}; allowed: a ${name} code in \\[0, ${f.codeCount - 1}\\]`),
    );
    expect(() => MiniFloatArray.fromCodes([0.5], f)).toThrow(CodeRangeError);
    a.setCodes([1, 2, 3], f.codeCount - 3);
    expect(Array.from(a.codes.subarray(-3))).toEqual([1, 2, 3]);
    expect(() => a.setCodes([1, 2], f.codeCount - 1)).toThrow(/codes: has 2 elements; allowed: at most 1/);
    a.free();
  });

  it("set(source, offset) stores numbers, float arrays and MiniFloatArrays like TypedArray#set", () => {
    const a = new MiniFloatArray(f, 30);
    a.set(x, 5);
    expect(Array.from(a.codes.subarray(5, 25))).toEqual(Array.from(expected));
    a.set([1, 2], 28);
    expect(Array.from(a.codes.subarray(28))).toEqual([encode(1, f), encode(2, f)]);
    a.set(a.subarray(5, 10), 0);
    expect(Array.from(a.codes.subarray(0, 5))).toEqual(Array.from(expected.subarray(0, 5)));
    a.set(a.subarray(0, 10), 1);
    expect(Array.from(a.codes.subarray(1, 6))).toEqual(Array.from(expected.subarray(0, 5)));
    expect(() => a.set(x, 11)).toThrow(/source: has 20 elements; allowed: at most 19/);
    expect(() => a.set([1], 31)).toThrow(CodeRangeError);
    expect(() => a.set([1], -1)).toThrow(CodeRangeError);
    a.free();
  });

  it("fill(value, start, end) takes relative positions like TypedArray#fill", () => {
    const a = new MiniFloatArray(f, 10);
    const reference = new type(10);
    for (const [v, s, e] of [
      [1.5, undefined, undefined],
      [-3, 2, 5],
      [0.25, -4, -1],
      [7, 8, 2],
      [100, -20, 3],
    ] as const) {
      expect(a.fill(v, s, e)).toBe(a);
      reference.fill(encode(v, f), s, e);
      expect(Array.from(a.codes)).toEqual(Array.from(reference));
    }
    expect(() => a.fill(Number.NaN, 0.5)).toThrow(CodeRangeError);
    expect(() => a.fill("1" as unknown as number)).toThrow(ArgumentTypeError);
    a.free();
  });

  it("subarray is a view sharing storage and lifetime; slice is a copy", () => {
    const a = MiniFloatArray.from(x, f);
    const sub = a.subarray(2, -3);
    expect(sub.length).toBe(15);
    expect(sub.codes.byteOffset).toBe(a.codes.byteOffset + 2 * type.BYTES_PER_ELEMENT);
    sub.set(0, 1);
    expect(a.get(2)).toBe(1);
    const inner = sub.subarray(-2);
    expect(Array.from(inner.codes)).toEqual(Array.from(expected.subarray(15, 17)));
    expect(a.subarray(5, 1).length).toBe(0);
    const copy = a.slice(-4);
    expect(Array.from(copy.codes)).toEqual(Array.from(expected.subarray(16)));
    copy.set(0, 2);
    expect(a.codes[16]).toBe(expected[16]);
    sub.free();
    expect(() => sub.get(0)).toThrow(ArgumentTypeError);
    expect(a.get(2)).toBe(1);
    a.free();
    expect(inner.freed).toBe(true);
    expect(() => inner.get(0)).toThrow(/array: was freed/);
    expect(copy.get(0)).toBe(2);
    copy.free();
  });

  it("iterates values/keys/entries", () => {
    const a = MiniFloatArray.from(x, f);
    const values = Array.from(expected, (c) => decode(c, f));
    sameValues(a, values);
    sameValues(a.values(), values);
    expect(Array.from(a.keys())).toEqual(values.map((_, i) => i));
    const entries = Array.from(a.entries());
    expect(entries.map(([i]) => i)).toEqual(values.map((_, i) => i));
    sameValues(
      entries.map(([, v]) => v),
      values,
    );
    sameValues(a.toFloat64Array(), values);
    a.free();
  });

  it("toFloat32Array equals dequantize, into a new array, an ordinary out or a Wasm out", () => {
    const a = MiniFloatArray.from(x, f);
    const reference = bits(dequantize(expected, f));
    expect(bits(a.toFloat32Array())).toEqual(reference);
    const out = new Float32Array(x.length);
    expect(a.toFloat32Array(out)).toBe(out);
    expect(bits(out)).toEqual(reference);
    const wasmOut = allocFloat32(x.length);
    a.toFloat32Array(wasmOut.array);
    expect(bits(wasmOut.array)).toEqual(reference);
    expect(() => a.toFloat32Array(new Float32Array(3))).toThrow(CodeRangeError);
    wasmOut.free();
    a.free();
  });

  it("toArrayBuffer copies the codes; toPacked/fromPacked only for 4- and 6-bit formats", () => {
    const a = MiniFloatArray.from(x, f);
    const buffer = a.toArrayBuffer();
    expect(buffer).toBeInstanceOf(ArrayBuffer);
    expect(buffer.byteLength).toBe(a.byteLength);
    expect(Array.from(new type(buffer))).toEqual(Array.from(expected));
    expect(buffer).not.toBe(a.codes.buffer);
    if (K === 4 || K === 6) {
      const packed = a.toPacked();
      expect(Array.from(packed)).toEqual(Array.from(packCodes(expected as Uint8Array, K)));
      expect(packed.length).toBe(Math.ceil((x.length * K) / 8));
      const back = MiniFloatArray.fromPacked(packed, f, x.length);
      expect(Array.from(back.codes)).toEqual(Array.from(expected));
      expect(() => MiniFloatArray.fromPacked(packed.subarray(1), f, x.length)).toThrow(CodeRangeError);
      back.free();
    } else {
      expect(() => a.toPacked()).toThrow(new RegExp(`fmt: ${name} has ${K}-bit codes; allowed: a 4- or 6-bit format`));
      expect(() => MiniFloatArray.fromPacked(new Uint8Array(4), f, 4)).toThrow(ArgumentTypeError);
    }
    a.free();
  });

  it("stays valid when Wasm memory grows between operations", () => {
    const a = MiniFloatArray.from(x, f);
    const sub = a.subarray(1);
    const stale = a.codes;
    const blocks = growMemory();
    expect(stale.length).toBe(0);
    expect(Array.from(a.codes)).toEqual(Array.from(expected));
    expect(a.get(3)).toBe(decode(expected[3]!, f));
    sub.set(0, 2.75);
    expect(a.get(1)).toBe(decode(encode(2.75, f), f));
    blocks.push(...growMemory());
    a.fill(1, 0, 1);
    expect(a.get(0)).toBe(1);
    const tail = a.slice(2);
    expect(bits(tail.toFloat32Array())).toEqual(bits(dequantize(a.codes.subarray(2), f)));
    // Float32 inputs in Wasm memory: a handle is read after from() allocated; a view from before a growth is refused.
    const source = allocFloat32(x.length);
    source.array.set(x);
    const fromHandle = MiniFloatArray.from(source, f);
    expect(Array.from(fromHandle.codes)).toEqual(Array.from(expected));
    const view = source.array;
    blocks.push(...growMemory());
    expect(() => MiniFloatArray.from(view, f)).toThrow(/source: is a view of Wasm memory from before it grew/);
    expect(Array.from(new MiniFloatArray(f, x.length).quantizeFrom(source.array).codes)).toEqual(Array.from(expected));
    for (const r of [a, tail, fromHandle, source, ...blocks]) r.free();
  });

  it("free() releases the storage, later use throws, Symbol.dispose frees", () => {
    const before = memoryStats().liveBytes;
    const a = MiniFloatArray.from(x, f);
    expect(memoryStats().liveBytes).toBeGreaterThan(before);
    const sub = a.subarray(1);
    a.free();
    a.free();
    expect(memoryStats().liveBytes).toBe(before);
    expect(a.freed && sub.freed).toBe(true);
    for (const use of [
      () => a.get(0),
      () => a.set(0, 1),
      () => a.codes,
      () => a.subarray(),
      () => a.slice(),
      () => a.toFloat32Array(),
      () => a.fill(1),
      () => [...sub],
      () => a.set([1]),
      () => a.quantizeFrom(x),
    ]) {
      expect(use).toThrow(/array: was freed; allowed: a MiniFloatArray before free\(\)/);
    }
    {
      using scoped = MiniFloatArray.from(x, f);
      expect(scoped.length).toBe(x.length);
      expect(memoryStats().liveBytes).toBeGreaterThan(before);
    }
    expect(memoryStats().liveBytes).toBe(before);
  });

  it("quantizeFrom checks its source and frees a new array whose conversion failed", () => {
    const a = new MiniFloatArray(f, 3);
    expect(() => a.quantizeFrom(new Float32Array(4))).toThrow(/source: has length 4; allowed: 3/);
    expect(() => a.quantizeFrom([1, 2, 3] as unknown as Float32Array)).toThrow(ArgumentTypeError);
    expect(() => a.quantizeFrom(new Float32Array(3), { out: new type(3) } as never)).toThrow(/options: .*allowed: quantize options without out/);
    expect(a.quantizeFrom(new Float32Array([1, 2, 3]))).toBe(a);
    expect(Array.from(a)).toEqual([1, 2, 3]);
    a.free();
    const before = memoryStats().liveBytes;
    expect(() => MiniFloatArray.from(x, f, { saturation: "SatMaybe" as never })).toThrow(ProjectionError);
    expect(memoryStats().liveBytes).toBe(before);
  });
});

describe("MiniFloatArray arguments", () => {
  it("rejects formats wider than 16 bits and bad lengths by name", () => {
    expect(() => new MiniFloatArray("binary32", 1)).toThrow(FormatError);
    expect(() => new MiniFloatArray("binary32", 1)).toThrow(/fmt: binary32 has 32-bit codes; allowed: a format of at most 16 bits/);
    expect(() => new MiniFloatArray("float8_e4m3fn", -1)).toThrow(/length: got -1; allowed: an integer in \[0, 4294967296\]/);
    expect(() => new MiniFloatArray("float8_e4m3fn", 2.5)).toThrow(CodeRangeError);
    expect(() => new MiniFloatArray("nope", 1)).toThrow(FormatError);
    expect(() => new MiniFloatArray(3 as never, 1)).toThrow(ArgumentTypeError);
  });
});
