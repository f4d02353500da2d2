// Readers for the golden vectors in ../shared/golden (layouts: the READMEs and manifests there).
import { existsSync, readFileSync, createReadStream } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, createGunzip } from "node:zlib";
import { createInterface } from "node:readline";
import { type Exact, NAN, NEG_INF, POS_INF, finite } from "../../src/exact/value.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Path of a file under ../shared (relative to the repository root); fails clearly when shared/ is missing. */
export function sharedPath(...parts: string[]): string {
  const base = join(repoRoot, "..", "shared");
  if (!existsSync(base)) throw new Error(`golden vectors not found: expected the shared folder at ${base} (next to the repository)`);
  const p = join(base, ...parts);
  if (!existsSync(p)) throw new Error(`golden file missing: ${p}`);
  return p;
}

export type TypedArray = Uint8Array | Uint16Array | Uint32Array | BigUint64Array | Float64Array;

export interface P3gvArray {
  name: string;
  dtype: "u8" | "u16" | "u32" | "u64" | "f64";
  shape: number[];
  data: TypedArray;
  meta?: Record<string, unknown> & { columns?: Column[] };
}

export interface Column {
  round: string;
  sat: string;
  N?: number;
  R?: number | "per-row";
  R_column?: number;
  has_ref?: boolean;
}

export interface P3gv {
  meta: Record<string, any>;
  arrays: Map<string, P3gvArray>;
}

const CTORS = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, u64: BigUint64Array, f64: Float64Array } as const;

/** Reads a P3GV0001 container (gzip; magic, u32 header length, JSON header, 8-byte aligned little-endian arrays). */
export function readP3gv(path: string): P3gv {
  const buf = gunzipSync(readFileSync(path));
  const magic = buf.subarray(0, 8).toString("latin1");
  if (magic !== "P3GV0001") throw new Error(`${path}: not a P3GV0001 container (magic ${JSON.stringify(magic)})`);
  const H = buf.readUInt32LE(8);
  const header = JSON.parse(buf.subarray(12, 12 + H).toString("utf8"));
  // Copy into an aligned buffer so typed views at 8-byte aligned offsets are valid.
  const data = new Uint8Array(buf.length - 12 - H);
  data.set(buf.subarray(12 + H));
  const arrays = new Map<string, P3gvArray>();
  for (const a of header.arrays) {
    const C = CTORS[a.dtype as keyof typeof CTORS];
    const n = a.nbytes / C.BYTES_PER_ELEMENT;
    arrays.set(a.name, { name: a.name, dtype: a.dtype, shape: a.shape, data: new C(data.buffer, a.offset, n), meta: a.meta });
  }
  return { meta: header.meta ?? {}, arrays };
}

export function getArray(c: P3gv, name: string): P3gvArray {
  const a = c.arrays.get(name);
  if (!a) throw new Error(`container has no array ${name}; it has ${[...c.arrays.keys()].join(", ")}`);
  return a;
}

/** Streams the records of a (gzip'd) JSON Lines file. */
export async function* readJsonl<T = any>(path: string): AsyncGenerator<T> {
  const input = path.endsWith(".gz") ? createReadStream(path).pipe(createGunzip()) : createReadStream(path);
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) if (line.length > 0) yield JSON.parse(line) as T;
}

/**
 * Parses a hexadecimal float into an exact value: `[-]0x<hex>[.<hex>]p<±dec>` (normalised or not, Julia-style
 * subnormals such as `0x0.8p-16`), `[-]0x<hex int>p<±dec>`, or the literals Inf, -Inf, NaN.
 */
export function parseHexFloat(s: string): Exact {
  const t = s.trim();
  if (t === "NaN" || t === "nan") return NAN;
  if (t === "Inf" || t === "+Inf" || t === "inf") return POS_INF;
  if (t === "-Inf" || t === "-inf") return NEG_INF;
  const m = /^([+-]?)0x([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?p([+-]?\d+)$/.exec(t);
  if (!m) throw new Error(`not a hex float: ${JSON.stringify(s)}`);
  const sign = m[1] === "-" ? -1 : 1;
  const int = m[2] || "0";
  const frac = m[3] ?? "";
  const significand = BigInt(`0x${int}${frac}`);
  return finite(sign, significand, Number(m[4]) - 4 * frac.length);
}

export interface ValueRow {
  code: number;
  value: Exact;
  subnormal: boolean;
}

/** Rows of a P3109 value table `Binary{K}p{P}{s|u}{e|f}.csv[.gz]` (codepoint, value, subnormal flag). */
export function readValueTable(path: string): ValueRow[] {
  const raw = readFileSync(path);
  const text = (path.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
  const lines = text.split("\n");
  if (lines[0] !== "codepoint,value,subnormal") throw new Error(`${path}: unexpected header ${JSON.stringify(lines[0])}`);
  const rows: ValueRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length === 0) continue;
    const [code, value, flag] = line.split(",");
    rows.push({ code: parseInt(code!, 16), value: parseHexFloat(value!), subnormal: flag === "*" });
  }
  return rows;
}
