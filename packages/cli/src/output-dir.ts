/**
 * The output directory of `ppl sample`, checked and created before the model is compiled, so that
 * a path that cannot hold the run fails in a second with a message, not after the sampling.
 *
 * Node's own `mkdir(…, { recursive: true })` loops forever where a file system answers ENOENT for
 * a directory whose parent exists (under /proc, for one), and any call can hang on a network mount
 * that stopped answering; so the directories are made one at a time, and every call has a time
 * bound.
 */
import { statSync, unlinkSync, type Stats } from "node:fs";
import { mkdir, open, stat, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { CliError, usageError } from "./exit-codes.ts";

/** How long creating and probing the output directory may take before it counts as unreachable. */
export const OUTPUT_TIMEOUT_MS = 10_000;

let abandoned = 0;

/** How many file-system calls were given up on as hung; they keep the process alive, so the entry point exits explicitly. */
export function abandonedCalls(): number {
  return abandoned;
}

/**
 * `p`, or a usage error saying `what` did not answer within `ms` milliseconds. The call itself
 * cannot be cancelled; it is counted as abandoned.
 */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandoned++;
      reject(usageError(`${what} did not answer within ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`} (a network file system that stopped responding?); choose another with --output`));
    }, ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Creates the output directory (and its parents) where needed, checks that files can be written
 * in it and that the run's file names (chain-1.csv … chain-C.csv, summary.json) are free or
 * regular files, and removes an earlier run's summary.json. Returns the absolute path.
 */
export async function prepareOutputDir(path: string, chains: number | { readonly first: number; readonly count: number }, timeoutMs = OUTPUT_TIMEOUT_MS): Promise<string> {
  // A chain group (`--first-chain K`) writes chain-(K+1).csv … chain-(K+count).csv.
  const { first, count } = typeof chains === "number" ? { first: 0, count: chains } : chains;
  if (path.trim() === "") throw usageError("--output is empty; give a directory for the CSV files (default: output)");
  const abs = resolve(path);
  const deadline = Date.now() + timeoutMs;
  const bounded = <T>(p: Promise<T>, what: string): Promise<T> => withDeadline(p, Math.max(0, deadline - Date.now()), what);
  const cannotCreate = (why: string) => usageError(`cannot create the output directory '${path}': ${why}; choose another with --output`);

  // The nearest existing ancestor, then each missing directory below it in turn.
  const missing: string[] = [];
  for (let p = abs; ; p = dirname(p)) {
    const st = await bounded(statOrNull(p), `the file system at '${p}'`).catch((e: unknown) => {
      throw isCliError(e) ? e : cannotCreate(createFailure(e));
    });
    if (st !== null) {
      if (!st.isDirectory()) throw cannotCreate(p === abs ? "it exists and is not a directory" : `'${p}' is not a directory`);
      break;
    }
    missing.push(p);
    if (dirname(p) === p) break;
  }
  for (const d of missing.reverse()) {
    try {
      await bounded(mkdir(d), `creating '${d}'`);
    } catch (e) {
      if (isCliError(e)) throw e;
      // Made meanwhile by another process: as good as made here.
      if ((e as NodeJS.ErrnoException).code === "EEXIST" && (await statOrNull(d).catch(() => null))?.isDirectory() === true) continue;
      throw cannotCreate(createFailure(e));
    }
  }

  // A probe file: permission, a read-only mount or a full disk show here, not at the first row.
  const probe = join(abs, `.ppl-probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  try {
    const fh = await bounded(open(probe, "wx"), `writing into '${path}'`);
    await fh.close();
    await unlink(probe);
  } catch (e) {
    if (isCliError(e)) throw e;
    throw usageError(`cannot write into the output directory '${path}': ${createFailure(e)}; choose another with --output`);
  }

  for (const name of [...Array.from({ length: count }, (_, c) => `chain-${first + c + 1}.csv`), "summary.json"]) {
    let st: Stats;
    try {
      st = statSync(join(abs, name));
    } catch {
      continue;
    }
    if (!st.isFile()) {
      throw usageError(`'${join(path, name)}' exists and is ${kindOf(st)}, where the run writes a file; remove it or choose another --output`);
    }
  }
  // An earlier run's summary would sit next to this run's files until this one finishes, or for
  // good if this one is stopped before it writes its own.
  try {
    unlinkSync(join(abs, "summary.json"));
  } catch {
    // none there
  }
  return abs;
}

async function statOrNull(p: string): Promise<Stats | null> {
  try {
    return await stat(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

function isCliError(e: unknown): e is CliError {
  return e instanceof CliError;
}

// What went wrong, in words, for the errors that creating a directory or a file can give.
function createFailure(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "the file system is read-only";
    case "ENOSPC":
    case "EDQUOT":
      return "no space left (disk or quota full)";
    case "ENOTDIR":
      return "a part of the path is not a directory";
    case "ENAMETOOLONG":
      return "the path is too long";
    case "ENOENT":
      return "the file system there does not allow creating it";
    case "ELOOP":
      return "the path has a loop of symbolic links";
    default:
      return e instanceof Error ? e.message.split("\n")[0]! : String(e);
  }
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a named pipe (FIFO)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a regular file";
}
