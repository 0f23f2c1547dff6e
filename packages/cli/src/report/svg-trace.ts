import { axes, chainColor, chainLegend, DIVERGENT_COLOR, extent, frame, linePath, padded, px, svg, thinIndices } from "./svg.ts";

/** Draws of one parameter per chain, and optionally each chain's divergent flags (1 = divergent). */
export interface TraceInput {
  readonly name: string;
  readonly chains: readonly ArrayLike<number>[];
  readonly divergent?: readonly ArrayLike<number>[];
}

/**
 * A trace plot: each chain's draws against iteration (thinned to `maxPoints` per chain),
 * divergences as red ticks below, and the legend of chain colours, which the density, rank and
 * autocorrelation plots beside it share.
 */
export function traceSvg(input: TraceInput, maxPoints: number, width = 460, height = 190): string {
  const n = input.chains[0]?.length ?? 0;
  const f = frame([1, Math.max(2, n)], padded(extent(input.chains.flatMap((c) => Array.from(c)))), width, height, { left: 52, right: 16, top: 22, bottom: 38 });
  const idx = thinIndices(n, maxPoints);
  const xs = idx.map((i) => f.x.at(i + 1));
  const lines = input.chains.map((chain, c) => {
    const ys = idx.map((i) => f.y.at(chain[i]!));
    return `<path class="chain" stroke="${chainColor(c)}" d="${linePath(xs, ys)}"/>`;
  });
  // Every divergence is marked, not a thinned subset: they are rare and what the reader looks for.
  const ticks: string[] = [];
  for (const flags of input.divergent ?? []) {
    for (let i = 0; i < flags.length; i++) if (flags[i]! !== 0) ticks.push(`M${px(f.x.at(i + 1))} ${px(f.bottom - 6)}v6`);
  }
  const div = ticks.length > 0 ? `<path class="divergent-ticks" stroke="${DIVERGENT_COLOR}" d="${ticks.join("")}"/>` : "";
  return svg(width, height, "trace", axes(f, { title: `${input.name} — trace`, xLabel: "iteration (after warmup)", yLabel: input.name, yTicks: 4 }) + chainLegend(input.chains.length, f.right, f.top - 7) + lines.join("") + div, { param: input.name });
}

