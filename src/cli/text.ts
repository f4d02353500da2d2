// Plain-text rendering for the CLI: aligned tables and number formats that stay readable for tiny errors.

/** Columns padded to their widest cell; `right` lists the right-aligned (numeric) columns. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], right: readonly number[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (right.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${[line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n")}\n`;
}

/** A number with 4 significant digits (exponent form outside [1e-3, 1e5)). */
export function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return "0";
  const a = Math.abs(x);
  return a >= 1e-3 && a < 1e5 ? String(Number(x.toPrecision(4))) : x.toExponential(3);
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? "-" : `${((100 * part) / whole).toFixed(part === 0 || part === whole ? 0 : 3)}%`;
}

export function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** Elements per second as "12.3 M/s". */
export function rate(elements: number, seconds: number): string {
  if (seconds <= 0) return "-";
  const r = elements / seconds;
  return r >= 1e6 ? `${(r / 1e6).toFixed(1)} M/s` : r >= 1e3 ? `${(r / 1e3).toFixed(1)} k/s` : `${r.toFixed(0)} /s`;
}
