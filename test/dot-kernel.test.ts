// The Wasm dot kernel against the scalar reference, bit for bit: random code vectors of lengths 1…4096 (lengths
// that are not multiples of BLK or of the unroll width included), every overflow mode, several format pairs and
// partials formats, NaN/Inf codes, batched matrix products with per-row and per-block E8M0 scales.
import { describe, expect, it } from "vitest";
import { format } from "../src/format/registry.js";
import { dequantize } from "../src/api/bulk.js";
import { type DotOverflow, dot, dotRows, matmul, matvec, resolveDot } from "../src/dot/index.js";
import { dotReference } from "../src/dot/reference.js";
import { dotKernel } from "../src/dot/wasm.js";
import { kernels } from "../src/wasm/instance.js";
import { mix32 } from "../src/random.js";
import { onReference } from "./kernel-switch.js";

function rng(seed: number): () => number {
  let i = 0;
  return () => mix32((seed * 0x9e3779b9 + i++) >>> 0) / 2 ** 32;
}

/** Random codes; `special` is the share of NaN/Inf codes. Magnitudes are skewed toward large values to overflow binary16. */
function codes(n: number, bits: number, rand: () => number, special = 0): Uint8Array {
  const out = new Uint8Array(n);
  const f = bits === 8 ? 256 : 16;
  for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * f);
  if (special === 0) return out;
  for (let i = 0; i < n; i++) if (rand() < special) out[i] = rand() < 0.5 ? 0x7f : 0xfc;
  return out;
}

const same = (x: number, y: number) => (Number.isNaN(x) && Number.isNaN(y)) || Object.is(x, y);
const MODES: DotOverflow[] = ["OvSAT", "OvINF", "OvNAN", "exact"];
/** Block sizes: 16 runs two blocks per step in the kernel; 32, 48 whole blocks of 16-code steps; 1, 3, 20 the general loop. */
const BLOCKS = [1, 3, 16, 20, 32, 48];

