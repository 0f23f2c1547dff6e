import { quantile } from "@ppl/ppl";
import { replicatedSets } from "./svg-ppc-density.ts";
import { axes, fittedText, frame, px, svg } from "./svg.ts";

/** Most distinct values drawn as bars; counts spread wider are drawn as densities. */
export const MAX_BAR_VALUES = 40;
/** Replicated data sets the intervals of the counts come from. */
const BAR_DRAWS = 400;
const OBSERVED = "#9ecae1";
const REPLICATED = "#08306b";

/**
 * The posterior predictive check of counts (bayesplot's ppc_bars): for each value, a bar of how
 * many observations took it, and the median and 90% interval of that number over replicated data
 * sets. A bar outside its interval is a value the model makes too rare or too common.
 */
export function ppcBarsSvg(name: string, observed: ArrayLike<number>, yRep: readonly (readonly ArrayLike<number>[])[], width = 520, height = 240): string {
  const sets = replicatedSets(yRep, BAR_DRAWS);
  // The values the observations or the replications take, so that a value the model makes up shows
  // as an interval over no bar; the observed values' span alone when that is too wide for bars.
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < observed.length; i++) [lo, hi] = [Math.min(lo, observed[i]!), Math.max(hi, observed[i]!)];
  let [rlo, rhi] = [lo, hi];
  for (const r of sets) for (const v of r) [rlo, rhi] = [Math.min(rlo, v), Math.max(rhi, v)];
  if (rhi - rlo + 1 <= MAX_BAR_VALUES) [lo, hi] = [rlo, rhi];
  const values = Array.from({ length: hi - lo + 1 }, (_, k) => lo + k);
  const count = (xs: ArrayLike<number>): number[] => {
    const out = new Array<number>(values.length).fill(0);
    for (let i = 0; i < xs.length; i++) if (xs[i]! >= lo && xs[i]! <= hi) out[xs[i]! - lo]!++;
    return out;
  };
  const obs = count(observed);
  const reps = sets.map(count);
  const stats = values.map((_, k) => {
    const col = Float64Array.from(reps, (r) => r[k]!);
    return { q5: quantile(col, 0.05), q50: quantile(col, 0.5), q95: quantile(col, 0.95) };
  });
  const top = Math.max(1, ...obs, ...stats.map((s) => s.q95));
  const f = frame([lo - 0.5, hi + 0.5], [0, top * 1.08], width, height, { left: 52, right: 150, top: 22, bottom: 38 });
  const bw = Math.max(1, (f.x.at(lo + 1) - f.x.at(lo)) * 0.8);
  const bars = obs.map((c, k) => `M${px(f.x.at(values[k]!) - bw / 2)} ${px(f.bottom)}h${px(bw)}V${px(f.y.at(c))}h${px(-bw)}z`).join("");
  const intervals = stats.map((s, k) => `M${px(f.x.at(values[k]!))} ${px(f.y.at(s.q5))}V${px(f.y.at(s.q95))}`).join("");
  const medians = stats.map((s, k) => `M${px(f.x.at(values[k]!))} ${px(f.y.at(s.q50))}h0`).join("");
  const lx = f.right + 12;
  const legend = [
    `<rect x="${px(lx)}" y="${px(f.top)}" width="14" height="10" fill="${OBSERVED}"/>`,
    fittedText("legend", lx + 20, f.top + 9, `observed ${name}`, 118),
    `<path stroke="${REPLICATED}" stroke-width="1.5" d="M${px(lx + 7)} ${px(f.top + 18)}v14"/><path stroke="${REPLICATED}" stroke-width="5" stroke-linecap="round" d="M${px(lx + 7)} ${px(f.top + 25)}h0"/>`,
    fittedText("legend", lx + 20, f.top + 29, `${name}_rep median, 90%`, 118),
  ];
  return svg(
    width, height, "ppc-bars",
    axes(f, { titleWidth: width - f.left - 8, title: `${name} — observed vs replicated counts`, xLabel: name, yLabel: "observations", xTicks: Math.min(8, values.length), yTicks: 3 }) +
      `<path class="observed" fill="${OBSERVED}" d="${bars}"/>` +
      `<path class="rep-interval" stroke="${REPLICATED}" stroke-width="1.5" d="${intervals}"/>` +
      `<path class="rep-median" stroke="${REPLICATED}" stroke-width="5" stroke-linecap="round" d="${medians}"/>` +
      legend.join(""),
    { param: name, replications: String(sets.length) },
  );
}
