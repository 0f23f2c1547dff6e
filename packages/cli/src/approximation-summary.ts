/**
 * `ppl summary` of an approximation's file: the point estimate of optimize.csv, or the mean, sd,
 * MAD and quantiles of the independent draws of laplace.csv, variational.csv and pathfinder.csv,
 * without MCSE, ESS and R-hat (which measure the error of a Markov chain; these draws have none
 * of that kind, and their error against the posterior is the approximation's, which no statistic
 * of the draws alone measures).
 */
import { mad, mean, quantile, sd } from "@ppl/ppl/diagnostics";
import type { ApproximationMethod } from "./approximation-files.ts";
import type { CommandIO } from "./io.ts";
import type { Run } from "./read-runs.ts";
import { formatStat } from "./summary-text.ts";

/** Prints the summary of an approximation's draws (a table, or JSON keyed by parameter name). */
export function printApproximationSummary(run: Run, method: ApproximationMethod, opts: { readonly json: boolean; readonly percentiles?: readonly number[] }, io: CommandIO): void {
  const names = Object.keys(run.chains.parameters);
  const pooled = (name: string): Float64Array => {
    const chains = run.chains.parameters[name]!;
    const out = new Float64Array(chains.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chains) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  };
  if (method === "optimize") {
    const rows = names.map((n) => ({ name: n, estimate: pooled(n)[0]! }));
    if (opts.json) io.stdout.write(JSON.stringify(Object.fromEntries(rows.map((r) => [r.name, { estimate: r.estimate }])), null, 2) + "\n");
    else io.stdout.write(table(["", "estimate"], rows.map((r) => [r.name, formatStat("mean", r.estimate)])) + `\n${noteFor(method, run)}\n`);
    return;
  }
  const percentiles = opts.percentiles ?? [5, 50, 95];
  const stats = names.map((name) => {
    const x = pooled(name);
    return { name, mean: mean(x), sd: sd(x), mad: mad(x), q: percentiles.map((p) => quantile(x, p / 100)) };
  });
  if (opts.json) {
    const entry = (s: (typeof stats)[number]) => ({ mean: s.mean, sd: s.sd, mad: s.mad, ...Object.fromEntries(percentiles.map((p, i) => [`q${p}`, s.q[i]!])) });
    io.stdout.write(JSON.stringify(Object.fromEntries(stats.map((s) => [s.name, entry(s)])), null, 2) + "\n");
    return;
  }
  const header = ["", "mean", "sd", "MAD", ...percentiles.map((p) => `${p}%`)];
  io.stdout.write(table(header, stats.map((s) => [s.name, ...[s.mean, s.sd, s.mad, ...s.q].map((v) => formatStat("mean", v))])) + `\n${noteFor(method, run)}\n`);
}

// Right-aligned columns after a left-aligned first one, as the MCMC table.
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, j) => Math.max(...all.map((r) => r[j]!.length)));
  return all.map((r) => r.map((c, j) => (j === 0 ? c.padEnd(widths[j]!) : c.padStart(widths[j]!))).join("  ").trimEnd()).join("\n");
}

// What the table is, and what it leaves out.
function noteFor(method: ApproximationMethod, run: Run): string {
  const n = run.chains.drawsPerChain * run.files.length;
  const algorithm = run.files[0]!.config["algorithm"];
  const what: Record<ApproximationMethod, string> = {
    optimize: `The posterior mode found by ${algorithm ?? "an optimizer"} (${run.files[0]!.config["jacobian"] === "1" ? "with" : "without"} the Jacobian): a point estimate, not draws, so no sd, quantiles, MCSE, ESS or R-hat.`,
    laplace: `${n} independent draws from the normal approximation at the mode (Laplace)`,
    variational: `${n} independent draws from the ${algorithm !== undefined ? `${algorithm} ` : ""}ADVI approximation (its mean, the file's first row, is not among them)`,
    pathfinder: `${n} draws from Pathfinder's approximation${run.files[0]!.config["psis_resample"] === "1" ? ", resampled by Pareto-smoothed importance weights" : ""}`,
  };
  if (method === "optimize") return what.optimize;
  return `${what[method]}: approximate draws, not MCMC, so no MCSE, ESS or R-hat (they measure a Markov chain's error); how far the approximation is from the posterior is not measured by these statistics.`;
}
