// Zero copy: float32 inputs allocated in Wasm memory, quantized in place into a MiniFloatArray and dequantized into
// Wasm memory again — the kernels read and write those addresses directly (run by test/package.test.ts).
import assert from "node:assert/strict";
import { MiniFloatArray, allocFloat32 } from "minifloat";

const n = 1 << 20;
const input = allocFloat32(n); // a WasmArray: .array is a Float32Array over Wasm memory
const xs = input.array; // read .array again after any allocation: growing Wasm memory detaches old views
for (let i = 0; i < n; i++) xs[i] = Math.sin(i) * 100;

const q = new MiniFloatArray("float8_e4m3fn", n).quantizeFrom(input, { saturation: "SatFinite" });
const back = allocFloat32(n);
q.toFloat32Array(back.array);

// Round to nearest with 3 trailing bits: error ≤ 2^-4·|x| for normals, ≤ 2^-10 (half the subnormal step) below.
const [x, y] = [input.array, back.array];
let worst = 0;
for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(y[i] - x[i]) / Math.max(Math.abs(x[i]), 2 ** -6));
assert.ok(worst <= 2 ** -4, `error ${worst} of the bound`);
assert.equal(q.codes.buffer, input.array.buffer); // codes, inputs and outputs share one Wasm memory

for (const block of [q, input, back]) block.free();
console.log(`node-zero-copy: ok (${n} values, worst error ${worst.toFixed(4)} · max(|x|, 2^-6))`);
