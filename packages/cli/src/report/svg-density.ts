import { gaussianKde, silvermanBandwidth } from "./density.ts";
import { axes, chainColor, extent, frame, linePath, padded, svg } from "./svg.ts";

/** Points of the density curves: smooth at a panel's width, small in the file. */
const GRID_POINTS = 80;

/**
 * The density of each chain's draws of one parameter (ArviZ's plot_trace puts it beside the
 * trace): chains that sampled the same distribution give curves on top of each other; a chain
 * stuck elsewhere shows as a curve of its own.
 */
export function densitySvg(name: string, chains: readonly ArrayLike<number>[], width = 260, height = 190): string {
  const pooled = chains.flatMap((c) => Array.from(c));
  const [lo, hi] = padded(extent(pooled), 0.08);
  const bandwidth = silvermanBandwidth(pooled);
  const grid = Array.from({ length: GRID_POINTS }, (_, g) => lo + ((hi - lo) * g) / (GRID_POINTS - 1));
  const curves = chains.map((c) => gaussianKde(c, grid, bandwidth));
  const peak = Math.max(1e-300, ...curves.flat());
  const f = frame([lo, hi], [0, peak * 1.05], width, height, { left: 52, right: 12, top: 22, bottom: 38 });
  const xs = grid.map((v) => f.x.at(v));
  const lines = curves.map((d, c) => `<path class="chain" stroke="${chainColor(c)}" d="${linePath(xs, d.map((v) => f.y.at(v)))}"/>`);
  return svg(
    width, height, "density",
    axes(f, { title: `${name} — density by chain`, xLabel: name, yLabel: "density", xTicks: 4, yTicks: 3 }) + lines.join(""),
    { param: name },
  );
}
