// The generated WGSL and the bulk kernels on a real WebGPU device: headless Chromium from npm with its SwiftShader
// adapter (test/browser/chromium.ts). The checks run in the page (test/browser/webgpu-harness.mjs) against the CPU
// library of the same bundle. A missing adapter fails the tests with the reason: the npm Chromium always has one.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { format, registeredNames } from "../src/index.js";
import { type StaticServer, serveStatic } from "../scripts/static-server.mjs";
import { type Browser, launchChromium } from "./browser/chromium.js";
import { EIGHT_BIT_FORMATS, p3109Names } from "./format-lists.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let server: StaticServer;
let browser: Browser | undefined;
let page: Promise<Page> | undefined;

interface Report {
  checked: number;
  mismatches: number;
  first: string[];
}

beforeAll(async () => {
  server = await serveStatic({ "/build/browser/": join(root, "build", "browser"), "/test/browser/": join(root, "test", "browser") });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The page with the harness and a device (launched by the first test, so a missing browser fails the tests). */
async function harness(): Promise<Page> {
  page ??= (async () => {
    browser = await launchChromium({ webgpu: true });
    const p = await browser.context.newPage();
    p.on("console", (m) => m.type() === "error" && console.error(m.text()));
    await p.goto(`${server.origin}/test/browser/webgpu.html`);
    await p.waitForFunction(() => "harness" in globalThis);
    const info = await p.evaluate(() => (globalThis as unknown as { harness: { init(): Promise<{ error?: string; adapter?: string }> } }).harness.init());
    if (info.error) throw new Error(`no WebGPU adapter: ${info.error}`);
    return p;
  })();
  return page;
}

async function call(name: string, arg: unknown): Promise<Report> {
  const p = await harness();
  return p.evaluate(([n, a]) => (globalThis as unknown as { harness: Record<string, (x: unknown) => Promise<Report>> }).harness[n as string]!(a), [
    name,
    arg,
  ] as const);
}

/** Distinct formats of 9–16 bits: the registered ones and P3109's 16-bit ones, plus a spread of narrower P3109 ones. */
const WIDE = [
  ...new Map(
    [...registeredNames(), ...p3109Names(16).filter((n) => /^Binary(16p(1|2|5|8|11|15|16)|12p(1|6)|9p(1|4|8))[su][ef]$/.test(n))].map((n) => [format(n), n]),
  ).entries(),
]
  .filter(([f]) => f.K > 8 && f.K <= 16)
  .map(([, n]) => n);

describe("WebGPU (SwiftShader in headless Chromium)", () => {
  it(`decodeBits: every code of the ${EIGHT_BIT_FORMATS.length} formats of ≤ 8 bits equals dequantize's float32 bits`, async () => {
    const r = await call("decodeAll", EIGHT_BIT_FORMATS);
    expect(r.first).toEqual([]);
    expect(r.checked).toBe(EIGHT_BIT_FORMATS.reduce((s, n) => s + format(n).codeCount, 0));
  });

  it(`decodeBits: every code of ${WIDE.length} formats of 9–16 bits equals dequantize's bits`, async () => {
    const r = await call("decodeAll", WIDE);
    expect(r.first).toEqual([]);
    expect(r.checked).toBe(WIDE.reduce((s, n) => s + format(n).codeCount, 0));
  });
});

/** Registered formats (aliases once) and every P3109 format, 8 bits and under, and the wider registered ones. */
const ENCODE_DEFAULT = [...EIGHT_BIT_FORMATS, ...WIDE.filter((n) => !/^Binary/.test(n))];
const DETERMINISTIC = ["NearestTiesToEven", "NearestTiesToAway", "TowardZero", "TowardPositive", "TowardNegative", "TowardMaxMagnitude", "ToOdd"];
const SATURATION = ["SatFinite", "SatPropagate", "SatNone"];
/** Every deterministic rounding and saturation on a spread of formats (ml_dtypes, OCP, P3109, E8M0, 16-bit). */
const ENCODE_PROJECTED = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e8m0fnu", "Binary8p3se", "bfloat16"].flatMap((name) =>
  DETERMINISTIC.flatMap((rounding) => SATURATION.map((saturation) => ({ name, projection: { rounding, saturation } }))),
);

/** The stochastic roundings with caller R, N from 1 to the largest the constants cover. */
const ENCODE_STOCHASTIC = ["float8_e4m3fn", "Binary8p3se", "float4_e2m1fn", "bfloat16"].flatMap((name) =>
  ["StochasticA", "StochasticB", "StochasticC"].flatMap((rounding) =>
    [1, 5, 12, 30].map((stochasticBits) => ({ name, projection: { rounding, stochasticBits, saturation: "SatFinite" } })),
  ),
);

describe("WebGPU encodeBits over the strided float32 sweep (every 65 521st pattern, codes, midpoints, neighbours)", () => {
  it(`equals quantize for the default projection of ${ENCODE_DEFAULT.length} formats`, async () => {
    const r = await call(
      "encodeSweep",
      ENCODE_DEFAULT.map((name) => ({ name })),
    );
    expect(r.first).toEqual([]);
    expect(r.checked).toBeGreaterThan(ENCODE_DEFAULT.length * 65_536);
  });

  it(`equals quantize under every deterministic rounding × saturation (${ENCODE_PROJECTED.length} cases)`, async () => {
    const r = await call("encodeSweep", ENCODE_PROJECTED);
    expect(r.first).toEqual([]);
    expect(r.checked).toBeGreaterThan(ENCODE_PROJECTED.length * 65_536);
  });
});

describe("WebGPU encodeBits with random bits", () => {
  it(`equals quantize given the same R under StochasticA/B/C (${ENCODE_STOCHASTIC.length} cases)`, async () => {
    const r = await call("encodeSweep", ENCODE_STOCHASTIC);
    expect(r.first).toEqual([]);
    expect(r.checked).toBeGreaterThan(ENCODE_STOCHASTIC.length * 65_536);
  });
});

describe("WebGPU bulk kernels", () => {
  it("dequantize (u4 in both nibble orders, u8, u16; float32 and binary16 bits) and quantize equal the CPU's", async () => {
    const r = await call("bulk", ["float4_e2m1fn", "float8_e4m3fn", "float8_e5m2", "Binary8p3se", "float6_e3m2fn", "bfloat16", "float16"]);
    expect(r.first).toEqual([]);
    expect(r.checked).toBeGreaterThan(100_000);
  });

  it("dequantize spans a 2-D grid of workgroups (more than 65 535 × 64 elements)", async () => {
    const r = await call("large", undefined);
    expect(r.first).toEqual([]);
    expect(r.checked).toBe(65535 * 64 + 4099);
  });

  it("MX and NVFP4 block dequantize equals dequantizeBlocks in every nibble order, for every scale code", async () => {
    const r = await call("blocks", ["mxfp4", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp8_e4m3", "mxfp8_e5m2", "nvfp4"]);
    expect(r.first).toEqual([]);
    expect(r.checked).toBe(3 * (256 * 32 + 5) + 4 * (256 * 32 + 5) + 3 * (256 * 16 + 5));
  });

  it("matvec equals the CPU model of its accumulation order bit for bit (8-bit, packed 4-bit, MXFP4, NVFP4)", async () => {
    const cases = [
      { format: "float8_e4m3fn", layout: "u8" },
      { format: "Binary8p3se", layout: "u8" },
      { format: "float4_e2m1fn", layout: "u4" },
      { scheme: "mxfp4" },
      { scheme: "mxfp8_e5m2" },
      { scheme: "nvfp4" },
    ];
    const r = await call("matvec", cases);
    expect(r.first).toEqual([]);
    expect(r.checked).toBe(cases.length * 48);
  });
});
