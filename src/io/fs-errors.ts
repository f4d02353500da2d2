// File-system failures in words: one IoError naming the path the user gave (never an internal temporary file) and
// what went wrong, instead of a raw errno message.
import { IoError } from "./errors.js";

const WORDS: Readonly<Record<string, string>> = {
  ENOENT: "not found",
  EISDIR: "is a directory; allowed: a file",
  ENOTDIR: "a component of the path is not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EFBIG: "file too large (file-size limit reached)",
  EEXIST: "exists; allowed: a new path, or --force to replace it",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many levels of symbolic links",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  EIO: "input/output error",
  EBUSY: "resource busy",
  ETXTBSY: "file busy",
  EINVAL: "invalid path or argument for this file system",
};

/** What an errno error means, in words; undefined for other errors. */
export function fsWords(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof IoError || typeof code !== "string") return undefined;
  return WORDS[code] ?? `${code}: ${(error as Error).message}`;
}

/** An errno error rewritten as an IoError on `path` (what the user typed); anything else unchanged. */
export function fsError(error: unknown, path: string, role?: string): unknown {
  const words = fsWords(error);
  return words === undefined ? error : new IoError(role ? `${role} ${path}` : path, words);
}

/** Runs a file-system step and rewrites its errno error for `path`. */
export async function onPath<T>(path: string, step: () => Promise<T>, role?: string): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw fsError(e, path, role);
  }
}
