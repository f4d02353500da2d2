// Types of suite.mjs (plain JavaScript, because the page loads it as it is).
export declare const GOLDEN_DTYPES: readonly string[];
export interface SuiteResult {
  golden: Record<string, { decodeMismatches: number; encodeRecords: number; encodeMismatches: number }>;
  [section: string]: unknown;
}
export declare function runSuite(lib: typeof import("minifloat"), golden: Record<string, { decode: Uint8Array; encode: Uint8Array }>): SuiteResult;
