/**
 * The HTML report: one self-contained file (inline CSS and SVG, no scripts, fonts or network),
 * with the grouped warnings, the summary table, sampler diagnostics, a forest plot, ESS and MCSE
 * bars, energy and pair plots, and per parameter the density by chain beside the trace (as
 * ArviZ's plot_trace), a rank plot and the autocorrelation. Every plot is a `figure.panel`.
 */
import { quantile, THRESHOLDS, type Summary } from "@ppl/ppl";
import type { Run } from "../read-runs.ts";
import { samplerLines, summaryRows } from "../summary-text.ts";
import { autocorrSvg } from "./svg-autocorr.ts";
import { densitySvg } from "./svg-density.ts";
import { energySvg } from "./svg-energy.ts";
import { essSvg } from "./svg-ess.ts";
import { forestSvg } from "./svg-forest.ts";
import { mcseSvg } from "./svg-mcse.ts";
import { pairsSvg } from "./svg-pairs.ts";
import { rankSvg } from "./svg-rank.ts";
import { escapeXml } from "./svg.ts";
import { traceSvg } from "./svg-trace.ts";
import { groupWarnings } from "./warning-groups.ts";
import type { Observations } from "./observations.ts";
import { panel } from "./panel.ts";
import { looSection, ppcSection } from "./predictive-sections.ts";
import { priorSection } from "./prior-section.ts";

/** Options of the report. */
export interface ReportOptions {
  /** Parameters of the pair plot (default: the first six). */
  readonly pairs?: readonly string[];
  /** Where the draws came from, shown in the header. */
  readonly source: string;
  /** What the report leaves out (per-observation families, by default), said above the summary. */
  readonly note?: string;
  /** The observe terms, for the predictive check and the leave-one-out panels. */
  readonly observations?: Observations;
  /** Draws of a prior run (`ppl sample --prior`), by parameter name, for the prior-against-posterior panels. */
  readonly prior?: Readonly<Record<string, readonly ArrayLike<number>[]>>;
  /** Saved warmup draws (--save-warmup), by parameter name, [chain][iteration]. */
  readonly warmup?: Readonly<Record<string, readonly ArrayLike<number>[]>>;
  /** Parameters drawn on a log axis. */
  readonly logScale?: ReadonlySet<string>;
}

/** Most parameters in the pair plot: beyond six the panels get too small to read. */
export const MAX_PAIRS = 6;
/**
 * Budget of trace points over the whole report: 4 chains × 30 parameters get 500 points per chain,
 * more than one per pixel of a trace, and the file stays near 1 MB whatever the number of draws.
 */
const TRACE_POINT_BUDGET = 60_000;
const PAIR_POINTS = 600;

