// Options objects are checked key by key: a misspelt option must fail loudly, not silently change a result
// (`{ saturaton: "SatFinite" }` quantizing without saturation).
import { ArgumentTypeError, describe } from "./errors.js";

/**
 * Returns `options` (or an empty object) after checking it is a plain object whose own keys are all in `allowed`;
 * an unknown key is an ArgumentTypeError naming it, the allowed keys and, for a near miss, the intended one.
 */
export function checkOptions<T extends object>(options: T | undefined, allowed: readonly string[], argument = "options"): Partial<T> {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options) || ArrayBuffer.isView(options)) {
    throw new ArgumentTypeError(argument, `got ${describe(options)}; allowed: an object with the keys ${allowed.join(", ")}`);
  }
  for (const key of Object.keys(options)) {
    if (allowed.includes(key)) continue;
    const near = nearest(key, allowed);
    throw new ArgumentTypeError(`${argument}.${key}`, `is not an option here${near ? ` (did you mean "${near}"?)` : ""}; allowed: ${allowed.join(", ")}`);
  }
  return options;
}

/** The allowed key closest to `key` by edit distance (case-insensitive), when it is close enough to be a typo. */
function nearest(key: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = (key.length <= 3 ? 1 : Math.max(2, Math.floor(key.length / 3))) + 1;
  for (const candidate of allowed) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
