// binary16 in JavaScript: a Float16Array where the runtime has one (Chrome 135, Firefox 129, Safari 18.2, Node 24),
// else a Uint16Array of bit patterns. dequantize returns the runtime's kind; bits: true always gives the bits.
import assert from "node:assert/strict";
import { dequantize, quantize } from "minifloat";

const codes = quantize(Float32Array.of(1, -2.5, 448, 0.0078125), "float8_e4m3fn");
const half = dequantize(codes, "float8_e4m3fn", { to: "float16" });
const bits = dequantize(codes, "float8_e4m3fn", { to: "float16", bits: true });

assert.equal(half.constructor, globalThis.Float16Array ?? Uint16Array);
assert.ok(bits instanceof Uint16Array);
assert.deepEqual([...bits], [0x3c00, 0xc100, 0x5f00, 0x2000]);
if (globalThis.Float16Array) assert.deepEqual([...half], [1, -2.5, 448, 0.0078125]); // the same bits, as numbers

// Back: quantize takes a Float16Array as it is and Uint16Array bits with from: "float16" ("bfloat16" for bfloat16).
assert.deepEqual(quantize(half, "float8_e4m3fn", { from: "float16" }), codes);
assert.deepEqual(quantize(bits, "float8_e4m3fn", { from: "float16" }), codes);
console.log(`float16: ok (${half.constructor.name})`);
