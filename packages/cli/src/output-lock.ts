/**
 * One writer per output directory: `ppl sample` holds DIR/.ppl.lock (its pid) while it writes, so
 * that a second run into the same directory is refused instead of interleaving rows in the same
 * chain files. A lock whose process is gone (a run killed with SIGKILL) is stale and taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { usageError } from "./exit-codes.ts";

/** The lock file's name in the output directory. */
export const LOCK_FILE = ".ppl.lock";

/** Takes `dir`'s lock for this process (released when it exits); `note` says when a stale lock was taken over. */
export function lockOutputDir(dir: string, note: (line: string) => void): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 2) throw e;
      const holder = lockHolder(path);
      if (holder !== null && holder !== process.pid && isAlive(holder)) {
        throw usageError(`the output directory '${dir}' is in use by another ppl run (pid ${holder}, lock file ${path}); wait for it to end, or choose another --output`);
      }
      if (holder !== process.pid) note(`took over the stale lock ${path} of a run that is no longer running (pid ${holder ?? "unreadable"})`);
      rmSync(path, { force: true });
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    const release = (): void => {
      process.removeListener("exit", release);
      if (lockHolder(path) === process.pid) rmSync(path, { force: true });
    };
    process.once("exit", release);
    return release;
  }
}

// The pid written in a lock file, or null when it cannot be read.
function lockHolder(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

// Signal 0 checks that a process exists; EPERM means it exists but belongs to another user.
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
