import { axes, chainColor, chainLegend, DIVERGENT_COLOR, extent, frame, linePath, padded, px, svg, thinIndices } from "./svg.ts";

/** Draws of one parameter per chain, and optionally each chain's divergent flags (1 = divergent) and saved warmup draws. */
export interface TraceInput {
  readonly name: string;
  readonly chains: readonly ArrayLike<number>[];
  readonly divergent?: readonly ArrayLike<number>[];
  /** Each chain's warmup draws (--save-warmup), drawn before the sampling ones on a shaded band. */
  readonly warmup?: readonly ArrayLike<number>[];
  /** A log10 value axis (positive draws only). */
  readonly log?: boolean;
}

const WARMUP_SHADE = "#eee";

/**
 * A trace plot: each chain's draws against iteration (thinned to `maxPoints` per chain),
 * divergences as red ticks below, and the legend of chain colours, which the density, rank and
 * autocorrelation plots beside it share. Saved warmup draws come first, on a grey band, so that
 * the adaptation's transient and the sampling phase read apart.
 */
export function traceSvg(input: TraceInput, maxPoints: number, width = 460, height = 190): string {
  const n = input.chains[0]?.length ?? 0;
  const w = input.warmup?.[0]?.length ?? 0;
  const series = input.chains.map((c, k) => (w > 0 ? [...Array.from(input.warmup![k]!), ...Array.from(c)] : Array.from(c)));
  const total = w + n;
  const log = input.log ?? false;
  const domain = padded(extent(series.flat().filter((v) => !log || v > 0)), 0.04, log);
  const f = frame([1, Math.max(2, total)], domain, width, height, { left: 52, right: 16, top: 22, bottom: 38 }, 0, 0, { y: log });
  const idx = thinIndices(total, maxPoints);
  const xs = idx.map((i) => f.x.at(i + 1));
  const lines = series.map((chain, c) => {
    const ys = idx.map((i) => f.y.at(chain[i]!));
    return `<path class="chain" stroke="${chainColor(c)}" d="${linePath(xs, ys)}"/>`;
  });
  // Every divergence is marked, not a thinned subset: they are rare and what the reader looks for.
  const ticks: string[] = [];
  for (const flags of input.divergent ?? []) {
    for (let i = 0; i < flags.length; i++) if (flags[i]! !== 0) ticks.push(`M${px(f.x.at(w + i + 1))} ${px(f.bottom - 6)}v6`);
  }
  const div = ticks.length > 0 ? `<path class="divergent-ticks" stroke="${DIVERGENT_COLOR}" d="${ticks.join("")}"/>` : "";
  const shade = w > 0 ? `<rect class="warmup" fill="${WARMUP_SHADE}" x="${px(f.left)}" y="${px(f.top)}" width="${px(f.x.at(w + 0.5) - f.left)}" height="${px(f.bottom - f.top)}"/>` : "";
  // The legend takes the right of the title row: the title gets what is left of it.
  const legendWidth = (input.chains.length > 8 ? 200 : 50) + Math.min(input.chains.length, 8) * 26;
  const xLabel = w > 0 ? `iteration (warmup ${w} shaded, then sampling)` : "iteration (after warmup)";
  return svg(
    width, height, "trace",
    shade + axes(f, { title: `${input.name} — trace`, titleWidth: f.right - f.left - legendWidth, xLabel, yLabel: log ? `${input.name} (log scale)` : input.name, yTicks: 4 }) + chainLegend(input.chains.length, f.right, f.top - 7) + lines.join("") + div,
    { param: input.name, ...(w > 0 ? { warmup: String(w) } : {}), ...(log ? { log: "y" } : {}) },
  );
}
