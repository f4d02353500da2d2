// The golden subset run twice: in headless Chromium (page.mjs, the browser bundle) and in Node (the node bundle).
// test/browser.test.ts requires the two results to be equal bit for bit and the golden mismatch counts to be 0.
// Plain JavaScript on purpose: the page loads this file as it is. Every number leaves as bits (NaN, −0 survive JSON).

export const GOLDEN_DTYPES = ["float8_e4m3fn", "float8_e5m2", "float6_e3m2fn", "float4_e2m1fn", "bfloat16"];
const FORMATS = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "Binary8p3se", "Binary8p4sf", "float6_e3m2fn", "float4_e2m1fn", "Binary12p7se", "bfloat16"];
const PROJECTIONS = [
  undefined,
  { saturation: "SatFinite" },
  { rounding: "TowardZero" },
  { rounding: "NearestTiesToAway", saturation: "SatPropagate" },
  { rounding: "ToOdd", saturation: "SatNone" },
];
/** NaN, ±0, ±Inf, overflow, ties, subnormals and the edges of the 8-bit formats. */
const VALUES = [
  Number.NaN,
  0,
  -0,
  Infinity,
  -Infinity,
  1e300,
  -1e300,
  448,
  464,
  480,
  -500,
  57344,
  61440,
  65536,
  240,
  256,
  1.0625,
  1.1875,
  -2.5,
  3.5,
  0.3,
  1 / 3,
  2 ** -6,
  2 ** -7,
  2 ** -9,
  2 ** -10,
  3 * 2 ** -11,
  2 ** -17,
  5e-324,
  1e-45,
  6,
  7,
  -0.25,
];
/** Records per golden encode file checked in the page (evenly strided over the whole file). */
const GOLDEN_RECORDS = 60000;

const f64 = new Float64Array(1);
const f64bits = new Uint32Array(f64.buffer);
function bits64(v) {
  f64[0] = v;
  return `${f64bits[1].toString(16)}:${f64bits[0].toString(16)}`;
}

function u32(a) {
  return Array.from(new Uint32Array(a.buffer, a.byteOffset, a.byteLength >>> 2));
}

/** FNV-1a over the bytes of a typed array: large outputs are compared by hash plus their first elements. */
function fnv(a) {
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  return `${a.length}:${h.toString(16)}:${Array.from(a.subarray(0, 16)).join(",")}`;
}

/** Deterministic float32 inputs: random bit patterns (NaNs, infinities, subnormals included) and small magnitudes. */
function inputs(n) {
  const out = new Float32Array(n);
  const raw = new Uint32Array(out.buffer);
  let s = 2026;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    if (i % 2 === 0) raw[i] = s;
    else out[i] = ((s / 2 ** 32) * 2 - 1) * 2 ** ((i % 40) - 20);
  }
  return out;
}

function errorOf(run) {
  try {
    run();
    return "no error";
  } catch (error) {
    return `${error.name}: ${error.message}`;
  }
}

function allCodes(f) {
  const type = f.K <= 8 ? Uint8Array : Uint16Array;
  return type.from({ length: f.codeCount }, (_, c) => c);
}

function decodeSection(lib) {
  const out = {};
  for (const name of FORMATS) {
    const f = lib.format(name);
    const codes = allCodes(f);
    out[name] = { dequantize: fnv(lib.dequantize(codes, f)), decode: f.K <= 8 ? Array.from(codes, (c) => bits64(lib.decode(c, f))) : undefined };
  }
  return out;
}

function encodeSection(lib) {
  const out = {};
  for (const name of FORMATS) {
    out[name] = PROJECTIONS.map((p) => VALUES.map((v) => lib.encode(v, name, p)));
  }
  return out;
}

function bulkSection(lib) {
  const x = inputs(1 << 17);
  const out = {};
  for (const name of FORMATS) {
    const codes = lib.quantize(x, name);
    out[name] = {
      quantize: fnv(codes),
      satFinite: fnv(lib.quantize(x, name, { saturation: "SatFinite" })),
      dequantize: fnv(lib.dequantize(codes, name)),
    };
  }
  for (const [name, rounding, stochasticBits] of [
    ["Binary8p3se", "StochasticA", 8],
    ["float8_e4m3fn", "StochasticB", 12],
    ["bfloat16", "StochasticC", 13],
    ["float4_e2m1fn", "StochasticA", 5],
  ]) {
    out[`${name}/${rounding}`] = fnv(lib.quantize(x, name, { rounding, stochasticBits, seed: 20261122 }));
  }
  for (const name of ["float4_e2m1fn", "float6_e3m2fn"]) {
    const packed = lib.quantizePacked(x, name);
    out[`${name}/packed`] = { packed: fnv(packed), back: fnv(lib.dequantizePacked(packed, name, x.length)) };
  }
  return out;
}

