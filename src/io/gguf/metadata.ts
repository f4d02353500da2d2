// GGUF metadata values: reading them from a header and serializing them for the writer, with their types kept
// (integers of up to 32 bits as numbers, 64-bit integers as bigint, so every value round-trips exactly).
import { describe } from "../../errors.js";
import type { HeaderCursor } from "./cursor.js";
import { GgufError } from "./errors.js";
import { type GgufScalar, type GgufValue, type GgufValueType, SCALAR_BYTES, VALUE_TYPES, minimumBytes } from "./format.js";

/** Arrays of arrays nest at most this deep (ggml itself reads no nested arrays). */
const MAX_NESTING = 8;

type ItemType = Exclude<GgufValueType, "ARRAY">;

/** A value type id, checked. */
export function valueType(id: number, argument: string): GgufValueType {
  const type = VALUE_TYPES[id];
  if (type === undefined) throw new GgufError(argument, `has value type ${id}; allowed: 0…${VALUE_TYPES.length - 1} (${VALUE_TYPES.join(", ")})`);
  return type;
}

/** Reads one value of `type` at the cursor; `argument` names it (file and key) in errors. */
export async function readValue(c: HeaderCursor, type: GgufValueType, argument: string, depth = 0): Promise<GgufValue> {
  if (type === "STRING") return { type, value: await c.string(`the string of ${argument}`) };
  if (type !== "ARRAY") {
    await c.need(SCALAR_BYTES[type], argument);
    return { type, value: readScalar(c, type) };
  }
  if (depth >= MAX_NESTING) throw new GgufError(c.path, `${argument} nests arrays ${depth + 1} deep; allowed: at most ${MAX_NESTING}`);
  await c.need(4, argument);
  const itemType = valueType(c.u32(), `${c.path}: the items of ${argument}`);
  const n = await c.count(`the item count of ${argument}`, minimumBytes(itemType));
  c.countItems(n, `the ${n} items of ${argument}`);
  if (itemType === "ARRAY") {
    // An array item is its own item type, count and items, with no value type before it (as the gguf package writes).
    const items: GgufValue[] = [];
    for (let i = 0; i < n; i++) items.push(await readValue(c, "ARRAY", `${argument}[${i}]`, depth + 1));
    return { type, itemType, value: items };
  }
  const items: GgufScalar[] = new Array(n);
  if (itemType === "STRING") {
    for (let i = 0; i < n; i++) items[i] = await c.string(`${argument}[${i}]`);
  } else {
    await c.need(n * SCALAR_BYTES[itemType], argument);
    for (let i = 0; i < n; i++) items[i] = readScalar(c, itemType);
  }
  return { type, itemType, value: items };
}

type Getter = (view: DataView, at: number) => GgufScalar;
const GETTERS: Readonly<Record<Exclude<ItemType, "STRING">, Getter>> = {
  UINT8: (v, at) => v.getUint8(at),
  INT8: (v, at) => v.getInt8(at),
  BOOL: (v, at) => v.getUint8(at) !== 0,
  UINT16: (v, at) => v.getUint16(at, true),
  INT16: (v, at) => v.getInt16(at, true),
  UINT32: (v, at) => v.getUint32(at, true),
  INT32: (v, at) => v.getInt32(at, true),
  FLOAT32: (v, at) => v.getFloat32(at, true),
  UINT64: (v, at) => v.getBigUint64(at, true),
  INT64: (v, at) => v.getBigInt64(at, true),
  FLOAT64: (v, at) => v.getFloat64(at, true),
};

function readScalar(c: HeaderCursor, type: Exclude<ItemType, "STRING">): GgufScalar {
  return c.read(SCALAR_BYTES[type], GETTERS[type]);
}

/** Integer ranges of the integer types (64-bit ones as bigint). */
const RANGES: Readonly<Partial<Record<ItemType, readonly [bigint, bigint]>>> = {
  UINT8: [0n, 255n],
  INT8: [-128n, 127n],
  UINT16: [0n, 65535n],
  INT16: [-32768n, 32767n],
  UINT32: [0n, 4294967295n],
  INT32: [-2147483648n, 2147483647n],
  UINT64: [0n, (1n << 64n) - 1n],
  INT64: [-(1n << 63n), (1n << 63n) - 1n],
};

