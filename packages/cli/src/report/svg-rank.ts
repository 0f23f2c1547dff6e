import { averageRanks } from "@ppl/ppl";
import { axes, chainColor, frame, histogram, px, svg } from "./svg.ts";

/**
 * A rank plot (Vehtari et al. 2021): the draws of all chains ranked together, then a histogram of
 * each chain's ranks in its own band. Chains that mix well give flat histograms near the dashed
 * line of the uniform expectation; a chain stuck in one region piles up at one end.
 */
export function rankSvg(name: string, chains: readonly ArrayLike<number>[], width = 260, height = 190): string {
  const m = chains.length;
  const n = chains[0]?.length ?? 0;
  const pooled = new Float64Array(m * n);
  chains.forEach((c, k) => {
    for (let i = 0; i < n; i++) pooled[k * n + i] = c[i]!;
  });
  const ranks = averageRanks(pooled);
  const bins = Math.max(5, Math.min(20, Math.floor(n / 10)));
  const counts = chains.map((_, k) => histogram(ranks.subarray(k * n, (k + 1) * n), 0.5, m * n + 0.5, bins));
  const expected = n / bins;
  const peak = Math.max(expected * 2, ...counts.flat());
  const f = frame([0, m * n], [0, m], width, height, { left: 44, right: 16, top: 22, bottom: 38 });
  const band = (f.bottom - f.top) / m;
  const bw = (f.right - f.left) / bins;
  const parts: string[] = [];
  counts.forEach((cs, k) => {
    const base = f.top + band * (k + 1);
    const scale = (band * 0.9) / peak;
    const d = cs.map((c, b) => `M${px(f.left + b * bw + 0.5)} ${px(base)}h${px(bw - 1)}v${px(-c * scale)}h${px(-(bw - 1))}z`).join("");
    parts.push(`<path fill="${chainColor(k)}" fill-opacity="0.75" d="${d}"/>`);
    const ey = px(base - expected * scale);
    parts.push(`<line class="expect" x1="${px(f.left)}" x2="${px(f.right)}" y1="${ey}" y2="${ey}"/>`);
    parts.push(`<text class="tick y" x="${px(f.left - 4)}" y="${px(base - band / 2)}" text-anchor="end" dominant-baseline="middle">${k + 1}</text>`);
  });
  const frameOnly = axes(f, { title: `${name} — ranks by chain`, xLabel: "rank in the pooled draws", yLabel: "chain", grid: false, yLabels: false, xTicks: 3 });
  return svg(width, height, "rank", frameOnly + parts.join(""), { param: name });
}
