#!/usr/bin/env node
// Writes the P3109 conformance declaration files (Configurations.yaml, Profiles.yaml, Constraints.yaml, Kappas.yaml)
// generated from minifloat's operation catalogue. Usage: npm run conformance [-- <directory>] (default: conformance/).
// With "-" as the directory the files are printed to stdout instead.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { conformanceFiles } from "../build/node/p3109.js";

const dir = process.argv[2] ?? "conformance";
const files = conformanceFiles();
if (dir === "-") {
  for (const [name, text] of Object.entries(files)) process.stdout.write(`# ---- ${name}\n${text}\n`);
} else {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, name), text);
    console.log(`wrote ${resolve(dir, name)}`);
  }
}
