// CLI failures the operating system causes: a full disk (standard output to /dev/full; a file write cut off by the
// file-size limit), an output directory without write permission, and a read-only input, which must suffice. Each
// failure is one line on stderr with exit code 1 and leaves neither output nor temporary file behind.
import { type SpawnOptions, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SafetensorsWriter } from "../src/io/index.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-errors-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (...parts: string[]) => join(dir, ...parts);
const cliPath = at("cli.mjs");
const input = at("in.safetensors");
/** Root ignores permission bits: the permission cases then run the CLI as user nobody. */
const asUser: SpawnOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

function run(args: string[], options: SpawnOptions = {}): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(args[0]!, args.slice(1), { stdio: ["ignore", "ignore", "pipe"], ...options });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, err }));
  });
}

beforeAll(async () => {
  chmodSync(dir, 0o755);
  const root = fileURLToPath(new URL("..", import.meta.url));
  await build({ entryPoints: [join(root, "src/cli/bin.ts")], bundle: true, format: "esm", platform: "node", target: "es2022", outfile: cliPath, logLevel: "error" });
  const w = await SafetensorsWriter.create(input, [{ name: "w", dtype: "F32", shape: [256, 256] }]);
  await w.writeValues(new Float32Array(65536).map((_, i) => Math.sin(i)));
  await w.commit();
  chmodSync(input, 0o444);
});

describe("CLI and the operating system", () => {
  it("standard output on a full disk (/dev/full): one line, exit 1", async () => {
    const full = openSync("/dev/full", "w");
    try {
      const r = await run([process.execPath, cliPath, "table", "Binary8p3se"], { stdio: ["ignore", full, "pipe"] });
      expect(r.code).toBe(1);
      expect(r.err).toBe("minifloat: cannot write to standard output: ENOSPC: no space left on device, write\n");
    } finally {
      closeSync(full);
    }
  });

  it("a file write that fails midway (file-size limit, EFBIG): one line, no output, no temporary file", async () => {
    mkdirSync(at("limited"));
    const out = at("limited", "out.safetensors");
    // sh ignores SIGXFSZ for node, so an over-limit write fails with EFBIG like a full disk fails with ENOSPC.
    const r = await run(["sh", "-c", 'trap "" XFSZ; ulimit -f 16; exec "$0" "$@"', process.execPath, cliPath, "quantize", input, "--to", "float8_e4m3fn", "-o", out]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("minifloat quantize: EFBIG: file too large, write\n");
    expect(readdirSync(at("limited"))).toEqual([]);
  });

  it("an output directory without write permission: one line naming the path, exit 1", async () => {
    mkdirSync(at("locked"), { mode: 0o555 });
    chmodSync(at("locked"), 0o555);
    const out = at("locked", "out.safetensors");
    const r = await run([process.execPath, cliPath, "quantize", input, "--to", "float8_e4m3fn", "-o", out], asUser);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^minifloat quantize: EACCES: permission denied, open '.*locked\/\.out\.safetensors\.\d+\.[0-9a-f]+\.tmp'\n$/);
    expect(readdirSync(at("locked"))).toEqual([]);
  });

  it("opens the input read-only: a file its user cannot write converts, unchanged", async () => {
    mkdirSync(at("open"));
    chmodSync(at("open"), 0o777);
    const before = readFileSync(input);
    const out = at("open", "out.safetensors");
    const r = await run([process.execPath, cliPath, "quantize", input, "--to", "float8_e4m3fn", "-o", out], asUser);
    expect(r).toEqual({ code: 0, err: expect.any(String) });
    expect(existsSync(out)).toBe(true);
    expect(Buffer.compare(readFileSync(input), before)).toBe(0);
  });
});
