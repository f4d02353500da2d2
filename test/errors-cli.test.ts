// CLI failures the operating system causes: a full disk (standard output to /dev/full; a file write cut off by the
// file-size limit), an output directory without write permission, and a read-only input, which must suffice. Each
// failure is one line on stderr with exit code 1 and leaves neither output nor temporary file behind.
import { type SpawnOptions, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SafetensorsReader, SafetensorsWriter } from "../src/io/index.js";
import { bundleCli } from "./cli-bundle.js";

const dir = mkdtempSync(join(tmpdir(), "minifloat-errors-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (...parts: string[]) => join(dir, ...parts);
const cliPath = at("cli.mjs");
const input = at("in.safetensors");
/** Root ignores permission bits: the permission cases then run the CLI as user nobody. */
const asUser: SpawnOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

function run(args: string[], options: SpawnOptions = {}): Promise<{ code: number | null; err: string; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(args[0]!, args.slice(1), { stdio: ["ignore", "pipe", "pipe"], ...options });
    let err = "";
    let out = "";
    child.stderr!.on("data", (d: Buffer) => (err += d));
    child.stdout?.on("data", (d: Buffer) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, err, out }));
  });
}

/**
 * Runs the CLI with a fresh tmpfs (mount options `options`) at `mountPoint`, in a private user and mount namespace
 * (no privileges needed, nothing stays mounted), then lists what the command left in that file system.
 */
function runOnTmpfs(mountPoint: string, options: string, cliArgs: string[]): Promise<{ code: number | null; err: string; out: string }> {
  const script = 'mount -t tmpfs -o "$1" tmpfs "$0" || exit 99; shift; "$@"; rc=$?; ls -A "$0"; exit $rc';
  return run(["unshare", "-rm", "sh", "-c", script, mountPoint, options, process.execPath, cliPath, ...cliArgs]);
}

