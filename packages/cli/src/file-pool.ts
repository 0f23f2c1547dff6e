/**
 * Text files written through a bounded number of open file descriptors. `ppl sample --chains
 * 2000` writes 2000 CSV files at once; holding one descriptor each runs into the process's limit
 * on open files (often 1024) and fails with EMFILE part-way. Here the first files to be opened keep
 * their descriptor while the pool has room; the others are opened for each write (in append mode)
 * and closed again. Chains write in turn, so files that keep their descriptor always hit, and only
 * the files beyond the bound pay an open and a close per row. Every write is still synchronous
 * and unbuffered, so a killed run keeps every row written before it. A write the disk refuses
 * (ENOSPC, EIO) in the middle of a row is taken back (the file truncated to where the row began)
 * and thrown as a WriteFailure naming the file, so that every file ends at its last complete row.
 *
 * Test hook: PPL_TEST_DISK_FULL_AFTER=<bytes> makes each file's writes fail with ENOSPC once it
 * would grow past that size, after writing the part that fits (as a full disk does).
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import type { TextSink } from "@ppl/ppl";
import { isWriteFailure, WriteFailure } from "./write-failure.ts";

/** The most descriptors a pool keeps open. */
export const MAX_POOL_FILES = 256;

/**
 * How many descriptors a pool keeps open by default: a quarter of the process's limit on open
 * files (so 256 under the usual 1024), leaving the rest to everything else the process opens.
 */
export function defaultPoolSize(limit = openFileLimit()): number {
  return Math.max(1, Math.min(MAX_POOL_FILES, Math.floor(limit / 4)));
}

/** The process's soft limit on open files (from /proc on Linux; 1024, the usual one, where it cannot be read). */
export function openFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    if (m !== null) return m[1] === "unlimited" ? Number.MAX_SAFE_INTEGER : Number(m[1]);
  } catch {
    // not Linux
  }
  return 1024;
}

/** A set of files written through at most `limit` open descriptors (fewer when the system refuses more). */
export class FilePool {
  private readonly kept = new Map<string, number>();
  // Each file's size: where its next row begins, and where a row that fails is cut back to.
  private readonly sizes = new Map<string, number>();
  private limit: number;
  private readonly diskFullAfter: number;

  constructor(limit = defaultPoolSize(), env: NodeJS.ProcessEnv = process.env) {
    this.limit = Math.max(1, Math.floor(limit));
    const full = Number(env["PPL_TEST_DISK_FULL_AFTER"] ?? NaN);
    this.diskFullAfter = Number.isFinite(full) && full >= 0 ? full : Infinity;
  }

  /** How many files hold a descriptor now. */
  get openCount(): number {
    return this.kept.size;
  }

  /** Creates (or truncates; with `append`, keeps) `path` and returns a sink that writes to it through the pool. */
  sink(path: string, append = false): TextSink {
    const fd = this.open(path, append ? "a" : "w");
    this.sizes.set(path, append ? fstatSync(fd).size : 0);
    if (this.kept.size < this.limit) this.kept.set(path, fd);
    else closeSync(fd);
    let open = true;
    return {
      write: (chunk: string): void => {
        if (!open) throw new Error(`cannot write to ${path}: the file is already closed`);
        this.write(path, chunk);
      },
      close: (): void => {
        if (!open) return;
        open = false;
        this.close(path);
      },
    };
  }

  private write(path: string, chunk: string): void {
    const fd = this.kept.get(path);
    if (fd !== undefined) return this.writeAll(path, fd, chunk);
    const once = this.open(path, "a");
    try {
      this.writeAll(path, once, chunk);
    } finally {
      closeSync(once);
    }
  }

  // Writes the whole chunk (a short write goes on where it stopped); on a failure, cuts the file
  // back to where the chunk began and throws a WriteFailure naming the file.
  private writeAll(path: string, fd: number, chunk: string): void {
    const bytes = Buffer.from(chunk, "utf8");
    const start = this.sizes.get(path) ?? 0;
    let done = 0;
    try {
      while (done < bytes.length) {
        const room = this.diskFullAfter - (start + done);
        if (room < bytes.length - done) {
          if (room > 0) writeSync(fd, bytes, done, room, start + done);
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write" });
        }
        // At the file's size, not the descriptor's offset: after a row was cut back, the next write
        // (the footer, as the files close) follows the last complete row with no gap.
        done += writeSync(fd, bytes, done, bytes.length - done, start + done);
      }
    } catch (e) {
      try {
        ftruncateSync(fd, start);
      } catch {
        // The error that stopped the write is the one to report.
      }
      throw isWriteFailure(e) ? new WriteFailure(path, (e as { code: string }).code, e) : e;
    }
    this.sizes.set(path, start + bytes.length);
  }

  // Flushed to disk on close, as a file sink does, whether or not the file kept its descriptor.
  private close(path: string): void {
    const kept = this.kept.get(path);
    const fd = kept ?? this.open(path, "a");
    this.kept.delete(path);
    this.sizes.delete(path);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  // Opens a file; where the system's limit is lower than the pool's, a kept descriptor is given
  // up (its file is then opened per write) and the pool's bound shrinks to what the system allows.
  private open(path: string, flags: "w" | "a"): number {
    for (;;) {
      try {
        return openSync(path, flags);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        const victim = this.kept.keys().next();
        if ((code !== "EMFILE" && code !== "ENFILE") || victim.done === true) throw e;
        closeSync(this.kept.get(victim.value)!);
        this.kept.delete(victim.value);
        this.limit = Math.max(1, this.kept.size);
      }
    }
  }
}
