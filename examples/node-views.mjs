// MiniFloatArray: float8 values in Wasm memory, read and written like a typed array (run by test/package.test.ts).
import assert from "node:assert/strict";
import { BFloat16Array, Float8E4M3FNArray, MiniFloatArray } from "minifloat";

const x = new Float32Array([0.1, -2.5, 300, 3.3e-3, 1000]);
const a = Float8E4M3FNArray.from(x); // quantize into Wasm memory (ml_dtypes' cast: 1000 overflows to NaN)
assert.deepEqual([...a], [0.1015625, -2.5, 288, 0.00390625, NaN]);
assert.deepEqual([...a.codes], [0x1d, 0xc2, 0x79, 0x02, 0x7f]); // one uint8 code per element
const saturated = Float8E4M3FNArray.from(x, { saturation: "SatFinite" });
assert.equal(saturated.get(4), 448);

a.set(0, 0.3); // exact scalar encode
assert.equal(a.get(0), 0.3125);
const tail = a.subarray(3); // a view: same storage, no copy
tail.fill(-0.75);
assert.deepEqual([...a], [0.3125, -2.5, 288, -0.75, -0.75]);

const wide = BFloat16Array.from(a); // exact values, projected into bfloat16
assert.deepEqual([...wide.toFloat32Array()], [0.3125, -2.5, 288, -0.75, -0.75]);

// Stochastic rounding from a seed: the same stream in Node and in every browser.
const sr = MiniFloatArray.from(x, "Binary8p3se", { rounding: "StochasticA", stochasticBits: 8, seed: 7 });
assert.deepEqual([...sr], [0.09375, -2.5, 320, 0.00341796875, 1024]);

for (const array of [a, saturated, wide, sr]) array.free(); // free() returns the Wasm memory (tail with it)
assert.throws(() => tail.get(0), { name: "ArgumentTypeError" });
console.log("node-views: ok");
