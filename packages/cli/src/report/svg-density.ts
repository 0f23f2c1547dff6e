import { gaussianKde, silvermanBandwidth } from "./density.ts";
import { axes, chainColor, extent, frame, linePath, padded, svg } from "./svg.ts";

/** Points of the density curves: smooth at a panel's width, small in the file. */
const GRID_POINTS = 80;

/**
 * The density of each chain's draws of one parameter (ArviZ's plot_trace puts it beside the
 * trace): chains that sampled the same distribution give curves on top of each other; a chain
 * stuck elsewhere shows as a curve of its own. On a `log` axis (positive draws) the curves are the
 * densities of log10 of the draws, smooth where a linear axis would show a spike and a long tail.
 */
export function densitySvg(name: string, chains: readonly ArrayLike<number>[], log = false, width = 260, height = 190): string {
  const tr = (c: ArrayLike<number>): number[] => Array.from(c, (v) => (log ? Math.log10(v) : v));
  const values = chains.map(tr);
  const pooled = values.flat();
  const [lo, hi] = padded(extent(pooled), 0.08);
  const bandwidth = silvermanBandwidth(pooled);
  const grid = Array.from({ length: GRID_POINTS }, (_, g) => lo + ((hi - lo) * g) / (GRID_POINTS - 1));
  const curves = values.map((c) => gaussianKde(c, grid, bandwidth));
  const peak = Math.max(1e-300, ...curves.flat());
  const f = frame(log ? [10 ** lo, 10 ** hi] : [lo, hi], [0, peak * 1.05], width, height, { left: 52, right: 12, top: 22, bottom: 38 }, 0, 0, { x: log });
  const xs = grid.map((v) => f.x.at(log ? 10 ** v : v));
  const lines = curves.map((d, c) => `<path class="chain" stroke="${chainColor(c)}" d="${linePath(xs, d.map((v) => f.y.at(v)))}"/>`);
  return svg(
    width, height, "density",
    axes(f, { title: `${name} — density by chain`, xLabel: log ? `${name} (log scale)` : name, yLabel: log ? "density of log10" : "density", xTicks: 4, yTicks: 3 }) + lines.join(""),
    { param: name, ...(log ? { log: "x" } : {}) },
  );
}
