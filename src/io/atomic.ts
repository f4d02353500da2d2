// Atomic file creation: write a temporary file next to the target, then move it into place, so a reader never
// sees a partial file and an interrupted process leaves nothing behind.
import { existsSync, realpathSync, rmSync, statSync } from "node:fs";
import { link, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { ArgumentTypeError } from "../errors.js";
import { IoError } from "./errors.js";
import { fsError, fsWords } from "./fs-errors.js";

/** Temporary files (and directories) of this process not yet moved into place or discarded (removed by `abortPendingWrites`). */
export const pending = new Set<string>();

/**
 * Removes every temporary file of this process's unfinished writes, synchronously: for signal handlers, which
 * must leave no partial output behind before the process exits.
 */
export function abortPendingWrites(): void {
  for (const path of pending) rmSync(path, { recursive: true, force: true });
  pending.clear();
}

/**
 * The absolute path of an output after the checks every writer makes: it is none of the `protect`ed inputs, and it
 * does not exist unless `force`.
 */
export function outputTarget(path: string, options: { readonly force?: boolean; readonly protect?: readonly string[] }): string {
  const target = resolve(path);
  for (const p of options.protect ?? []) {
    if (existsSync(p) && existsSync(target) && realpathSync(p) === realpathSync(target)) {
      throw new IoError(path, "is also an input; allowed: a different output path (inputs are never modified)");
    }
  }
  if (!options.force && existsSync(target)) throw new IoError(path, "exists; allowed: a new path, or --force to replace it");
  // Before any work: the final rename could not replace a directory by the file.
  if (existsSync(target) && statSync(target).isDirectory()) {
    throw new IoError(path, "is a directory; allowed: a file path (--force replaces a file, never a directory)");
  }
  return target;
}

/**
 * A writer's `fsync` option (default false): flush the file to the disk before it is moved into place. Without it
 * the output is atomic for readers and after a crash of the process, not after a power loss (as cp, rsync,
 * safetensors' save_file): durability costs the disk's time for the whole file.
 */
export function fsyncOption(options: { readonly fsync?: boolean }): boolean {
  const { fsync } = options;
  if (fsync !== undefined && typeof fsync !== "boolean") throw new ArgumentTypeError("options.fsync", `is ${typeof fsync}; allowed: true or false`);
  return fsync ?? false;
}

let made = 0;

/**
 * A fresh temporary path in the target's directory (same file system, so rename and link are atomic): the process
 * id, a counter and 32 random bits. Every caller creates it exclusively, so a collision fails instead of clobbering,
 * and uniqueness needs no cryptographic randomness (node:crypto alone took ≈ 9 ms of every command's start-up).
 */
export function temporaryPath(target: string): string {
  const tag = `${(made++).toString(36)}-${Math.floor(Math.random() * 2 ** 32).toString(16)}`;
  return join(dirname(target), `.${basename(target)}.${process.pid}.${tag}.tmp`);
}

/**
 * Moves a finished file into place unless the path exists: link() fails atomically if the output appeared
 * meanwhile; file systems without hard links fall back to a check followed by rename().
 */
export async function placeWithoutClobbering(tempPath: string, path: string): Promise<void> {
  try {
    await link(tempPath, path);
  } catch (e) {
    if (!["EPERM", "ENOTSUP", "ENOSYS", "EXDEV"].includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
    if (existsSync(path)) throw Object.assign(new Error("exists"), { code: "EEXIST" });
    await rename(tempPath, path);
    return;
  }
  await rm(tempPath);
}

/**
 * Creates a directory and its missing parents one level at a time. (Node's recursive mkdir can spin forever on
 * some paths, e.g. under /proc; a loop over the path's components cannot.)
 */
export async function makeDirectory(path: string): Promise<void> {
  const target = resolve(path);
  const missing: string[] = [];
  for (let p = target; ; p = dirname(p)) {
    try {
      if ((await stat(p)).isDirectory()) break;
      throw new IoError(path, `${p === target ? "is" : `${p} is`} not a directory; allowed: a directory path`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" || dirname(p) === p) throw fsError(e, path);
      missing.push(p);
    }
  }
  for (const p of missing.reverse()) {
    try {
      await mkdir(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") continue;
      const words = fsWords(e);
      throw words === undefined ? e : new IoError(path, `cannot create directory ${p}: ${words}`);
    }
  }
}

/** Writes a whole (small) file atomically; refuses an existing file unless `force`. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, force = false): Promise<void> {
  const target = outputTarget(path, { force });
  const tempPath = temporaryPath(target);
  pending.add(tempPath);
  try {
    await writeFile(tempPath, data, { flag: "wx" });
    if (force) await rename(tempPath, target);
    else await placeWithoutClobbering(tempPath, target);
  } catch (e) {
    throw fsError(e, path);
  } finally {
    await rm(tempPath, { force: true });
    pending.delete(tempPath);
  }
}