const utf8 = new TextEncoder();

/** Serializes a value (without its type id) after checking it against its type; appends the bytes to `out`. */
export function writeValue(v: GgufValue, argument: string, out: Uint8Array[], depth = 0): void {
  if (v === null || typeof v !== "object" || !VALUE_TYPES.includes(v.type)) {
    throw new GgufError(argument, `is ${describe(v)}; allowed: { type, value } with type one of ${VALUE_TYPES.join(", ")}`);
  }
  if (v.type !== "ARRAY") {
    out.push(scalarBytes(v.type, v.value, argument));
    return;
  }
  const { itemType, value } = v;
  if (!VALUE_TYPES.includes(itemType)) throw new GgufError(`${argument}.itemType`, `is ${describe(itemType)}; allowed: ${VALUE_TYPES.join(", ")}`);
  if (!Array.isArray(value)) throw new GgufError(`${argument}.value`, `is ${describe(value)}; allowed: an array of ${itemType} values`);
  if (depth >= MAX_NESTING) throw new GgufError(argument, `nests arrays ${depth + 1} deep; allowed: at most ${MAX_NESTING}`);
  const head = new DataView(new ArrayBuffer(12));
  head.setUint32(0, VALUE_TYPES.indexOf(itemType), true);
  head.setBigUint64(4, BigInt(value.length), true);
  out.push(new Uint8Array(head.buffer));
  value.forEach((item: GgufScalar | GgufValue, i: number) => {
    if (itemType !== "ARRAY") out.push(scalarBytes(itemType, item as GgufScalar, `${argument}[${i}]`));
    else {
      const inner = item as GgufValue;
      if (inner?.type !== "ARRAY") throw new GgufError(`${argument}[${i}]`, `is ${describe(inner)}; allowed: an ARRAY value`);
      writeValue(inner, `${argument}[${i}]`, out, depth + 1);
    }
  });
}

export function typeId(type: GgufValueType): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, VALUE_TYPES.indexOf(type), true);
  return b;
}

/** Bytes of a string: u64 length, UTF-8 bytes. */
export function stringBytes(s: string): Uint8Array {
  const text = utf8.encode(s);
  const b = new Uint8Array(8 + text.length);
  new DataView(b.buffer).setBigUint64(0, BigInt(text.length), true);
  b.set(text, 8);
  return b;
}

function scalarBytes(type: ItemType, value: unknown, argument: string): Uint8Array {
  if (type === "STRING") {
    if (typeof value !== "string") throw new GgufError(argument, `is ${describe(value)}; allowed: a string`);
    return stringBytes(value);
  }
  const b = new Uint8Array(SCALAR_BYTES[type]);
  const view = new DataView(b.buffer);
  if (type === "BOOL") {
    if (typeof value !== "boolean") throw new GgufError(argument, `is ${describe(value)}; allowed: a boolean`);
    b[0] = value ? 1 : 0;
  } else if (type === "FLOAT32" || type === "FLOAT64") {
    if (typeof value !== "number") throw new GgufError(argument, `is ${describe(value)}; allowed: a number (${type})`);
    if (type === "FLOAT32") view.setFloat32(0, value, true);
    else view.setFloat64(0, value, true);
  } else {
    const [lo, hi] = RANGES[type]!;
    const n = typeof value === "bigint" ? value : typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : undefined;
    if (n === undefined || n < lo || n > hi) throw new GgufError(argument, `is ${describe(value)}; allowed: an integer in [${lo}, ${hi}] (${type})`);
    if (b.length === 8) view.setBigUint64(0, BigInt.asUintN(64, n), true);
    else for (let i = 0; i < b.length; i++) b[i] = Number((n >> BigInt(8 * i)) & 255n);
  }
  return b;
}
