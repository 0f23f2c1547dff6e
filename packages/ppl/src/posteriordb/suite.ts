import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { posteriordbDirs } from "./reference.ts";
import { runPosterior, type PosteriorReport, type RunPosteriorOptions } from "./run-posterior.ts";

/**
 * The posterior folders present (folders holding a reference.json), sorted by name: those of `dir`,
 * or of every suite folder (the main one and the ODE one) when none is given.
 */
export function posteriorNames(dir?: string): string[] {
  if (dir === undefined) return [...new Set(posteriordbDirs().flatMap((d) => posteriorNames(d)))].sort();
  return readdirSync(dir)
    .filter((n) => {
      try {
        return statSync(join(dir, n, "reference.json")).isFile();
      } catch {
        return false;
      }
    })
    .sort();
}

/** Runs the named posteriors one after another (all of them when `names` is empty). */
export async function runSuite(
  names: readonly string[],
  opts: RunPosteriorOptions & { onReport?: (r: PosteriorReport) => void } = {},
): Promise<PosteriorReport[]> {
  const all = posteriorNames(opts.posteriordb);
  const chosen = names.length === 0 ? all : names.map((n) => resolveName(n, all));
  const reports: PosteriorReport[] = [];
  for (const name of chosen) {
    const r = await runPosterior(name, opts);
    opts.onReport?.(r);
    reports.push(r);
  }
  return reports;
}

/** A posterior's full name from itself or an unambiguous prefix ("garch" → "garch-garch11"). */
export function resolveName(name: string, all: readonly string[]): string {
  if (all.includes(name)) return name;
  const matches = all.filter((n) => n.startsWith(name));
  if (matches.length === 1) return matches[0]!;
  throw new Error(
    matches.length === 0 ? `no posterior '${name}' (have: ${all.join(", ")})` : `'${name}' is ambiguous: ${matches.join(", ")}`,
  );
}
