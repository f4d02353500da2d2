// The second, independent P3109 v4.0 set (golden/p3109, exact rational oracle): every record of project.jsonl.gz
// (exact x_hex inputs, incl. Binary16p1se exponents near ±16700 and the external formats) and every Convert record
// of ops8.jsonl.gz.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodeExact, omegaProject } from "../src/api/scalar.js";
import type { Projection, Rounding, Saturation } from "../src/exact/projection.js";
import type { Exact } from "../src/exact/value.js";
import type { Format } from "../src/format/model.js";
import { format } from "../src/format/registry.js";
import { parseHexFloat, sharedPath } from "./golden/reader.js";

const manifest = JSON.parse(readFileSync(sharedPath("golden", "p3109", "manifest.json"), "utf8"));
const recordsOf = (file: string): number => manifest.files.find((f: { file: string }) => f.file === file).records;

/** Calls fn for every line of a gzip'd JSON Lines file without building one huge string. */
function forEachLine(file: string, fn: (line: string) => void): number {
  const buf = gunzipSync(readFileSync(sharedPath("golden", "p3109", file)));
  let start = 0;
  let n = 0;
  while (start < buf.length) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    if (end > start) {
      fn(buf.toString("latin1", start, end));
      n++;
    }
    start = end + 1;
  }
  return n;
}

interface Rec {
  op: string;
  fx?: string;
  fr: string;
  rnd: Rounding;
  sat: Saturation;
  N?: number;
  R?: number;
  x_hex?: string;
  x?: number;
  r: number;
}

/** Compares a result; NaN results in external (IEEE-family) formats match any NaN (P3109 §4.8: one NaN datum). */
function compare(f: Format, got: number, want: number): boolean {
  if (got === want) return true;
  return f.family === "IEEE" && f.isNaNCode(want) && f.isNaNCode(got);
}

function runRecords(file: string, select: (r: Rec) => boolean, input: (r: Rec) => Exact) {
  const formats = new Map<string, Format>();
  const fmt = (name: string) => {
    let f = formats.get(name);
    if (!f) formats.set(name, (f = format(name)));
    return f;
  };
  const failures: string[] = [];
  const perFormat = new Map<string, number>();
  let checked = 0;
  const lines = forEachLine(file, (line) => {
    const r = JSON.parse(line) as Rec;
    if (!select(r)) return;
    const f = fmt(r.fr);
    const x = input(r);
    const options: Projection = { rounding: r.rnd, saturation: r.sat };
    if (r.N !== undefined) {
      options.stochasticBits = r.N;
      options.random = r.R;
    }
    const got = omegaProject(x, f, options);
    checked++;
    perFormat.set(r.fr, (perFormat.get(r.fr) ?? 0) + 1);
    if (!compare(f, got, r.r) && failures.length < 25) failures.push(`${line} → got ${got}`);
  });
  return { lines, checked, failures, perFormat };
}

describe("P3109 JSONL vectors (exact rational oracle)", () => {
  it("project.jsonl.gz: every Project record (all formats incl. Binary16p1se and binary16/bfloat16/binary32)", () => {
    const hexCache = new Map<string, Exact>();
    const res = runRecords(
      "project.jsonl.gz",
      (r) => r.op === "Project",
      (r) => {
        let x = hexCache.get(r.x_hex!);
        if (!x) hexCache.set(r.x_hex!, (x = parseHexFloat(r.x_hex!)));
        return x;
      },
    );
    expect(res.failures).toEqual([]);
    expect(res.lines).toBe(recordsOf("project.jsonl.gz"));
    expect(res.checked).toBe(1334142);
    expect([...res.perFormat.keys()].sort()).toEqual([...manifest.project_formats].sort());
    expect(res.perFormat.get("Binary16p1se")).toBeGreaterThan(1000);
  });

  it("ops8.jsonl.gz: every Convert record (8-bit → 8-bit, Binary4p2sf, binary16/bfloat16/binary32, and binary32/binary16/bfloat16 → 8-bit)", () => {
    const res = runRecords(
      "ops8.jsonl.gz",
      (r) => r.op === "Convert",
      (r) => decodeExact(r.x!, format(r.fx!)),
    );
    expect(res.failures).toEqual([]);
    expect(res.checked).toBe(15144);
    expect(res.lines).toBe(recordsOf("ops8.jsonl.gz"));
  });
});
