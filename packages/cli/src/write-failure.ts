/**
 * A write that the disk refused (full, over quota, failing): the command stops with exit 4 and a
 * message naming the file and the cause, and every file it wrote ends at its last complete row
 * (file-pool.ts takes back a row written in part). Any command's error of that kind, wherever it
 * comes from (a CSV row, summary.json, the spill), is reported so by cli.ts.
 */
import { CliError, ExitCode } from "./exit-codes.ts";

// What each code means, in the user's terms.
const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EFBIG: "the file is larger than the file system allows",
  EIO: "the disk reported an input/output error",
};

/** A write to `path` that failed with an error of code `code` (the file ends at its last complete write). */
export class WriteFailure extends Error {
  override name = "WriteFailure";
  constructor(
    readonly path: string,
    readonly code: string,
    cause: unknown,
  ) {
    super(`${code}: cannot write '${path}'`, { cause });
  }
}

/** Whether `e` is a write the disk refused (ENOSPC, EDQUOT, EFBIG, EIO). */
export function isWriteFailure(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" && code in CAUSES;
}

/** The error `ppl` exits with (4) for a write the disk refused; null for any other error. */
export function writeFailureError(e: unknown): CliError | null {
  if (!isWriteFailure(e)) return null;
  const code = (e as { code: string }).code;
  const path = e instanceof WriteFailure ? e.path : (e as { path?: unknown }).path;
  const file = typeof path === "string" ? `'${path}'` : "a file";
  return new CliError(
    `cannot write ${file}: ${CAUSES[code]} (${code}); the files written so far end at their last complete row; free some space (or repair the disk) and run again, or write elsewhere with --output`,
    ExitCode.writeFailed,
    e,
  );
}
