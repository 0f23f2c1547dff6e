import { quantile } from "@ppl/ppl";
import { gaussianKde, silvermanBandwidth } from "./density.ts";
import { axes, fittedText, frame, linePath, padded, px, svg } from "./svg.ts";

const GRID_POINTS = 80;
const PRIOR = "#888";
const POSTERIOR = "#1f77b4";

/** How far the axis reaches beyond the posterior, in half-widths of its central 99%, to show the prior. */
const ZOOM = 3;

/**
 * The prior and posterior densities of one parameter on one axis (ArviZ's plot_dist_comparison):
 * how much the data moved and narrowed it. The axis spans the posterior's central 99% and the
 * prior's central 98%, but no further than ZOOM half-widths of the posterior beyond it, so that a
 * wide or heavy-tailed prior does not squeeze the posterior into a spike; on a `log` axis the
 * densities are those of log10 of the draws.
 */
export function priorPosteriorSvg(name: string, prior: ArrayLike<number>, posterior: ArrayLike<number>, log = false, width = 380, height = 200): string {
  const tr = (xs: ArrayLike<number>): Float64Array => Float64Array.from(Array.from(xs).filter((v) => Number.isFinite(v) && (!log || v > 0)), (v) => (log ? Math.log10(v) : v));
  const a = tr(prior);
  const b = tr(posterior);
  // The posterior's central 99%, widened to the prior's central 98% but at most ZOOM half-widths of the posterior's each side.
  const [p0, p1] = [quantile(b, 0.005), quantile(b, 0.995)];
  const [c, half] = [(p0 + p1) / 2, Math.max((p1 - p0) / 2, 1e-12)];
  const [lo, hi] = padded([Math.min(p0, Math.max(quantile(a, 0.01), c - ZOOM * half)), Math.max(p1, Math.min(quantile(a, 0.99), c + ZOOM * half))], 0.04);
  const grid = Array.from({ length: GRID_POINTS }, (_, g) => lo + ((hi - lo) * g) / (GRID_POINTS - 1));
  const da = gaussianKde(a, grid, silvermanBandwidth(a));
  const db = gaussianKde(b, grid, silvermanBandwidth(b));
  const peak = Math.max(1e-300, ...da, ...db);
  const domain: [number, number] = log ? [10 ** lo, 10 ** hi] : [lo, hi];
  const f = frame(domain, [0, peak * 1.05], width, height, { left: 52, right: 12, top: 36, bottom: 38 }, 0, 0, { x: log });
  const xs = grid.map((g) => f.x.at(log ? 10 ** g : g));
  const legendY = f.top - 22;
  const legend = [
    `<line stroke="${PRIOR}" stroke-width="2" stroke-dasharray="4 3" x1="${px(f.left)}" x2="${px(f.left + 16)}" y1="${px(legendY - 4)}" y2="${px(legendY - 4)}"/>`,
    `<text class="legend" x="${px(f.left + 20)}" y="${px(legendY)}">prior</text>`,
    `<line stroke="${POSTERIOR}" stroke-width="2" x1="${px(f.left + 60)}" x2="${px(f.left + 76)}" y1="${px(legendY - 4)}" y2="${px(legendY - 4)}"/>`,
    `<text class="legend" x="${px(f.left + 80)}" y="${px(legendY)}">posterior</text>`,
  ];
  return svg(
    width, height, "prior-posterior",
    axes(f, { xLabel: log ? `${name} (log scale)` : name, yLabel: log ? "density of log10" : "density", xTicks: 4, yTicks: 3 }) +
      fittedText("title", f.left + 150, legendY, name, f.right - f.left - 150, 6.9) +
      `<path class="prior" fill="none" stroke="${PRIOR}" stroke-width="2" stroke-dasharray="4 3" d="${linePath(xs, da.map((v) => f.y.at(v)))}"/>` +
      `<path class="posterior" fill="none" stroke="${POSTERIOR}" stroke-width="2" d="${linePath(xs, db.map((v) => f.y.at(v)))}"/>` +
      legend.join(""),
    { param: name, ...(log ? { log: "x" } : {}) },
  );
}
