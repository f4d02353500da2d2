// The cases of bench/fp8-f16.mjs, shared by Node and the Chromium page (bench/fp8-f16.html): fp8 codes in Wasm
// memory decoded into binary16 bits in Wasm memory (zero copy), next to float32 output, and probes that only move
// the same bytes (1 byte read, 2 or 4 written per element: what memory allows). Median of interleaved rounds in
// G elements/s.

/** Codes covering every E4M3 code (NaN included), in an order no branch predictor learns. */
function fill(codes) {
  let s = 12345;
  for (let i = 0; i < codes.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    codes[i] = s >>> 24;
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Runs the cases on n elements (a multiple of 16), `rounds` interleaved rounds after one warm-up call each; returns
 * [{ name, gps, ms, best }]: median G elements/s and milliseconds per call, and the best round's G elements/s (less
 * disturbed by other processes). `mf` is the minifloat module, `probe` a probeInstance (bench/probes.mjs) of at least
 * 5n + 64 KiB bytes; with `pool` (minifloat/parallel, minElements 0) the last row runs the dequantize on its workers,
 * codes and output in its shared memory.
 */
export async function measure(mf, n, rounds, probe, pool) {
  const fmt = "float8_e4m3fn";
  const codes = mf.allocCodes(fmt, n);
  const half = mf.allocCodes("binary16", n); // a Uint16Array in Wasm memory
  const single = mf.allocFloat32(n);
  const shared = pool && { codes: pool.allocCodes(fmt, n), half: pool.allocCodes("binary16", n) };
  // Allocations done: views taken now stay attached (growing memory would detach them).
  fill(codes.array);
  shared?.codes.array.set(codes.array);
  const cases = [
    ["dequantize → float16 bits", () => mf.dequantize(codes.array, fmt, { to: "float16", bits: true, out: half.array })],
    ["convert → binary16", () => mf.convert(codes.array, fmt, "binary16", { out: half.array })],
    ["probe: the same bytes moved, 16-bit out", () => probe.move12(65536, 65536 + n, n)],
    ["dequantize → float32", () => mf.dequantize(codes.array, fmt, { out: single.array })],
    ["probe: the same bytes moved, 32-bit out", () => probe.move14(65536, 65536 + n, n)],
    ...(shared
      ? [
          [
            `pool, ${pool.threads} worker(s)${pool.callerRuns ? " + caller" : ""}: → float16`,
            () => pool.dequantize(shared.codes.array, fmt, { to: "float16", bits: true, out: shared.half.array }),
          ],
        ]
      : []),
  ];
  for (const [, run] of cases) await run(); // tables built, code compiled
  const times = cases.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, [, run]] of cases.entries()) {
      const t = performance.now();
      await run();
      times[i].push(performance.now() - t);
    }
  }
  // The outputs agree with each other: binary16 bits widened to float32 are the float32 results.
  const check = mf.quantize(single.array.subarray(0, 4096), "binary16");
  for (let i = 0; i < check.length; i++) {
    if (check[i] !== half.array[i] && !Number.isNaN(single.array[i])) throw new Error(`element ${i}: ${half.array[i]} ≠ ${check[i]}`);
  }
  if (shared?.half.array.some((v, i) => v !== half.array[i])) throw new Error("the pool's float16 output differs from the single-thread one");
  for (const a of [codes, half, single, ...(shared ? [shared.codes, shared.half] : [])]) a.free();
  return cases.map(([name], i) => {
    const ms = median(times[i]);
    return { name, gps: n / ms / 1e6, ms, best: n / Math.min(...times[i]) / 1e6 };
  });
}
