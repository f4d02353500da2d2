// npm start: quantizes a bundled sample tensor into a few formats and prints value tables and error statistics.
import { decode, dequantize, format, quantize } from "minifloat";

const formats = ["float8_e4m3fn", "float8_e5m2", "Binary8p3se", "Binary8p4se", "float4_e2m1fn"];
// A deterministic, transformer-like weight sample: a mixture of Gaussians generated with a fixed LCG.
function sample(n, seed = 1) {
  let s = seed >>> 0;
  const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const g = Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
    out[i] = g * (i % 97 === 0 ? 8 : 0.05);
  }
  return out;
}
const x = sample(1 << 16);
console.log(`sample tensor: ${x.length} float32 values\n`);
console.log("format           max finite     RMSE         max |err|    saturated");
for (const name of formats) {
  const f = format(name);
  const codes = quantize(x, f, { saturation: "SatFinite" });
  const y = dequantize(codes, f);
  let se = 0, maxErr = 0, sat = 0;
  const max = decode(f.maxFiniteCode, f);
  for (let i = 0; i < x.length; i++) {
    const e = Math.abs(y[i] - x[i]);
    se += e * e;
    maxErr = Math.max(maxErr, e);
    if (Math.abs(y[i]) === max) sat++;
  }
  console.log(`${name.padEnd(16)} ${String(max).padEnd(14)} ${Math.sqrt(se / x.length).toExponential(3).padEnd(12)} ${maxErr.toExponential(3).padEnd(12)} ${sat}`);
}