describe("dot kernel vs reference", () => {
  it("the kernels are built in (the Wasm paths below really run)", () => {
    expect(kernels()?.dotBatch).toBeTypeOf("function");
  });
  // `all`: float64 block sums are proved exact for every BLK ≤ 32 and (mode "exact") every length ≤ 4096, so the
  // kernel must take every case; otherwise it declines the long exact sums and the reference's BigInt path runs.
  const configs = [
    { formats: ["float8_e4m3fn", "float8_e4m3fn"], partials: "binary16", bits: 8, all: true },
    { formats: ["float8_e5m2", "float8_e4m3fn"], partials: "binary16", bits: 8, all: false },
    { formats: ["float8_e4m3fn", "float8_e4m3fn"], partials: "bfloat16", bits: 8, all: true },
    { formats: ["Binary8p3se", "Binary8p4se"], partials: "binary16", bits: 8, all: false },
    { formats: ["float8_e4m3fn", "float8_e4m3fn"], partials: "binary32", bits: 8, all: true },
    { formats: ["float4_e2m1fn", "float4_e2m1fn"], partials: "binary16", bits: 4, all: true },
  ] as const;
  for (const cfg of configs) {
    it(`${cfg.formats.join(" × ")} into ${cfg.partials}: every mode, lengths 1…4096`, () => {
      const rand = rng(cfg.formats.join().length * 31 + cfg.partials.length);
      const lengths = [1, 2, 3, 4, 5, 7, 15, 16, 17, 31, 33, 47, 48, 49, 63, 64, 100, 255, 1000, 2048, 4093, 4096];
      let kernelRuns = 0;
      for (const n of lengths) {
        const a = codes(n, cfg.bits, rand, cfg.bits === 8 ? 0.01 : 0);
        const b = codes(n, cfg.bits, rand, cfg.bits === 8 && n % 2 ? 0.01 : 0);
        for (const overflow of MODES) {
          for (const block of BLOCKS) {
            const r = resolveDot({ formats: cfg.formats, partials: cfg.partials, overflow, blockSize: block });
            const ref = dotReference(a, 0, b, 0, n, r.ctx);
            const out = dotKernel(a, b, n, 1, 1, r.ctx, undefined);
            if (out) {
              kernelRuns++;
              if (!same(out[0]!, ref)) throw new Error(`${cfg.formats} ${cfg.partials} ${overflow} BLK=${block} n=${n}: kernel ${out[0]} vs reference ${ref}`);
            }
            expect(same(dot(a, b, { formats: cfg.formats, partials: cfg.partials, overflow, blockSize: block }), ref)).toBe(true);
          }
        }
      }
      if (cfg.all) expect(kernelRuns).toBe(lengths.length * MODES.length * BLOCKS.length);
      else expect(kernelRuns).toBeGreaterThanOrEqual(lengths.length * 3 * BLOCKS.length);
    });
  }

  it("activation-sized operands (running totals finite and rounded, so block order matters) equal the reference", () => {
    const rand = rng(99);
    const values = dequantize(
      Uint8Array.from({ length: 256 }, (_, c) => c),
      "float8_e4m3fn",
    );
    let kernelRuns = 0;
    let rounded = 0;
    for (const n of [31, 32, 33, 47, 48, 64, 97, 100, 1000, 4093, 4096]) {
      // Magnitude codes 0x20…0x4f (0.125 … 15), random signs: sums of a few hundred products outgrow binary16's 11 bits.
      const operand = () => Uint8Array.from({ length: n }, () => (0x20 + Math.floor(rand() * 48)) | (rand() < 0.5 ? 0x80 : 0));
      const a = operand();
      const b = operand();
      let exact = 0;
      for (let i = 0; i < n; i++) exact += values[a[i]!]! * values[b[i]!]!; // exact: multiples of 2^-6 below 2^53
      for (const partials of ["binary16", "bfloat16"] as const) {
        for (const overflow of ["OvSAT", "OvINF", "OvNAN"] as const) {
          for (const block of BLOCKS) {
            const r = resolveDot({ formats: "E4M3", partials, overflow, blockSize: block });
            const ref = dotReference(a, 0, b, 0, n, r.ctx);
            const out = dotKernel(a, b, n, 1, 1, r.ctx, undefined);
            expect(out).toBeDefined();
            kernelRuns++;
            if (ref !== exact) rounded++;
            if (!same(out![0]!, ref)) throw new Error(`${partials} ${overflow} BLK=${block} n=${n}: kernel ${out![0]} vs reference ${ref}`);
          }
        }
      }
    }
    expect(kernelRuns).toBe(11 * 2 * 3 * BLOCKS.length);
    expect(rounded).toBeGreaterThan(kernelRuns / 2);
  });

  it("binary16 partials overflow in a realistic share of large random dots (the modes really differ)", () => {
    const rand = rng(7);
    let overflowed = 0;
    for (let t = 0; t < 50; t++) {
      const a = codes(1024, 8, rand);
      const b = codes(1024, 8, rand);
      for (let i = 0; i < 1024; i++) {
        a[i] = a[i]! & 0x77; // finite E4M3 codes (never 0x7f/0xff)
        b[i] = b[i]! & 0x77;
      }
      const sat = dot(a, b, { formats: "E4M3", overflow: "OvSAT" });
      const inf = dot(a, b, { formats: "E4M3", overflow: "OvINF" });
      const nan = dot(a, b, { formats: "E4M3", overflow: "OvNAN" });
      if (!Number.isFinite(inf)) {
        overflowed++;
        expect(Number.isNaN(nan)).toBe(true);
        expect(Number.isFinite(sat)).toBe(true);
      } else {
        expect(sat).toBe(inf);
        expect(nan).toBe(inf);
      }
    }
    expect(overflowed).toBeGreaterThan(0);
  });

  it("matmul and matvec (with per-row and per-block E8M0 scales) equal one reference dot per row pair", () => {
    const rand = rng(11);
    const m = 5,
      n = 3,
      k = 77,
      block = 16;
    const blocks = Math.ceil(k / block);
    const a = codes(m * k, 8, rand, 0.002);
    const b = codes(n * k, 8, rand);
    const perRowA = Uint8Array.from({ length: m }, () => 120 + Math.floor(rand() * 14));
    const perBlockB = Uint8Array.from({ length: n * blocks }, () => 118 + Math.floor(rand() * 14));
    perBlockB[4] = 0xff; // a NaN scale: row 1, block 0 of b
    for (const overflow of ["OvSAT", "OvINF", "OvNAN"] as const) {
      const options = { formats: "E4M3", overflow, blockSize: block, scales: { a: perRowA, b: perBlockB } } as const;
      const fast = matmul(a, b, m, n, k, options);
      const slow = onReference(() => matmul(a, b, m, n, k, options));
      const r = resolveDot({ formats: "E4M3", overflow, blockSize: block });
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          const ref = dotReference(a, i * k, b, j * k, k, r.ctx, (kb) => {
            const sb = perBlockB[j * blocks + kb]!;
            return sb === 0xff ? NaN : perRowA[i]! - 127 + sb - 127;
          });
          expect(same(fast[i * n + j]!, Math.fround(ref))).toBe(true);
          expect(same(slow[i * n + j]!, Math.fround(ref))).toBe(true);
        }
      }
      expect(Number.isNaN(fast[0 * n + 1]!)).toBe(true);
      const y = matvec(a, b.subarray(0, k), m, k, { formats: "E4M3", overflow, blockSize: block });
      for (let i = 0; i < m; i++)
        expect(same(y[i]!, dot(a.subarray(i * k, (i + 1) * k), b.subarray(0, k), { formats: "E4M3", overflow, blockSize: block }))).toBe(true);
    }
  });

  it("dotRows (row-wise pairs) equals one dot per row, kernel and reference", () => {
    const rand = rng(13);
    const rows = 9,
      cols = 130;
    const a = codes(rows * cols, 8, rand, 0.003);
    const b = codes(rows * cols, 8, rand);
    for (const overflow of MODES) {
      const options = { formats: ["E5M2", "E4M3"], overflow, blockSize: 8 } as const;
      const fast = dotRows(a, b, rows, cols, options);
      const slow = onReference(() => dotRows(a, b, rows, cols, options));
      for (let i = 0; i < rows; i++) {
        const one = onReference(() => dot(a.subarray(i * cols, (i + 1) * cols), b.subarray(i * cols, (i + 1) * cols), options));
        expect(same(fast[i]!, Math.fround(one))).toBe(true);
        expect(same(slow[i]!, Math.fround(one))).toBe(true);
      }
    }
  });

  it("every code pair as a one-element dot (all product roundings, ties, subnormal partials, overflow)", () => {
    const a = new Uint8Array(65536);
    const b = new Uint8Array(65536);
    for (let i = 0; i < 65536; i++) {
      a[i] = i >> 8;
      b[i] = i & 255;
    }
    for (const [formats, partials] of [
      ["E5M2", "binary16"],
      ["Binary8p3se", "binary16"],
      ["E4M3", "bfloat16"],
      ["E4M3", "binary32"],
    ] as const) {
      for (const overflow of MODES) {
        const options = { formats, partials, overflow, blockSize: 1 } as const;
        // The kernel takes every rounded-product mode here ("exact" sums of E5M2 products span too many bits).
        if (overflow !== "exact" || formats === "E4M3") expect(dotKernel(a, b, 1, 2, 2, resolveDot(options).ctx, undefined)).toBeDefined();
        const fast = dotRows(a, b, 65536, 1, options);
        const slow = onReference(() => dotRows(a, b, 65536, 1, options));
        let bad = -1;
        for (let i = 0; i < 65536 && bad < 0; i++) if (!same(fast[i]!, slow[i]!)) bad = i;
        expect(bad).toBe(-1);
      }
    }
  });

  it("operands that are views of Wasm memory (re-created after the call's allocations, which may grow memory)", async () => {
    const { allocBytes } = await import("../src/api/wasm-memory.js");
    const rand = rng(19);
    const rows = 64,
      cols = 4096;
    const a = allocBytes(rows * cols);
    const b = allocBytes(rows * cols);
    try {
      a.array.set(codes(rows * cols, 8, rand));
      b.array.set(codes(rows * cols, 8, rand));
      // A configuration not used before: its 256 KiB product table and the operand copies allocate.
      const options = { formats: ["Binary8p3se", "E4M3"], partials: "binary16", overflow: "OvSAT", blockSize: 7 } as const;
      const fast = dotRows(a.array, b.array, rows, cols, options);
      const [va, vb] = [a.array, b.array]; // WasmArray.array needs the kernels: taken before switching them off
      const slow = onReference(() => dotRows(va, vb, rows, cols, options));
      for (let i = 0; i < rows; i++) expect(same(fast[i]!, slow[i]!)).toBe(true);
    } finally {
      a.free();
      b.free();
    }
  });

  it("packed 4-bit operands (first element in the low nibble) equal the unpacked dot", () => {
    const rand = rng(5);
    const n = 37;
    const a = codes(n, 4, rand);
    const b = codes(n, 4, rand);
    const pack = (c: Uint8Array) => Uint8Array.from({ length: Math.ceil(c.length / 2) }, (_, j) => c[2 * j]! | ((c[2 * j + 1] ?? 0) << 4));
    for (const overflow of MODES) {
      const options = { formats: "E2M1", overflow, blockSize: 4 } as const;
      expect(dot(pack(a), pack(b), { ...options, packed: true, length: n })).toBe(dot(a, b, options));
    }
    expect(dot(Uint8Array.of(0x21), Uint8Array.of(0x42), { formats: format("E2M1"), packed: true })).toBe(0.5 * 1 + 1 * 2);
  });

  it("rejects bad arguments with typed errors naming the argument", () => {
    const a = new Uint8Array(4);
    expect(() => dot(a, new Uint8Array(3), { formats: "E4M3" })).toThrow(/^b: has length 3; allowed: the length of a \(4\)/);
    expect(() => dot(a, a, { formats: "E4M3", overflow: "OvFOO" as DotOverflow })).toThrow(
      /options\.overflow: got "OvFOO"; allowed: OvSAT, OvINF, OvNAN, exact/,
    );
    expect(() => dot(a, a, { formats: "E4M3", partials: "binary8" as "binary16" })).toThrow(/options\.partials/);
    expect(() => dot(a, a, { formats: "E4M3", blockSize: 0 })).toThrow(/options\.blockSize: got 0; allowed: an integer in \[1, 8192\]/);
    expect(() => dot(a, a, { formats: "binary16" })).toThrow(/options\.formats\[0\]: binary16 has 16-bit codes/);
    expect(() => dot(a, a, { formats: "E4M3", packed: true })).toThrow(
      /options\.formats\[0\]: float8_e4m3fn has 8-bit codes; allowed: formats of at most 4 bits/,
    );
    expect(() => dot(Uint8Array.of(16), Uint8Array.of(1), { formats: "E2M1" })).toThrow(/a\[0\]: is 16; allowed: a float4_e2m1fn code in \[0, 15\]/);
    expect(() => matmul(a, a, 2, 2, 3, { formats: "E4M3" })).toThrow(/^a: has length 4; allowed: m × k = 6/);
    expect(() => matvec(a, Uint8Array.of(1, 2), 2, 2, { formats: "E4M3", scales: { a: new Uint8Array(3) } })).toThrow(
      /options\.scales\.a: has 3 codes; allowed: 2 \(one per row\) or 2/,
    );
    // matvec(a, x, rows, cols) names its own arguments, not matmul's.
    const x2 = Uint8Array.of(1, 2);
    expect(() => matvec(a, x2, 2, 2.5, { formats: "E4M3" })).toThrow(/^cols: got 2.5/);
    expect(() => matvec(a, x2, -2, 2, { formats: "E4M3" })).toThrow(/^rows: got -2/);
    expect(() => matvec(a, x2, 3, 2, { formats: "E4M3" })).toThrow(/^a: has length 4; allowed: rows × cols = 6$/);
    expect(() => matvec(a, Uint8Array.of(1, 2, 3), 2, 2, { formats: "E4M3" })).toThrow(/^x: has length 3; allowed: cols = 2$/);
    expect(() => matvec(a, x2, 2, 2, { formats: "E4M3", out: new Uint16Array(3) })).toThrow(/^options\.out: has length 3; allowed: rows = 2$/);
    expect(() => matvec(Uint8Array.of(1, 2, 3, 4), Uint8Array.of(1, 16), 2, 2, { formats: "E2M1" })).toThrow(/^x\[1\]: is 16; allowed: a float4_e2m1fn code/);
    expect(() => matmul(a, a, 2, 2, 2, { formats: "E4M3", out: new Uint16Array(3) })).toThrow(/^options\.out: has length 3; allowed: m × n = 4$/);
  });
});

