/**
 * The "Prior and posterior" section of `ppl report DIR --prior PRIORDIR`: for each parameter the
 * run shows that the prior run also has, the two densities on one axis.
 */
import { panel } from "./panel.ts";
import { escapeXml } from "./svg.ts";
import { priorPosteriorSvg } from "./svg-prior-posterior.ts";

/** Most parameters compared: past these the section outgrows the rest of the report. */
export const MAX_PRIOR_PANELS = 60;

const pooled = (chains: readonly ArrayLike<number>[]): Float64Array => Float64Array.from(chains.flatMap((c) => Array.from(c)));

/** The section's HTML: a panel per parameter of `names` with prior draws (the first MAX_PRIOR_PANELS), and a note on the others. */
export function priorSection(
  posterior: Readonly<Record<string, readonly ArrayLike<number>[]>>, prior: Readonly<Record<string, readonly ArrayLike<number>[]>>,
  names: readonly string[], logScale: ReadonlySet<string> = new Set(),
): string {
  const both = names.filter((n) => prior[n] !== undefined);
  const missing = names.filter((n) => prior[n] === undefined);
  const shown = both.slice(0, MAX_PRIOR_PANELS);
  const notes = [
    `Prior (dashed grey, from the prior run's draws) against posterior (blue) of each parameter: how far the data moved and narrowed it.`,
    ...(both.length > shown.length ? [`The first ${shown.length} of ${both.length} parameters are drawn; --variables chooses which.`] : []),
    ...(missing.length > 0 ? [`Not in the prior run: ${missing.slice(0, 8).join(", ")}${missing.length > 8 ? ", …" : ""}.`] : []),
  ];
  const panels = shown.map((n) => {
    // A log axis needs positive draws in both runs.
    const log = logScale.has(n) && pooled(prior[n]!).every((v) => v > 0);
    return panel("prior-posterior", priorPosteriorSvg(n, pooled(prior[n]!), pooled(posterior[n]!), log));
  });
  return `<h2 id="prior">Prior and posterior</h2>\n${notes.map((t) => `<p class="note">${escapeXml(t)}</p>`).join("\n")}\n<div class="priors">${panels.join("")}</div>`;
}
