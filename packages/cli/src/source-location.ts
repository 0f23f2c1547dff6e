/**
 * Where in a model file an error arose, for messages: the line and column, and the source line.
 * A syntax error carries them in esbuild's message (`FILE:LINE:COLUMN: ERROR: text`, the column
 * 0-based); anything thrown while the file runs carries them in its stack, whose frames tsx maps
 * back to the TypeScript source (1-based). The innermost frame in the model file is the line the
 * user wrote: a library call's own frames lie further in.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** A position in a model file, and the text of its line. */
export interface SourceLocation {
  readonly line: number;
  readonly column: number;
  /** The source line, trimmed (shortened when long), or "" when the file cannot be read. */
  readonly text: string;
}

/** The location of `e` in the model file at `modelPath`, or null when nothing points into it. */
export function locateInModel(e: unknown, modelPath: string): SourceLocation | null {
  if (!(e instanceof Error)) return null;
  const abs = resolve(modelPath);
  const at = syntaxErrorAt(e, abs) ?? stackFrameAt(e, abs);
  if (at === null) return null;
  return { ...at, text: sourceLine(abs, at.line) };
}

/** The message of a syntax error as esbuild gives it (on the line after "Transform failed with 1 error:"), or null. */
export function syntaxErrorText(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  const m = /:\d+:\d+: ERROR: (.+)/.exec(e.message);
  return m === null ? null : m[1]!.trim();
}

/**
 * A message about the model file at `modelPath`, placed where `e` arose when its location is
 * known: "model file 'P', line L, column C: MESSAGE — at: SOURCE LINE".
 */
export function inModelFile(modelPath: string, e: unknown, message: string): string {
  const loc = locateInModel(e, modelPath);
  if (loc === null) return `model file '${modelPath}': ${message}`;
  return `model file '${modelPath}', line ${loc.line}, column ${loc.column}: ${message}${loc.text === "" ? "" : ` — at: ${loc.text}`}`;
}

function syntaxErrorAt(e: Error, abs: string): { line: number; column: number } | null {
  for (const line of e.message.split("\n")) {
    const m = /^(.*):(\d+):(\d+): ERROR: /.exec(line.trim());
    if (m !== null && resolve(m[1]!) === abs) return { line: Number(m[2]), column: Number(m[3]) + 1 };
  }
  return null;
}

function stackFrameAt(e: Error, abs: string): { line: number; column: number } | null {
  const stack = typeof e.stack === "string" ? e.stack : "";
  for (const name of [abs, pathToFileURL(abs).href]) {
    const m = new RegExp(`(?:^|[\\s(])${escapeRegExp(name)}:(\\d+):(\\d+)`, "m").exec(stack);
    if (m !== null) return { line: Number(m[1]), column: Number(m[2]) };
  }
  return null;
}

function sourceLine(abs: string, line: number): string {
  let text: string;
  try {
    text = readFileSync(abs, "utf8").split(/\r?\n/)[line - 1]?.trim() ?? "";
  } catch {
    return "";
  }
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