describe("mode 'exact' against P3109 BlockDotProduct (an independent exact path)", () => {
  it("E5M2 × E5M2 into binary32, lengths up to 3000 (BigInt sums: float64 is not proved exact here)", async () => {
    const { blockDotProduct } = await import("../src/block/p3109.js");
    const { decode } = await import("../src/api/scalar.js");
    const rand = rng(17);
    for (const n of [1, 5, 64, 3000]) {
      const a = codes(n, 8, rand);
      const b = codes(n, 8, rand);
      for (let i = 0; i < n; i++) {
        if ((a[i]! & 0x7c) === 0x7c) a[i] = a[i]! & 0xf3; // finite E5M2 codes only
        if ((b[i]! & 0x7c) === 0x7c) b[i] = b[i]! & 0xf3;
      }
      const got = dot(a, b, { formats: "E5M2", partials: "binary32", overflow: "exact" });
      const code = blockDotProduct({ scale: 127, elements: [...a] }, "E8M0", "E5M2", { scale: 127, elements: [...b] }, "E8M0", "E5M2", "binary32");
      expect(got).toBe(decode(code, "binary32"));
    }
  });
});

describe("dot kernel over long and streamed operands", () => {
  // Operands longer than one 64 KiB part stream through Wasm memory; the running total carries across parts.
  it("long vectors (beyond one part) and many rows per part equal the reference in every mode", () => {
    const rand = rng(4242);
    for (const mode of ["OvSAT", "OvINF", "OvNAN"] as const) {
      for (const [n, block] of [
        [65536 + 17, 16],
        [200_003, 7],
        [131072, 8192],
      ] as const) {
        const a = codes(n, 8, rand);
        const b = codes(n, 8, rand);
        const options = { formats: ["float8_e4m3fn", "float8_e4m3fn"] as [string, string], partials: "binary16" as const, overflow: mode, blockSize: block };
        const fast = dot(a, b, options);
        const slow = onReference(() => dot(a, b, options));
        expect(same(fast, slow), `${mode} n=${n} BLK=${block}: ${fast} vs ${slow}`).toBe(true);
      }
      const rows = 300;
      const cols = 1000;
      const A = codes(rows * cols, 8, rand);
      const B = codes(rows * cols, 8, rand);
      const options = { formats: ["float8_e4m3fn", "float8_e4m3fn"] as [string, string], partials: "binary16" as const, overflow: mode, blockSize: 16 };
      const fast = dotRows(A, B, rows, cols, options);
      const slow = onReference(() => dotRows(A, B, rows, cols, options));
      for (let r = 0; r < rows; r++) expect(same(fast[r]!, slow[r]!), `${mode} row ${r}`).toBe(true);
    }
  });
});

