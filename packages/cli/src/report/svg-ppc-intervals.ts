import { quantile } from "@ppl/ppl";
import { axes, extent, fittedText, frame, padded, px, svg } from "./svg.ts";

/** Most observations drawn one by one; beyond, the intervals would be thinner than a pixel. */
export const MAX_INTERVAL_OBSERVATIONS = 100;
const OBSERVED = "#d62728";
const REPLICATED = "#1f77b4";

/**
 * Intervals by observation (bayesplot's ppc_intervals): for each observation, the median and the
 * central 50% and 90% intervals of its predictive draws, with the observed value as a point. An
 * observed point far outside its interval is an observation the model does not predict.
 */
export function ppcIntervalsSvg(name: string, observed: ArrayLike<number> | null, yRep: readonly (readonly ArrayLike<number>[])[], width = 760, height = 240): string {
  const n = yRep.length;
  const stats = yRep.map((chains) => {
    const pooled = Float64Array.from(chains.flatMap((c) => Array.from(c)));
    return { q5: quantile(pooled, 0.05), q25: quantile(pooled, 0.25), q50: quantile(pooled, 0.5), q75: quantile(pooled, 0.75), q95: quantile(pooled, 0.95) };
  });
  const ys = [...stats.flatMap((s) => [s.q5, s.q95]), ...(observed ? Array.from(observed) : [])];
  const f = frame([0.5, n + 0.5], padded(extent(ys), 0.05), width, height, { left: 52, right: 150, top: 22, bottom: 38 });
  const x = (i: number): string => px(f.x.at(i + 1));
  const thin = stats.map((s, i) => `M${x(i)} ${px(f.y.at(s.q5))}V${px(f.y.at(s.q95))}`).join("");
  const thick = stats.map((s, i) => `M${x(i)} ${px(f.y.at(s.q25))}V${px(f.y.at(s.q75))}`).join("");
  const medians = stats.map((s, i) => `M${px(f.x.at(i + 1) - 3)} ${px(f.y.at(s.q50))}h6`).join("");
  const points = observed ? Array.from(observed, (v, i) => `M${x(i)} ${px(f.y.at(v))}h0`).join("") : "";
  const thick50 = Math.max(2, Math.min(6, ((f.right - f.left) / n) * 0.6));
  const lx = f.right + 12;
  const legend = [
    `<path stroke="${REPLICATED}" stroke-width="1.5" d="M${px(lx + 7)} ${px(f.top)}v16"/><path stroke="${REPLICATED}" stroke-width="5" d="M${px(lx + 7)} ${px(f.top + 4)}v8"/>`,
    fittedText("legend", lx + 20, f.top + 12, `${name}_rep: 50%, 90%`, 118),
    ...(observed ? [`<path stroke="${OBSERVED}" stroke-width="6" stroke-linecap="round" d="M${px(lx + 7)} ${px(f.top + 30)}h0"/>`, fittedText("legend", lx + 20, f.top + 34, `observed ${name}`, 118)] : []),
  ];
  return svg(
    width, height, "ppc-intervals",
    axes(f, { titleWidth: width - f.left - 8, title: `${name} — predictive intervals by observation`, xLabel: "observation", yLabel: name, xTicks: Math.min(8, n), yTicks: 4 }) +
      `<path class="rep-interval90" stroke="${REPLICATED}" stroke-width="1" d="${thin}"/>` +
      `<path class="rep-interval50" stroke="${REPLICATED}" stroke-width="${px(thick50)}" stroke-opacity="0.6" d="${thick}"/>` +
      `<path class="median-mark" stroke="${REPLICATED}" stroke-width="1.5" d="${medians}"/>` +
      (points ? `<path class="observed" stroke="${OBSERVED}" stroke-width="6" stroke-linecap="round" d="${points}"/>` : "") +
      legend.join(""),
    { param: name, observations: String(n) },
  );
}