beforeAll(async () => {
  chmodSync(dir, 0o755);
  await bundleCli(cliPath);
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

  it("standard output and error closed early (`… 2>&1 | head -1`): the conversion still completes its file", async () => {
    mkdirSync(at("piped"));
    // Several tensors: a progress line each, written after the reader has gone.
    const several = at("several.safetensors");
    const names = ["a", "b", "c", "d", "e", "f"];
    const w = await SafetensorsWriter.create(
      several,
      names.map((name) => ({ name, dtype: "F32", shape: [512, 512] })),
    );
    for (const _ of names) await w.writeValues(new Float32Array(512 * 512).map((_, i) => Math.cos(i)));
    await w.commit();
    const out = at("piped", "out.safetensors");
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [cliPath, "quantize", several, "--to", "float8_e4m3fn", "-o", out], { stdio: ["ignore", "pipe", "pipe"] });
      // The reader goes away at the first byte, as head -1 does after its line.
      const close = () => {
        child.stdout!.destroy();
        child.stderr!.destroy();
      };
      child.stdout!.once("data", close);
      child.stderr!.once("data", close);
      child.on("error", reject);
      child.on("close", resolve);
    });
    expect(code).toBe(0);
    expect(readdirSync(at("piped"))).toEqual(["out.safetensors"]);
    const r = await SafetensorsReader.open(out);
    expect(r.tensors.map((t) => t.name)).toEqual(names);
    await r.close();
  });

  it("a file write that fails midway (file-size limit, EFBIG): one line, no output, no temporary file", async () => {
    mkdirSync(at("limited"));
    const out = at("limited", "out.safetensors");
    // sh ignores SIGXFSZ for node, so an over-limit write fails with EFBIG like a full disk fails with ENOSPC.
    const r = await run([
      "sh",
      "-c",
      'trap "" XFSZ; ulimit -f 16; exec "$0" "$@"',
      process.execPath,
      cliPath,
      "quantize",
      input,
      "--to",
      "float8_e4m3fn",
      "-o",
      out,
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`minifloat quantize: ${out}: file too large (file-size limit reached)\n`);
    expect(readdirSync(at("limited"))).toEqual([]);
  });

  it("an output directory without write permission: one line naming the path, exit 1", async () => {
    mkdirSync(at("locked"), { mode: 0o555 });
    chmodSync(at("locked"), 0o555);
    const out = at("locked", "out.safetensors");
    const r = await run([process.execPath, cliPath, "quantize", input, "--to", "float8_e4m3fn", "-o", out], asUser);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`minifloat quantize: ${out}: permission denied\n`);
    expect(readdirSync(at("locked"))).toEqual([]);
  });

  it("an output on a full file system (ENOSPC): one line naming the output, exit 1, nothing left", async () => {
    mkdirSync(at("full"));
    const out = at("full", "out.safetensors");
    const r = await runOnTmpfs(at("full"), "size=16k", ["quantize", input, "--to", "float8_e4m3fn", "-o", out]);
    expect(r).toEqual({ code: 1, err: `minifloat quantize: ${out}: no space left on the device\n`, out: expect.any(String) });
    expect(r.out.trim().split("\n").at(-1)).not.toMatch(/safetensors/);
  });

  it("an output on a read-only file system (EROFS): one line naming the output, exit 1", async () => {
    mkdirSync(at("ro"));
    const out = at("ro", "out.safetensors");
    const r = await runOnTmpfs(at("ro"), "ro", ["quantize", input, "--to", "float8_e4m3fn", "-o", out]);
    expect(r).toEqual({ code: 1, err: `minifloat quantize: ${out}: read-only file system\n`, out: "" });
  });

  it("an output under a path whose parent is a file (ENOTDIR), and an input that is a directory or missing", async () => {
    const out = join(input, "out.safetensors");
    const under = await run([process.execPath, cliPath, "quantize", input, "--to", "float8_e4m3fn", "-o", out]);
    expect(under).toEqual({ code: 1, err: `minifloat quantize: ${out}: a component of the path is not a directory\n`, out: "" });
    const empty = at("empty");
    mkdirSync(empty);
    const folder = await run([process.execPath, cliPath, "inspect", empty]);
    expect(folder).toEqual({
      code: 1,
      err: `minifloat inspect: ${empty}: has no model.safetensors.index.json and no .safetensors file; allowed: a model directory or a .safetensors/.gguf file\n`,
      out: "",
    });
    const missing = await run([process.execPath, cliPath, "dequantize", at("nope.safetensors"), "--to", "f32", "-o", at("nope-out.safetensors")]);
    expect(missing).toEqual({ code: 1, err: `minifloat dequantize: ${at("nope.safetensors")}: not found\n`, out: "" });
  });

  it("conformance --declarations on a path that cannot be created fails at once instead of spinning", async () => {
    const r = await run([process.execPath, cliPath, "conformance", "--declarations", "/proc/minifloat-test/declarations"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("minifloat conformance: /proc/minifloat-test/declarations: cannot create directory /proc/minifloat-test: not found\n");
    const file = await run([process.execPath, cliPath, "conformance", "--declarations", join(input, "sub")]);
    expect(file.code).toBe(1);
    expect(file.err).toBe(`minifloat conformance: ${join(input, "sub")}: a component of the path is not a directory\n`);
  });

  it("conformance --supports answers a usage error for a malformed signature, not 'not supported'", async () => {
    const malformed = await run([process.execPath, cliPath, "conformance", "--supports", "hello world"]);
    expect(malformed.code).toBe(2);
    expect(malformed.err).toMatch(/^minifloat conformance: --supports: got "hello world"; allowed: a signature Op<formats…/);
    const unknown = await run([process.execPath, cliPath, "conformance", "--supports", "Add<Binary8p3se, float99, binary32>"]);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toMatch(/^not supported: Add<Binary8p3se, float99, binary32> \(.*float99/);
  });

  it("opens the input read-only: a file its user cannot write converts, unchanged", async () => {
    mkdirSync(at("open"));
    chmodSync(at("open"), 0o777);
    const before = readFileSync(input);
    const out = at("open", "out.safetensors");
    const r = await run([process.execPath, cliPath, "quantize", input, "--to", "float8_e4m3fn", "-o", out], asUser);
    expect(r).toEqual({ code: 0, err: expect.any(String), out: expect.any(String) });
    expect(existsSync(out)).toBe(true);
    expect(Buffer.compare(readFileSync(input), before)).toBe(0);
  });
});
