import { axes, DIVERGENT_COLOR, escapeXml, extent, frame, histogram, px, svg, thinIndices } from "./svg.ts";

/** Parameters for a pair plot: names, their pooled draws, and the pooled divergent flags. */
export interface PairsInput {
  readonly names: readonly string[];
  /** Per parameter, the draws of all chains one after another. */
  readonly values: readonly ArrayLike<number>[];
  /** 1 where the draw came from a divergent transition, pooled like `values`. */
  readonly divergent?: ArrayLike<number>;
}

/**
 * A pair plot: histograms on the diagonal, scatter plots below it, divergent draws in red on top.
 * Non-divergent points are thinned to `maxPoints` per panel and drawn as one path of dots (far
 * smaller than a circle per point); every divergent draw is drawn.
 */
export function pairsSvg(input: PairsInput, maxPoints: number, cell = 150): string {
  const k = input.names.length;
  const pad = 30;
  const size = pad + k * cell + 8;
  const n = input.values[0]?.length ?? 0;
  const keep = thinIndices(n, maxPoints).filter((i) => !(input.divergent && input.divergent[i]! !== 0));
  const div: number[] = [];
  if (input.divergent) for (let i = 0; i < n; i++) if (input.divergent[i]! !== 0) div.push(i);
  const domains = input.values.map((v) => extent(Array.from(v)));
  const parts: string[] = [];
  for (let r = 0; r < k; r++) {
    for (let c = 0; c <= r; c++) {
      const ox = pad + c * cell;
      const oy = 8 + r * cell;
      const margin = { left: 6, right: 6, top: 6, bottom: 6 };
      if (r === c) {
        const bins = 24;
        const h = histogram(input.values[r]!, domains[r]![0], domains[r]![1], bins);
        const f = frame(domains[r]!, [0, Math.max(1, ...h) * 1.05], cell, cell, margin, ox, oy);
        const bw = (f.right - f.left) / bins;
        parts.push(axes(f, { grid: false, xLabels: false, yLabels: false }));
        parts.push(`<path class="hist" d="${h.map((v, b) => `M${px(f.left + b * bw)} ${px(f.bottom)}h${px(bw)}V${px(f.y.at(v))}h${px(-bw)}z`).join("")}"/>`);
        parts.push(`<text class="label" x="${px((f.left + f.right) / 2)}" y="${px(f.top + 14)}" text-anchor="middle">${escapeXml(input.names[r]!)}</text>`);
        continue;
      }
      const f = frame(domains[c]!, domains[r]!, cell, cell, margin, ox, oy);
      parts.push(axes(f, { grid: false, xLabels: false, yLabels: false }));
      const xs = input.values[c]!;
      const ys = input.values[r]!;
      const dots = (idx: number[]): string => idx.map((i) => `M${px(f.x.at(xs[i]!))} ${px(f.y.at(ys[i]!))}h0`).join("");
      parts.push(`<path class="dots" d="${dots(keep)}"/>`);
      if (div.length > 0) parts.push(`<path class="divergent" stroke="${DIVERGENT_COLOR}" d="${dots(div)}"/>`);
    }
    // Row and column labels along the left and bottom edges.
    parts.push(`<text class="label" x="${px(pad - 6)}" y="${px(8 + r * cell + cell / 2)}" text-anchor="middle" transform="rotate(-90 ${px(pad - 6)} ${px(8 + r * cell + cell / 2)})">${escapeXml(input.names[r]!)}</text>`);
  }
  return svg(size, size, "pairs", parts.join(""), { params: input.names.join(",") });
}
