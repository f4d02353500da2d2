// Elements per second of P3109 operation specializations over 16M codes (npm run bench:ops; not part of npm test).
// ≤ 8-bit operands use the per-specialization tables (65 536 entries binary, 256 unary); the table build is timed
// separately; the Wasm gather kernel (assembly/lut.ts) applies byte tables, the TypeScript loop is timed once for
// comparison. A 12-bit format shows the exact scalar path.
import { useKernels } from "../build/node/index.js";
import { specialize } from "../build/node/p3109.js";

const N = 16 * 1024 * 1024;
const random = (n, bits) => {
  const a = bits <= 8 ? new Uint8Array(n) : new Uint16Array(n);
  let s = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    a[i] = s & ((1 << bits) - 1);
  }
  return a;
};

function bench(label, spec, arrays, n) {
  const t0 = performance.now();
  spec.map(...arrays.map((a) => a.subarray(0, 16)), ...(spec.projection?.stochasticBits ? [{ seed: 1 }] : []));
  const build = performance.now() - t0;
  const out = new (spec.result.K <= 8 ? Uint8Array : Uint16Array)(n);
  const t1 = performance.now();
  spec.map(...arrays.map((a) => a.subarray(0, n)), spec.projection?.stochasticBits ? { out, seed: 1 } : { out });
  const dt = (performance.now() - t1) / 1000;
  console.log(`${label.padEnd(70)} ${(n / dt / 1e6).toFixed(1).padStart(8)} M elements/s   (table build ${build.toFixed(0)} ms, ${n} elements)`);
}

const f = "Binary8p4se";
const x = random(N, 8);
const y = random(N, 8);
bench(`Add<${f}×3, (NearestTiesToEven, SatNone)>`, specialize("Add", { operands: [f, f], result: f }), [x, y], N);
useKernels(false);
bench(`Add<${f}×3, (NearestTiesToEven, SatNone)> (TypeScript loop, kernels off)`, specialize("Add", { operands: [f, f], result: f }), [x, y], N);
useKernels(true);
bench(`Multiply<${f}×3, (NearestTiesToEven, SatNone)>`, specialize("Multiply", { operands: [f, f], result: f }), [x, y], N);
bench(`Exp<${f}×2, (NearestTiesToEven, SatNone)>`, specialize("Exp", { operands: [f], result: f }), [x], N);
bench(
  `Add<${f}×3, (StochasticC N=8, SatNone), seed> (thresholds)`,
  specialize("Add", { operands: [f, f], result: f, rounding: "StochasticC", stochasticBits: 8 }),
  [x, y],
  N,
);
const g = "Binary12p7se";
const u = random(1 << 18, 12);
const v = random(1 << 18, 12);
bench(`Add<${g}×3, (NearestTiesToEven, SatNone)> (exact scalar path)`, specialize("Add", { operands: [g, g], result: g }), [u, v], 1 << 18);
