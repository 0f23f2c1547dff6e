import { gaussianKde, silvermanBandwidth } from "./density.ts";
import { axes, extent, fittedText, frame, linePath, padded, px, svg, thinIndices } from "./svg.ts";

/** Replicated data sets drawn: enough to show the spread of the predictive distribution, few enough to stay light. */
export const PPC_DRAWS = 50;
const GRID_POINTS = 80;
const OBSERVED = "#111";
const REPLICATED = "#1f77b4";

/**
 * The posterior predictive check of continuous data (ArviZ's plot_ppc, bayesplot's ppc_dens_overlay):
 * the density of the observed values in bold over the densities of PPC_DRAWS replicated data sets,
 * each the predictive draws of every element at one posterior draw. Observed data that look
 * unlike the replications show where the model misses.
 */
export function ppcDensitySvg(name: string, observed: ArrayLike<number>, yRep: readonly (readonly ArrayLike<number>[])[], width = 520, height = 240): string {
  const sets = replicatedSets(yRep, PPC_DRAWS);
  const all = [...Array.from(observed), ...sets.flatMap((s) => Array.from(s))];
  const [lo, hi] = padded(extent(all), 0.05);
  const grid = Array.from({ length: GRID_POINTS }, (_, g) => lo + ((hi - lo) * g) / (GRID_POINTS - 1));
  // One bandwidth, the observed data's, for every curve: curves differ by the data, not by smoothing.
  const bandwidth = silvermanBandwidth(observed);
  const obs = gaussianKde(observed, grid, bandwidth);
  const reps = sets.map((s) => gaussianKde(s, grid, bandwidth));
  const peak = Math.max(1e-300, ...obs, ...reps.flat());
  const f = frame([lo, hi], [0, peak * 1.05], width, height, { left: 52, right: 150, top: 22, bottom: 38 });
  const xs = grid.map((v) => f.x.at(v));
  const repPaths = reps.map((d) => linePath(xs, d.map((v) => f.y.at(v)))).join("");
  const lx = f.right + 12;
  const legend = [
    `<line stroke="${OBSERVED}" stroke-width="2.5" x1="${px(lx)}" x2="${px(lx + 16)}" y1="${px(f.top + 6)}" y2="${px(f.top + 6)}"/>` + fittedText("legend", lx + 22, f.top + 10, `observed ${name}`, 116),
    `<line stroke="${REPLICATED}" stroke-opacity="0.5" x1="${px(lx)}" x2="${px(lx + 16)}" y1="${px(f.top + 24)}" y2="${px(f.top + 24)}"/>` + fittedText("legend", lx + 22, f.top + 28, `${sets.length} replications`, 116),
  ];
  return svg(
    width, height, "ppc-density",
    axes(f, { titleWidth: width - f.left - 8, title: `${name} — observed vs replicated data`, xLabel: name, yLabel: "density", xTicks: 5, yTicks: 3 }) +
      `<path class="replicated" fill="none" stroke="${REPLICATED}" stroke-opacity="0.25" stroke-width="0.8" d="${repPaths}"/>` +
      `<path class="observed" fill="none" stroke="${OBSERVED}" stroke-width="2.5" d="${linePath(xs, obs.map((v) => f.y.at(v)))}"/>` +
      legend.join(""),
    { param: name, replications: String(sets.length) },
  );
}

/** Up to `max` replicated data sets: at evenly spaced pooled draws, the predictive draw of every element. */
export function replicatedSets(yRep: readonly (readonly ArrayLike<number>[])[], max: number): Float64Array[] {
  const chains = yRep[0]?.length ?? 0;
  const draws = yRep[0]?.[0]?.length ?? 0;
  return thinIndices(chains * draws, max).map((s) => {
    const c = Math.floor(s / draws);
    const d = s % draws;
    return Float64Array.from(yRep, (e) => e[c]![d]!);
  });
}
