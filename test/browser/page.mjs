// Runs suite.mjs in the page against the browser bundle; the test reads window.suiteResult (or suiteError).
import * as lib from "minifloat";
import { GOLDEN_DTYPES, runSuite } from "./suite.mjs";

async function bytes(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

try {
  const kernels = await lib.initKernels();
  const golden = {};
  for (const dtype of GOLDEN_DTYPES) {
    golden[dtype] = { decode: await bytes(`/golden/${dtype}.decode.bin`), encode: await bytes(`/golden/${dtype}.encode.bin`) };
  }
  const started = performance.now();
  const result = runSuite(lib, golden);
  window.suiteResult = { result, kernels, status: lib.kernelStatus(), userAgent: navigator.userAgent, ms: performance.now() - started };
  document.body.textContent = "done";
} catch (error) {
  window.suiteError = String(error?.stack ? error.stack : error);
  document.body.textContent = window.suiteError;
}