/** Renders the report page for a run and its summary. */
export function renderReport(run: Run, summary: Summary, opts: ReportOptions): string {
  const names = Object.keys(run.chains.parameters);
  const chains = run.files.length;
  const perChain = Math.max(100, Math.min(1000, Math.floor(TRACE_POINT_BUDGET / Math.max(1, names.length * chains * (opts.warmup !== undefined ? 2 : 1)))));
  // Read from the spill once (its chains are read again at each access), for every parameter's trace.
  const divergentColumn = run.chains.columns["divergent__"];
  const divergent = divergentColumn !== undefined ? Array.from(divergentColumn) : undefined;
  const config = run.files[0]!.config;
  const title = `ppl report — ${run.model ?? "model"}`;

  const pairNames = (opts.pairs ?? names.slice(0, MAX_PAIRS)).slice(0, MAX_PAIRS);
  const pooled = (chainsOf: readonly ArrayLike<number>[]): Float64Array => {
    const out = new Float64Array(chainsOf.reduce((a, c) => a + c.length, 0));
    let o = 0;
    for (const c of chainsOf) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  };
  const pairs =
    pairNames.length >= 2
      ? panel("pairs", pairsSvg({ names: pairNames, values: pairNames.map((p) => pooled(run.chains.parameters[p]!)), log: pairNames.map((p) => opts.logScale?.has(p) ?? false), ...(divergent ? { divergent: pooled(divergent) } : {}) }, PAIR_POINTS))
      : `<p class="note">The pair plot needs at least two parameters.</p>`;
  const energy = run.chains.sampler ? panel("energy", energySvg(run.chains.sampler.energy)) : `<p class="note">No energy__ column: the energy plot needs Stan's sampler columns.</p>`;

  const warmupDraws = opts.warmup !== undefined ? run.files[0]!.warmupCount : 0;
  const params = names.map((name, i) => {
    const draws = run.chains.parameters[name]!;
    const log = opts.logScale?.has(name) ?? false;
    const warmup = opts.warmup?.[name];
    return [
      `<section class="param" id="p${i}"><h3>${escapeXml(name)}</h3><div class="plots">`,
      panel("density", densitySvg(name, draws, log)),
      panel("trace", traceSvg({ name, chains: draws, log, ...(divergent ? { divergent } : {}), ...(warmup ? { warmup } : {}) }, perChain)),
      panel("rank", rankSvg(name, draws)),
      panel("autocorr", autocorrSvg(name, draws)),
      `</div></section>`,
    ].join("");
  });

  const stats = summary.parameters;
  // The 50% interval's quantiles a parameter at a time: the pooled draws of every parameter at once would be the whole run.
  const forest = panel("forest", forestSvg(stats.map((p) => {
    const x = pooled(run.chains.parameters[p.name]!);
    return { name: p.name, q25: quantile(x, 0.25), q75: quantile(x, 0.75), q5: p.q5, median: p.median, q95: p.q95, rhat: p.rhat };
  })));
  const ess = panel("ess", essSvg(stats.map((p) => ({ name: p.name, bulk: p.ess_bulk, tail: p.ess_tail })), chains, chains * run.chains.drawsPerChain));
  const mcse = panel("mcse", mcseSvg(stats.map((p) => ({ name: p.name, mcseMean: p.mcse_mean, mcseSd: p.mcse_sd, sd: p.sd }))));

  const meta: [string, string][] = [
    ["source", opts.source],
    ["chains", String(chains)],
    ["draws per chain", String(run.chains.drawsPerChain)],
    ["warmup per chain", config["num_warmup"] ?? "?"],
    ["seed", config["seed"] ?? "?"],
    ["adapt delta", config["delta"] ?? "?"],
    ["max tree depth", String(run.maxTreeDepth)],
    ["metric", config["metric"] ?? "?"],
    ["backend", config["backend"] ? `${config["backend"]} (${config["dtype"] ?? "?"})` : "?"],
  ];

  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(title)}</title>
