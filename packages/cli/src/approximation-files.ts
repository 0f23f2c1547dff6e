/**
 * The Stan CSV files of the approximations (`ppl optimize`, `laplace`, `variational`,
 * `pathfinder`, or CmdStan's methods of those names), told apart from chains by the method their
 * header names: which of their rows are draws (variational.csv's first row is the approximation's
 * mean), what their leading columns are called in ArviZ, and one method per run read.
 */
import { usageError } from "./exit-codes.ts";

/** The approximation methods whose files `ppl summary` and `ppl export` read. */
export const APPROXIMATION_METHODS = ["optimize", "laplace", "variational", "pathfinder"] as const;

/** One of APPROXIMATION_METHODS. */
export type ApproximationMethod = (typeof APPROXIMATION_METHODS)[number];

/** The approximation a file holds (from its header's method), or undefined for MCMC chains. */
export function approximationMethod(csv: { readonly config: Readonly<Record<string, string>> }): ApproximationMethod | undefined {
  const m = csv.config["method"];
  return APPROXIMATION_METHODS.find((a) => a === m);
}

/** Leading rows of a file (by its header) that are not draws: variational.csv's first row, the approximation's mean (zeros in lp__, log_p__ and log_g__). */
export function setAside(config: Readonly<Record<string, string>>): number {
  return approximationMethod({ config }) === "variational" ? 1 : 0;
}

/** Refuses files of several methods read as one run (a directory holding optimize.csv and laplace.csv, say), naming the fix. */
export function checkOneMethod(paths: readonly string[], files: readonly { readonly config: Readonly<Record<string, string>> }[]): void {
  const methods = files.map((f) => approximationMethod(f) ?? "sample");
  const other = methods.findIndex((m) => m !== methods[0]);
  if (other < 0) return;
  throw usageError(
    `'${paths[0]}' holds ${describe(methods[0]!)} but '${paths[other]}' ${describe(methods[other]!)}: they are not one run; ` +
      `give one file (\`${paths[other]}\`) or a directory holding one method's output`,
  );
}

function describe(method: string): string {
  return method === "sample" ? "MCMC draws" : `the output of ${method}`;
}