describe("batched products as float16", () => {
  it("matmul and matvec into a Uint16Array give the binary16 bit patterns of the float32 results", () => {
    const rand = rng(77);
    const [m, n, k] = [7, 5, 300];
    const A = codes(m * k, 8, rand);
    const B = codes(n * k, 8, rand);
    for (const overflow of ["OvSAT", "OvINF", "OvNAN"] as const) {
      const options = { formats: ["float8_e4m3fn", "float8_e4m3fn"] as [string, string], partials: "binary16" as const, overflow };
      const c32 = matmul(A, B, m, n, k, options);
      const c16 = matmul(A, B, m, n, k, { ...options, out: new Uint16Array(m * n) });
      expect(c16).toBeInstanceOf(Uint16Array);
      for (let i = 0; i < m * n; i++) {
        const back = dequantize(c16.subarray(i, i + 1), "binary16")[0]!;
        expect(same(back, c32[i]!), `${overflow} element ${i}: ${back} vs ${c32[i]}`).toBe(true);
      }
      const y16 = matvec(A, B.subarray(0, k), m, k, { ...options, out: new Uint16Array(m) });
      const y32 = matvec(A, B.subarray(0, k), m, k, options);
      for (let i = 0; i < m; i++) expect(same(dequantize(y16.subarray(i, i + 1), "binary16")[0]!, y32[i]!)).toBe(true);
    }
    expect(() => matmul(A, B, m, n, k, { formats: "float8_e4m3fn", out: new Uint16Array(3) })).toThrow(/options\.out: has length 3; allowed: m × n = 35/);
  });
});