<style>${CSS}</style></head>
<body>
<h1>${escapeXml(title)}</h1>
<table class="meta">${meta.map(([k, v]) => `<tr><th>${escapeXml(k)}</th><td>${escapeXml(v)}</td></tr>`).join("")}</table>
<h2>Warnings</h2>
${warningsHtml(summary)}
<h2>Summary</h2>
${opts.note !== undefined ? `<p class="note" id="hidden-variables">${escapeXml(opts.note)}</p>\n` : ""}${summaryTable(summary)}
<pre class="sampler">${escapeXml(samplerLines(summary).join("\n"))}</pre>
<h2>Forest</h2>
<p class="note">Every parameter on one axis: median (dot), central 50% (thick) and 90% (thin) intervals; R-hat on the right, in red above ${THRESHOLDS.rhat}.</p>
${forest}
<h2>Effective sample size and Monte Carlo error</h2>
${ess}
${mcse}
<h2>Energy</h2>
${energy}
<h2>Pairs</h2>
<p class="note">Lower triangle: draws of ${pairNames.map(escapeXml).join(", ")} (thinned to ${PAIR_POINTS} per panel); divergent transitions in red.</p>
${pairs}
${opts.observations ? ppcSection(opts.observations, config["prior"] === "1") : ""}
${opts.observations ? looSection(opts.observations) : ""}
${opts.prior ? priorSection(run.chains.parameters, opts.prior, names, opts.logScale) : ""}
<h2>Parameters</h2>
<p class="note">Density of each chain's draws beside its trace (${perChain >= run.chains.drawsPerChain + warmupDraws ? "every draw" : `thinned to ${perChain} points per chain`}; red ticks: divergences${warmupDraws > 0 ? `; the ${warmupDraws} saved warmup iterations first, shaded` : ""}), ranks of each chain in the pooled draws, and autocorrelation per chain; the colours are the chains of the trace's legend.${opts.logScale && opts.logScale.size > 0 ? ` On a log axis: ${[...opts.logScale].map(escapeXml).join(", ")}.` : ""}</p>
<nav>${names.map((n, i) => `<a href="#p${i}">${escapeXml(n)}</a>`).join(" ")}</nav>
${params.join("\n")}
</body></html>
`;
}

function warningsHtml(summary: Summary): string {
  if (summary.warnings.length === 0) return `<p class="ok">No warnings: R-hat, ESS, divergences, tree depth and E-BFMI are within their thresholds.</p>`;
  const groups = groupWarnings(summary.warnings);
  return `<ul class="warnings">${groups.map((g) => `<li class="${g.scope}" data-kind="${g.kind}">${escapeXml(g.text)}</li>`).join("")}</ul>`;
}

function summaryTable(summary: Summary): string {
  const [header, ...rows] = summaryRows(summary);
  const bad = new Set(summary.warnings.filter((w) => w.parameter !== undefined).map((w) => w.parameter));
  return `<table class="summary"><thead><tr>${header!.map((h) => `<th>${escapeXml(h)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr${bad.has(r[0]) ? ` class="flag"` : ""}>${r.map((c, j) => (j === 0 ? `<th>${escapeXml(c)}</th>` : `<td>${escapeXml(c)}</td>`)).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}h3{font-size:15px;margin:14px 0 4px}
table{border-collapse:collapse;font-size:13px}th,td{padding:3px 8px;text-align:right}
table.summary th:first-child{text-align:left}table.summary thead th{border-bottom:1px solid #999}
table.summary tbody tr:nth-child(odd){background:#f6f6f6}table.summary tr.flag{background:#fde8e8}
table.meta th{text-align:left;color:#555;font-weight:normal}table.meta td{text-align:left}
.warnings li{color:#a00}.ok{color:#070}.note{color:#555;font-size:13px}pre.sampler{font-size:13px}
nav a{font-size:12px;margin-right:6px}figure.panel{margin:0 0 6px 0}
.plots{display:grid;gap:6px;grid-template-columns:max-content max-content}
@media (min-width:1330px){body{max-width:1290px}.plots{grid-template-columns:repeat(4,max-content)}}
@media (max-width:780px){.plots{grid-template-columns:max-content}}
.priors{display:flex;flex-wrap:wrap;gap:6px}
.warnings li.sampler{font-weight:600}
svg{background:#fff}svg text{font-size:10px;fill:#333}svg .title{font-size:11px;font-weight:600}
svg .grid{stroke:#eee}svg .box{fill:none;stroke:#999}svg .chain{fill:none;stroke-width:1;stroke-opacity:.8}
svg .expect{stroke:#333;stroke-dasharray:3 3}svg .zero{stroke:#666}svg .hist{fill:#1f77b4;fill-opacity:.6}
svg .dots{stroke:#1f77b4;stroke-opacity:.45;stroke-width:3;stroke-linecap:round;fill:none}
svg .divergent{stroke-width:4;stroke-linecap:round;fill:none}svg .divergent-ticks{stroke-width:1.5}
svg .label,svg .axis-label,svg .row-name,svg .rhat{font-size:11px}svg .legend{font-size:11px}
svg .tick-mark{stroke:#999}svg .flag{fill:#c00}svg .interval90{stroke:#1f77b4;stroke-width:1.5}
svg .interval50{stroke:#1f77b4;stroke-width:4}svg .median{stroke:#fff;stroke-width:3.5;stroke-linecap:round}
`;
