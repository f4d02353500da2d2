// The safetensors header: 8-byte little-endian length N, then N bytes of UTF-8 JSON
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {string: string}}; offsets are relative to
// the data buffer that follows. Validation is strict: a file this accepts can be read without further checks.
import type { Format } from "../format/model.js";
import { type DtypeInfo, FORMAT_KEY_PREFIX, byteLength, dtypeInfo, formatFromRecordedName, recordableName } from "./dtypes.js";
import { SafetensorsError } from "./errors.js";

/** Largest header accepted (the reference implementation's limit). */
export const MAX_HEADER_BYTES = 100_000_000;

export interface TensorInfo {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Number of elements (product of the shape). */
  readonly length: number;
  /** Byte offsets [begin, end) in the data buffer. */
  readonly begin: number;
  readonly end: number;
  readonly info: DtypeInfo;
  /** The minifloat format of the stored values: the dtype's own, or the one recorded in metadata; none for integers. */
  readonly format?: Format;
}

export interface Header {
  /** Tensors in data-buffer order. */
  readonly tensors: readonly TensorInfo[];
  /** `__metadata__` without minifloat's format records (those are in `TensorInfo.format`). */
  readonly metadata: Readonly<Record<string, string>>;
}

const TENSOR_KEYS = ["dtype", "shape", "data_offsets"];

/** Parses and validates the JSON header against the size of the data buffer that follows it. */
/** The first key the top-level object of valid JSON text repeats, if any (nested objects are not looked into). */
function repeatedKey(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let key = false; // the next string at depth 1 is a key
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      if (depth === 1 && key) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (seen.has(name)) return name;
        seen.add(name);
        key = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      key = depth === 1;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth === 1) key = true;
  }
  return undefined;
}

