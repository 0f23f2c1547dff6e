/**
 * Notes on Stan CSV files that a finished run would not have left: a last row cut mid-write, no
 * timing footer (the run was killed, or is still running), fewer draws than the header asks for
 * (a run stopped early). The draws are still read and summarized; the notes say what they are.
 */
import type { Run } from "./read-runs.ts";

/** One line per kind of problem, each naming the files it concerns, and one per CSV file skipped; none for a finished run. */
export function runNotes(run: Pick<Run, "paths" | "files"> & Partial<Pick<Run, "skipped">>): string[] {
  const cut: string[] = [];
  const noFooter: string[] = [];
  const short: string[] = [];
  run.files.forEach((f, i) => {
    const path = run.paths[i]!;
    if (f.truncated) cut.push(path);
    if (f.timing === undefined) {
      noFooter.push(path);
      return;
    }
    const asked = expectedDraws(f.config);
    const held = f.drawCount;
    if (asked !== null && held < asked) short.push(`${quote(path)} (${held} of ${asked})`);
  });
  const skipped = run.skipped ?? [];
  const notes = skipped.slice(0, 5).map((s) => `note: skipped '${s.path}': ${s.reason}`);
  if (skipped.length > 5) notes.push(`note: skipped ${skipped.length - 5} more CSV files that are not chains of the run`);
  if (cut.length > 0) notes.push(`note: the last row of ${list(cut)} was cut off mid-write and is left out`);
  if (noFooter.length > 0) {
    notes.push(`note: ${list(noFooter)} ${noFooter.length > 1 ? "have" : "has"} no timing footer: the run that wrote ${noFooter.length > 1 ? "them" : "it"} did not finish (it was killed, or is still running); the summary covers the draws written so far`);
  }
  if (short.length > 0) notes.push(`note: ${names(short)} ${short.length > 1 ? "hold" : "holds"} fewer draws than the header's num_samples (the run was stopped early)`);
  return notes;
}

// Draws a finished run writes: num_samples, thinned.
function expectedDraws(config: Readonly<Record<string, string>>): number | null {
  // A run with --target-ess stops when it meets the target: num_samples is its cap, not a promise.
  if (config["target_ess"] !== undefined) return null;
  const n = Number(config["num_samples"]);
  const thin = Number(config["thin"] ?? "1");
  if (!Number.isInteger(n) || n <= 0) return null;
  return Math.ceil(n / (Number.isInteger(thin) && thin > 0 ? thin : 1));
}

function quote(p: string): string {
  return `'${p}'`;
}

function list(paths: readonly string[]): string {
  return names(paths.map(quote));
}

// At most five names, so that 2000 chains make one readable line.
function names(items: readonly string[]): string {
  if (items.length <= 5) return items.join(", ");
  return `${items.slice(0, 5).join(", ")} and ${items.length - 5} more`;
}
