// Helpers of the explorer's modules: DOM construction, error boxes, and exact values (mf.decodeExact's
// { sign, significand, exponent }) as text and as float64 for charts.

export const $ = (id) => document.getElementById(id);
/** Value tables, ranges and error histograms cover formats of up to 16 bits (binary32/64 have too many codes). */
export const MAX_K = 16;
/** Phone widths, where the charts are drawn narrower so that their text, scaled down with them, stays readable. */
export const NARROW = matchMedia("(max-width: 600px)");
/** The width of the charts' coordinate system (their viewBox): 640 units on phones, 960 elsewhere. */
export const chartWidth = () => (NARROW.matches ? 640 : 960);
const SVG = "http://www.w3.org/2000/svg";

export function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children) node.append(c);
  return node;
}

export function showError(id, error) {
  const box = $(id);
  box.hidden = error === undefined;
  box.textContent = error === undefined ? "" : `${error.name ?? "Error"}: ${error.message ?? error}`;
}

export function bitLength(m) {
  return m === 0n ? 0 : m.toString(2).length;
}

/** An exact value as a hex float (0x1.8p-16383), for values a float64 cannot hold. */
export function hexFloat(x) {
  const n = bitLength(x.significand);
  let frac = x.significand - (1n << BigInt(n - 1));
  let bits = n - 1;
  while (bits % 4) {
    frac <<= 1n;
    bits++;
  }
  const digits = bits
    ? "." +
      frac
        .toString(16)
        .padStart(bits / 4, "0")
        .replace(/0+$/, "")
    : "";
  return `${x.sign < 0 ? "-" : ""}0x1${digits === "." ? "" : digits}p${x.exponent + n - 1}`;
}

/** An exact value as a float64 (the nearest, possibly 0 or ±∞ outside float64's range): for charts and errors. */
export function approx(x) {
  if (x.kind === "nan") return NaN;
  if (x.kind === "infinity") return x.sign * Infinity;
  if (x.significand === 0n) return x.sign < 0 ? -0 : 0;
  const n = bitLength(x.significand);
  const top = Number(x.significand >> BigInt(Math.max(0, n - 53)));
  return x.sign * top * 2 ** (x.exponent + Math.max(0, n - 53));
}

/** log2 of a positive exact value (floating point, for the axis). */
export function log2Exact(x) {
  const n = bitLength(x.significand);
  const top = Number(x.significand >> BigInt(Math.max(0, n - 53)));
  return Math.log2(top) + x.exponent + Math.max(0, n - 53);
}

export function fmtNumber(v, digits = 4) {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return "0";
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e6 ? Number(v.toPrecision(digits)).toString() : v.toExponential(digits - 1);
}

/** A log2 position: exact integers as they are, others to 3 decimals. */
export const fmtLog = (l) => (Number.isInteger(l) ? String(l) : l.toFixed(3));
export const pct = (share) => `${(100 * share).toFixed(2)} %`;
/** A finite exact value: the float64 that holds it, or an exact hex float where none does. */
/** A number field's value; NaN when empty (Number("") would be 0, a silent bias or seed). */
export function fieldNumber(id) {
  const text = $(id).value.trim();
  return text === "" ? Number.NaN : Number(text);
}

export function exactText(x) {
  const v = approx(x);
  const exact = bitLength(x.significand) <= 53 && v !== 0 && Number.isFinite(v) && Math.abs(Math.log2(Math.abs(v))) < 1000;
  return exact ? decimalText(v) : hexFloat(x);
}

/**
 * A float64 value in decimal, every digit exact: String() gives the shortest digits that round back, which for an
 * integer from 2^54 up are not its value (2^62 printed 4611686018427388000): those go through BigInt.
 */
export function decimalText(v) {
  return Number.isInteger(v) && Math.abs(v) >= 2 ** 53 ? BigInt(v).toString() : String(v);
}
