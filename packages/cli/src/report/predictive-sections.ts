/**
 * The report's sections on the observations: the posterior predictive check of each observe term
 * (densities or bars of the observed data against replications, and intervals by observation for
 * a few observations), and leave-one-out diagnostics when the run has log_lik columns (LOO-PIT of
 * each term with predictive draws, Pareto k of every observation).
 */
import { loo, looPit } from "@ppl/ppl";
import type { ObservedFamily, Observations } from "./observations.ts";
import { panel } from "./panel.ts";
import { paretoKSvg } from "./svg-pareto-k.ts";
import { MAX_BAR_VALUES, ppcBarsSvg } from "./svg-ppc-bars.ts";
import { PPC_DRAWS, ppcDensitySvg } from "./svg-ppc-density.ts";
import { MAX_INTERVAL_OBSERVATIONS, ppcIntervalsSvg } from "./svg-ppc-intervals.ts";
import { looPitSvg } from "./svg-loo-pit.ts";
import { escapeXml } from "./svg.ts";
import { firstLine } from "../load-model.ts";

const note = (text: string): string => `<p class="note">${escapeXml(text)}</p>`;

/** The "Posterior predictive check" section (of a prior run: "Prior predictive check"), or "" for a model without observe terms. */
export function ppcSection(obs: Observations, prior = false): string {
  if (obs.families.length === 0) return "";
  // A prior run's replications are draws of the prior predictive distribution.
  const parts = [`<h2 id="ppc">${prior ? "Prior" : "Posterior"} predictive check</h2>`, ...obs.notes.map(note)];
  for (const f of obs.families) parts.push(familyPpc(f));
  return parts.join("\n");
}

function familyPpc(f: ObservedFamily): string {
  if (f.yRep === null) return note(`${f.name}: no predictive draws ${f.name}_rep; sample with --predictive (or run ppl generate --predictive) for the predictive check.`);
  const out: string[] = [];
  if (f.observed === null) out.push(note(`${f.name}: the observed values are not known here, so only the predictive intervals are drawn.`));
  else if (f.observed.length === f.yRep.length) {
    const range = f.integer ? f.observed.reduce((a, v) => Math.max(a, v), -Infinity) - f.observed.reduce((a, v) => Math.min(a, v), Infinity) + 1 : Infinity;
    out.push(
      range <= MAX_BAR_VALUES
        ? note(`${f.name} (counts): bars of the observed values, with the median and 90% interval of each value's count over replicated data sets.`) + panel("ppc-bars", ppcBarsSvg(f.name, f.observed, f.yRep))
        : note(`${f.name}: density of the observed values (bold) over the densities of ${PPC_DRAWS} replicated data sets, each every ${f.name}_rep at one posterior draw.`) + panel("ppc-density", ppcDensitySvg(f.name, f.observed, f.yRep)),
    );
  }
  if (f.yRep.length <= MAX_INTERVAL_OBSERVATIONS) {
    out.push(note(`${f.name}: median, 50% and 90% intervals of each observation's predictive draws${f.observed ? ", with the observed value as a red point" : ""}.`));
    out.push(panel("ppc-intervals", ppcIntervalsSvg(f.name, f.observed !== null && f.observed.length === f.yRep.length ? f.observed : null, f.yRep)));
  } else out.push(note(`${f.name}: ${f.yRep.length} observations, too many for intervals by observation (at most ${MAX_INTERVAL_OBSERVATIONS}).`));
  return out.join("\n");
}

/** The "Leave-one-out" section (LOO-PIT and Pareto k), or "" for a run without log_lik columns. */
export function looSection(obs: Observations): string {
  const withLogLik = obs.families.filter((f) => f.logLik !== null);
  if (withLogLik.length === 0) return "";
  const parts = [`<h2 id="loo">Leave-one-out</h2>`];
  let rEff: Float64Array;
  try {
    const result = loo(withLogLik.flatMap((f) => f.logLik!));
    const k = result.pareto_k;
    rEff = result.r_eff;
    parts.push(note("Pareto k of each observation's PSIS weights (as ppl loo computes them), in the order of the log_lik columns: above 0.7 (dashed), that observation's leave-one-out estimate is unreliable."));
    parts.push(panel("pareto-k", paretoKSvg(k)));
  } catch (e) {
    return parts.concat(note(`No leave-one-out diagnostics: ${firstLine(e)}`)).join("\n");
  }
  let offset = 0;
  for (const f of withLogLik) {
    // This term's r_eff among loo's, which took the terms' entries in this order.
    const termREff = rEff.subarray(offset, (offset += f.logLik!.length));
    if (f.yRep === null || f.observed === null || !f.univariate || f.observed.length !== f.yRep.length || f.logLik!.length !== f.yRep.length) {
      parts.push(note(`${f.name}: LOO-PIT needs the observed values and the predictive draws ${f.name}_rep of a univariate observation (sample with --log-lik --predictive).`));
      continue;
    }
    const { pit } = looPit(f.logLik!, f.yRep, f.observed, { rEff: termREff });
    parts.push(note(`${f.name}: LOO-PIT, each observation's place in its leave-one-out predictive distribution (predictive draws weighted by PSIS${f.integer ? ", ties of counts randomized" : ""}); a calibrated model gives uniform values, an ECDF within the band.`));
    parts.push(panel("loo-pit", looPitSvg(f.name, pit)));
  }
  return parts.join("\n");
}