export function parseHeader(bytes: Uint8Array, dataLength: number, file = "header"): Header {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SafetensorsError(file, "header is not valid UTF-8");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new SafetensorsError(file, `header is not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(json)) throw new SafetensorsError(file, "header must be a JSON object {tensor name: {dtype, shape, data_offsets}}");
  // JSON.parse keeps the last of two equal keys: a tensor named twice would lose its first entry silently.
  const twice = repeatedKey(text);
  if (twice !== undefined) throw new SafetensorsError(file, `header names ${JSON.stringify(twice)} twice; allowed: each tensor (and __metadata__) once`);
  const metadata = parseMetadata(json.__metadata__, file);
  const records = new Map<string, string>();
  for (const [key, value] of Object.entries(metadata)) {
    if (key.startsWith(FORMAT_KEY_PREFIX)) {
      records.set(key.slice(FORMAT_KEY_PREFIX.length), value);
      delete metadata[key];
    }
  }
  const tensors = Object.entries(json)
    .filter(([name]) => name !== "__metadata__")
    .map(([name, entry]) => parseTensor(name, entry, records.get(name), file))
    .sort((a, b) => a.begin - b.begin || a.end - b.end);
  for (const name of records.keys()) {
    if (!tensors.some((t) => t.name === name)) {
      throw new SafetensorsError(`${file}: __metadata__["${FORMAT_KEY_PREFIX}${name}"]`, "names a tensor the file does not contain");
    }
  }
  checkLayout(tensors, dataLength, file);
  return { tensors, metadata };
}

function parseMetadata(value: unknown, file: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new SafetensorsError(`${file}: __metadata__`, "must be an object of string values");
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") throw new SafetensorsError(`${file}: __metadata__["${k}"]`, `is ${JSON.stringify(v)}; allowed: a string`);
    out[k] = v;
  }
  return out;
}

function parseTensor(name: string, entry: unknown, recorded: string | undefined, file: string): TensorInfo {
  const where = `${file}: tensor "${name}"`;
  if (!isObject(entry)) throw new SafetensorsError(where, "must be an object {dtype, shape, data_offsets}");
  const extra = Object.keys(entry).filter((k) => !TENSOR_KEYS.includes(k));
  if (extra.length > 0) throw new SafetensorsError(where, `has unknown field(s) ${extra.join(", ")}; allowed: ${TENSOR_KEYS.join(", ")}`);
  const info = dtypeInfo(entry.dtype, `${where} dtype`);
  const shape = entry.shape;
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new SafetensorsError(`${where} shape`, `is ${JSON.stringify(shape)}; allowed: an array of non-negative integers`);
  }
  const length = shape.reduce((p: number, d: number) => p * d, 1);
  if (!Number.isSafeInteger(length * info.bits)) throw new SafetensorsError(`${where} shape`, `${JSON.stringify(shape)} has too many elements`);
  const offsets = entry.data_offsets;
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) || offsets[0] > offsets[1]) {
    throw new SafetensorsError(`${where} data_offsets`, `is ${JSON.stringify(offsets)}; allowed: [begin, end] with 0 ≤ begin ≤ end`);
  }
  const [begin, end] = offsets as [number, number];
  const expected = byteLength(info, length);
  if (end - begin !== expected) {
    throw new SafetensorsError(`${where} data_offsets`, `span ${end - begin} bytes; ${length} × ${info.name} elements need ${expected}`);
  }
  let fmt: Format | undefined;
  if (recorded !== undefined) {
    fmt = formatFromRecordedName(recorded, `${file}: __metadata__["${FORMAT_KEY_PREFIX}${name}"]`);
    const container = fmt.K <= 8 ? "U8" : fmt.K <= 16 ? "U16" : undefined;
    if (info.name !== container) {
      throw new SafetensorsError(
        where,
        `records format ${fmt.name} (${fmt.K}-bit codes) but has dtype ${info.name}; allowed: ${container ?? "none (more than 16 bits)"}`,
      );
    }
  } else if (info.format !== undefined) {
    fmt = formatFromRecordedName(info.format, where);
  }
  return { name, dtype: info.name, shape: [...shape], length, begin, end, info, ...(fmt && { format: fmt }) };
}

/** Tensors must tile the data buffer exactly: from 0, no gaps, no overlaps, up to its last byte. */
function checkLayout(tensors: readonly TensorInfo[], dataLength: number, file: string): void {
  let at = 0;
  for (const t of tensors) {
    if (t.end > dataLength) {
      throw new SafetensorsError(
        `${file}: tensor "${t.name}" data_offsets`,
        `[${t.begin}, ${t.end}] reach beyond the data buffer (${dataLength} bytes): out of range or truncated file`,
      );
    }
    if (t.begin < at)
      throw new SafetensorsError(`${file}: tensor "${t.name}" data_offsets`, `[${t.begin}, ${t.end}] overlap the previous tensor, which ends at ${at}`);
    if (t.begin > at)
      throw new SafetensorsError(
        `${file}: tensor "${t.name}" data_offsets`,
        `[${t.begin}, ${t.end}] leave a gap: bytes [${at}, ${t.begin}) belong to no tensor`,
      );
    at = t.end;
  }
  if (at !== dataLength) throw new SafetensorsError(file, `data buffer has ${dataLength} bytes but the tensors cover only ${at}`);
}

export interface TensorSpec {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** For U8/U16 tensors holding codes of another format: that format (recorded in `__metadata__`). */
  readonly format?: Format;
}

/** The header bytes (length prefix included, padded with spaces to a multiple of 8) and each tensor's layout. */
export function serializeHeader(specs: readonly TensorSpec[], metadata: Readonly<Record<string, string>>): { bytes: Uint8Array; tensors: TensorInfo[] } {
  // Null prototypes: a tensor or key named "__proto__" is data, not a prototype.
  const meta: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(metadata)) {
    if (typeof v !== "string") throw new SafetensorsError(`metadata["${k}"]`, `is ${JSON.stringify(v)}; allowed: a string`);
    if (k.startsWith(FORMAT_KEY_PREFIX))
      throw new SafetensorsError(`metadata["${k}"]`, `keys starting with "${FORMAT_KEY_PREFIX}" are written by minifloat from TensorSpec.format`);
    meta[k] = v;
  }
  const json: Record<string, unknown> = Object.create(null);
  const tensors: TensorInfo[] = [];
  let at = 0;
  for (const spec of specs) {
    const where = `tensor "${spec.name}"`;
    if (spec.name === "__metadata__" || Object.hasOwn(json, spec.name)) throw new SafetensorsError(where, "name is reserved or used twice");
    const info = dtypeInfo(spec.dtype, `${where} dtype`);
    if (!Array.isArray(spec.shape) || !spec.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new SafetensorsError(`${where} shape`, `is ${JSON.stringify(spec.shape)}; allowed: an array of non-negative integers`);
    }
    const length = spec.shape.reduce((p, d) => p * d, 1);
    const end = at + byteLength(info, length);
    let fmt = info.format !== undefined ? formatFromRecordedName(info.format, where) : undefined;
    if (spec.format !== undefined) {
      const container = spec.format.K <= 8 ? "U8" : spec.format.K <= 16 ? "U16" : undefined;
      if (info.name !== container)
        throw new SafetensorsError(where, `format ${spec.format.name} is stored as ${container ?? "nothing (more than 16 bits)"}, not ${info.name}`);
      const name = recordableName(spec.format);
      meta[FORMAT_KEY_PREFIX + spec.name] = name;
      fmt = formatFromRecordedName(name, where);
    }
    json[spec.name] = { dtype: info.name, shape: [...spec.shape], data_offsets: [at, end] };
    tensors.push({ name: spec.name, dtype: info.name, shape: [...spec.shape], length, begin: at, end, info, ...(fmt && { format: fmt }) });
    at = end;
  }
  const text = JSON.stringify(Object.keys(meta).length > 0 ? { __metadata__: meta, ...json } : json);
  const body = new TextEncoder().encode(text);
  const padded = Math.ceil(body.length / 8) * 8;
  if (padded > MAX_HEADER_BYTES) throw new SafetensorsError("header", `would be ${padded} bytes; allowed: at most ${MAX_HEADER_BYTES}`);
  const bytes = new Uint8Array(8 + padded).fill(0x20, 8 + body.length);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(padded), true);
  bytes.set(body, 8);
  return { bytes, tensors };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
