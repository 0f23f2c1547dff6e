import { readFileSync, statSync } from "node:fs";
import { usageError } from "./exit-codes.ts";

/** Reads a text file, turning a missing, unreadable or directory path into a usage error that names it. */
export function readTextFile(path: string, what: string): string {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    throw usageError(`${what} '${path}' ${describeFsError(e)}; check the path`);
  }
  if (isDir) throw usageError(`${what} '${path}' is a directory; give a file`);
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw usageError(`${what} '${path}' cannot be read: ${describeFsError(e)}`);
  }
}

/** A short phrase for a file-system error ("does not exist", "is not readable (permission denied)"). */
export function describeFsError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return "does not exist";
  if (code === "EACCES" || code === "EPERM") return "is not readable (permission denied)";
  if (code === "ENOTDIR") return "does not exist (a part of the path is not a directory)";
  return e instanceof Error ? `cannot be read (${e.message})` : "cannot be read";
}
