// minifloat/parallel on Web Workers: each pool result must equal the single-thread call in the same page. Sets
// globalThis.poolResult (checks by name), or globalThis.suiteError, e.g. when the page is not cross-origin isolated.
import * as mf from "minifloat";
import { createPool } from "minifloat/parallel";

const bytes = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const equal = (a, b) => a.byteLength === b.byteLength && bytes(a).every((v, i) => v === bytes(b)[i]);

try {
  const pool = await createPool({ threads: 2, minElements: 0 });
  const n = 100_003;
  const x = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 2 ** ((i % 29) - 14));
  const sr = { rounding: "StochasticA", stochasticBits: 8, seed: 9, seedIndex: 13 };
  const checks = { threads: pool.threads, isolated: globalThis.crossOriginIsolated };
  checks.quantizeArrays = equal(await pool.quantize(x, "Binary8p3se", sr), mf.quantize(x, "Binary8p3se", sr));
  const px = pool.allocFloat32(n);
  const pc = pool.allocCodes("float8_e4m3fn", n);
  px.array.set(x);
  await pool.quantize(px.array, "float8_e4m3fn", { out: pc.array });
  const codes = mf.quantize(x, "float8_e4m3fn");
  checks.quantizeShared = equal(pc.array, codes);
  checks.dequantizeShared = equal(await pool.dequantize(pc.array, "float8_e4m3fn"), mf.dequantize(codes, "float8_e4m3fn"));
  // float16 output on the workers: a native Float16Array in Chromium, bit for bit the single-thread one.
  const halves = await pool.dequantize(pc.array, "float8_e4m3fn", { to: "float16" });
  const expectedHalves = mf.dequantize(codes, "float8_e4m3fn", { to: "float16" });
  checks.dequantizeShared16 = halves.constructor.name === expectedHalves.constructor.name && equal(halves, expectedHalves);
  checks.convertShared = equal(await pool.convert(pc.array, "float8_e4m3fn", "bfloat16"), mf.convert(codes, "float8_e4m3fn", "bfloat16"));
  const dot = { formats: "float8_e4m3fn", partials: "binary16", overflow: "OvSAT" };
  const [rows, cols] = [301, 257];
  const a = codes.subarray(0, rows * cols);
  const b = codes.subarray(n - rows * cols);
  checks.dotRows = equal(await pool.dotRows(a, b, rows, cols, dot), mf.dotRows(a, b, rows, cols, dot));
  checks.matmul = equal(await pool.matmul(a, b.subarray(0, 7 * cols), rows, 7, cols, dot), mf.matmul(a, b.subarray(0, 7 * cols), rows, 7, cols, dot));
  px.free();
  pc.free();
  await pool.close();
  globalThis.poolResult = checks;
} catch (error) {
  globalThis.suiteError = `${error.name}: ${error.message}`;
}
