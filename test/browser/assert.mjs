// The part of node:assert/strict the docs/frameworks.md snippets use, for running them in a browser page.

function fail(message) {
  throw new Error(`assertion failed: ${message}`);
}

const show = (v) => (ArrayBuffer.isView(v) ? `${v.constructor.name} [${Array.from(v).join(", ")}]` : JSON.stringify(v));

function same(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => same(a[k], b[k]));
}

export default {
  ok: (value, message) => value || fail(message ?? `${show(value)} is falsy`),
  equal: (actual, expected) => Object.is(actual, expected) || fail(`${show(actual)} !== ${show(expected)}`),
  deepEqual: (actual, expected) => same(actual, expected) || fail(`${show(actual)} is not ${show(expected)}`),
};
