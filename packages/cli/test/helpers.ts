// Helpers for running `ppl` as a user would: a child process of the built CLI when the build is
// current, else of the CLI's sources under tsx (cli-entry.ts says which and why).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readStanCsv, type StanCsv } from "@ppl/ppl";
import { chooseCliEntry } from "./cli-entry.ts";

/** The repository root (the CLI runs from there, as `pnpm ppl` does). */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The CLI's entry point. */
export const MAIN = join(ROOT, "packages/cli/src/main.ts");
/** The bin launcher. */
export const LAUNCHER = join(ROOT, "packages/cli/bin/ppl.js");

const ENTRY = chooseCliEntry(ROOT);
// Said once a test file, so that a slow run from stale builds is not a mystery.
if (!ENTRY.built) process.stderr.write(`ppl tests: ${ENTRY.reason}\n`);
/**
 * Node's arguments that start `ppl` before the command's: `[LAUNCHER]` when every package's build
 * is current, else `["--import", "tsx", MAIN]` (PPL_TEST_CLI=built or =source chooses).
 */
export const CLI_NODE_ARGS: readonly string[] = ENTRY.nodeArgs;
/**
 * What model files written by tests into temporary directories import the ppl package as: its
 * name, as a user's model does; the CLI resolves it to its own copy (model-bundle.ts).
 */
export const PPL_INDEX = "@ppl/ppl";

/** What a finished command left behind. */
export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts `ppl ARGS` (node CLI_NODE_ARGS ARGS) without waiting; stdout and stderr are collected. */
export function startCli(args: readonly string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [...CLI_NODE_ARGS, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { child, done: collect(child) };
}

/** Runs `ppl ARGS` to the end. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/**
 * Runs the bin launcher (`node packages/cli/bin/ppl.js ARGS`, the built CLI a user runs: `pnpm
 * build` first) to the end, in `cwd` (the repository root by default).
 */
export function runLauncher(args: readonly string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [LAUNCHER, ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
  return collect(child);
}

function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A fresh temporary directory. */
export function tempDir(prefix = "ppl-cli-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Reads and parses one Stan CSV file. */
export function readCsv(path: string): StanCsv {
  return readStanCsv(readFileSync(path, "utf8"));
}

/** True when the text looks like it holds a stack trace. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+[:(]/m.test(text) || /node:internal/.test(text);
}
