import * as mf from "minifloat";
const n = 1 << 24;
function valuesFor(f, n) {
  const x = new Float32Array(n);
  const max = mf.decode(f.maxFiniteCode, f);
  let s = 12345;
  for (let i = 0; i < n; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; x[i] = (s & 1 ? -1 : 1) * max * 2 ** (-((s >>> 8) % 1024) / 64); }
  return x;
}
const cases = [
  ["Binary8p3se", {}], ["Binary8p3se", { rounding: "StochasticA", stochasticBits: 8, seed: 7 }],
  ["float8_e4m3fn", {}], ["float8_e4m3fn", { rounding: "StochasticC", stochasticBits: 8, seed: 7 }],
  ["float8_e4m3fn", {}], ["float8_e4m3fn", { rounding: "StochasticA", stochasticBits: 8, seed: 7 }],
  ["float8_e4m3fn", {}], ["float8_e4m3fn", { rounding: "StochasticB", stochasticBits: 7, seed: 7 }],
  ["Binary8p3se", {}], ["Binary8p3se", { rounding: "StochasticC", stochasticBits: 8, seed: 7 }],
  ["float16", {}], ["float16", { rounding: "StochasticA", stochasticBits: 8, seed: 7 }],
];
const live = cases.map(([name, o]) => { const f = mf.format(name); const x = mf.allocFloat32(n); x.array.set(valuesFor(f, n)); const out = mf.allocCodes(f, n); return { name, o, run: () => mf.quantize(x.array, f, { ...o, out: out.array }), best: 0 }; });
for (let r = 0; r < 15; r++) for (const c of live) { const t = performance.now(); c.run(); c.run(); const dt = (performance.now() - t) / 2; c.best = Math.max(c.best, n / dt / 1e3); }
for (let i = 0; i < live.length; i += 2) console.log(live[i].name, live[i+1].o.rounding, "NE", live[i].best.toFixed(0), "SR", live[i+1].best.toFixed(0), "ratio", (live[i+1].best / live[i].best).toFixed(2));