function viewSection(lib) {
  const out = {};
  const x = inputs(4096);
  for (const name of ["float8_e4m3fn", "float4_e2m1fn", "float6_e3m2fn", "Binary12p7se", "bfloat16"]) {
    const a = lib.MiniFloatArray.from(x, name);
    const log = [fnv(a.codes), a.length, a.byteLength, a.BYTES_PER_ELEMENT];
    a.set(0, 1.5);
    a.set(1, -0);
    a.set(2, Number.NaN);
    a.fill(0.3, -8, -4);
    a.set([2.5, 1e9, -1e-9], 10);
    const sub = a.subarray(5, 20);
    sub.set(0, 6);
    const copy = a.slice(-16);
    copy.set(0, 7);
    log.push(
      Array.from({ length: 24 }, (_, i) => bits64(a.get(i))),
      [...sub].map(bits64),
      Array.from(a.keys()).length,
    );
    log.push(fnv(a.codes), fnv(copy.codes), u32(a.toFloat32Array().subarray(0, 32)), fnv(new Uint8Array(a.toArrayBuffer())));
    if (a.format.K === 4 || a.format.K === 6) log.push(fnv(a.toPacked()), fnv(lib.MiniFloatArray.fromPacked(a.toPacked(), name, a.length).codes));
    // Wasm memory grows under the views: they stay valid.
    const block = lib.allocFloat32(1 << 22);
    log.push(
      bits64(a.get(5)),
      fnv(a.codes),
      bits64(copy.get(0)),
      errorOf(() => a.get(4096)),
    );
    block.free();
    copy.free();
    a.free();
    log.push(
      sub.freed,
      errorOf(() => sub.get(0)),
    );
    out[name] = log;
  }
  // Zero copy: float32 in Wasm memory quantized in place into a view, dequantized into Wasm memory.
  const input = lib.allocFloat32(x.length);
  input.array.set(x);
  const view = new lib.Float8E4M3FNArray(x.length).quantizeFrom(input, { saturation: "SatFinite" });
  const back = lib.allocFloat32(x.length);
  view.toFloat32Array(back.array);
  out.zeroCopy = [view instanceof lib.Float8E4M3FNArray, view.codes.buffer === input.array.buffer, fnv(view.codes), fnv(back.array)];
  for (const r of [input, view, back]) r.free();
  out.errors = [
    errorOf(() => new lib.MiniFloatArray("binary32", 4)),
    errorOf(() => new lib.BFloat16Array(-1)),
    errorOf(() => lib.MiniFloatArray.fromCodes([300], "float8_e4m3fn")),
    errorOf(() => lib.encode(1, "float8_e4m3fn", { rounding: "Sideways" })),
  ];
  return out;
}

/** Mismatch counts against ml_dtypes' vectors: every decode, and GOLDEN_RECORDS strided encode records. */
function goldenSection(lib, golden) {
  const out = {};
  for (const dtype of GOLDEN_DTYPES) {
    const f = lib.format(dtype);
    const expected = new Uint32Array(golden[dtype].decode.buffer, golden[dtype].decode.byteOffset, f.codeCount);
    const got = new Uint32Array(lib.dequantize(allCodes(f), f).buffer);
    let decodeMismatches = 0;
    for (let c = 0; c < f.codeCount; c++) if (got[c] !== expected[c]) decodeMismatches++;
    const bytes = golden[dtype].encode;
    const size = f.K > 8 ? 6 : 5;
    const records = bytes.length / size;
    const n = Math.min(GOLDEN_RECORDS, records);
    const stride = records / n;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const x = new Float32Array(n);
    const xbits = new Uint32Array(x.buffer);
    const want = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const r = Math.floor(i * stride) * size;
      xbits[i] = view.getUint32(r, true);
      want[i] = size === 6 ? view.getUint16(r + 4, true) : view.getUint8(r + 4);
    }
    const codes = lib.quantize(x, f);
    let encodeMismatches = 0;
    for (let i = 0; i < n; i++) if (codes[i] !== want[i]) encodeMismatches++;
    out[dtype] = { decodeMismatches, encodeRecords: n, encodeMismatches };
  }
  return out;
}

/**
 * dequantize into binary16 and bfloat16 and convert between formats: the bits (FNV-1a of them) and the native array
 * type.
 */
function float16Section(lib) {
  const hash = (bits) => bits.reduce((h, b) => Math.imul(h ^ b, 16777619) >>> 0, 2166136261);
  const out = {};
  for (const name of ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "bfloat16", "float16"]) {
    const f = lib.format(name);
    const codes = f.K <= 8 ? Uint8Array.from({ length: f.codeCount }, (_, c) => c) : Uint16Array.from({ length: f.codeCount }, (_, c) => c);
    const native = lib.dequantize(codes, f, { to: "float16" });
    const bits = (a) => Array.from(new Uint16Array(a.buffer, a.byteOffset, a.length));
    out[name] = {
      nativeType: native.constructor.name === (typeof globalThis.Float16Array === "function" ? "Float16Array" : "Uint16Array"),
      float16: hash(bits(native)),
      float16Bits: hash(bits(lib.dequantize(codes, f, { to: "float16", bits: true }))),
      bfloat16: hash(bits(lib.dequantize(codes, f, { to: "bfloat16" }))),
      convert: [
        ["float8_e4m3fn", undefined],
        ["Binary8p3se", { rounding: "TowardZero", saturation: "SatFinite" }],
        ["binary16", { rounding: "NearestTiesToAway" }],
      ].map(([to, projection]) => hash(Array.from(lib.convert(codes, f, to, projection)))),
    };
  }
  return out;
}

/** Runs every section; `golden` maps each GOLDEN_DTYPES entry to { decode, encode } file bytes. */
export function runSuite(lib, golden) {
  return {
    float16: float16Section(lib),
    decode: decodeSection(lib),
    encode: encodeSection(lib),
    bulk: bulkSection(lib),
    views: viewSection(lib),
    golden: goldenSection(lib, golden),
  };
}
