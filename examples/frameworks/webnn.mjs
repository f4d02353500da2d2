// WebNN: float16 operands take a Float16Array (or Uint16Array bits). The proposed bfloat16 and float8e4m3 types would
// take bfloat16 bits in a Uint16Array and E4M3 codes in a Uint8Array, with casts to float8e4m3 saturating at ±448 and
// keeping NaN: minifloat's float8_e4m3fn with saturation "SatFinite" (its default turns overflow into NaN).
import assert from "node:assert/strict";
import { quantize } from "minifloat";

const x = Float32Array.of(1, 1000, -Infinity, Number.NaN, 0.1);
const bf16 = { descriptor: { dataType: "bfloat16", shape: [5] }, data: quantize(x, "bfloat16") };
const fp8 = { descriptor: { dataType: "float8e4m3", shape: [5] }, data: quantize(x, "float8_e4m3fn", { saturation: "SatFinite" }) };
assert.deepEqual([...bf16.data], [0x3f80, 0x447a, 0xff80, 0x7fc0, 0x3dcd]);
assert.deepEqual([...fp8.data], [0x38, 0x7e, 0xfe, 0x7f, 0x1d]); // 1, 448, −448, NaN, 0.1015625
// Then context.writeTensor(tensor, fp8.data), where context.opSupportLimits() lists the type.
console.log("webnn: ok");
