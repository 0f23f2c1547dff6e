import { axes, DIVERGENT_COLOR, escapeXml, extent, type Frame, frame, histogram, padded, px, svg, thinIndices, tickLabel, xAxisLabel, Y_LABEL_GAP, yAxisLabel } from "./svg.ts";

/** Parameters for a pair plot: names, their pooled draws, and the pooled divergent flags. */
export interface PairsInput {
  readonly names: readonly string[];
  /** Per parameter, the draws of all chains one after another. */
  readonly values: readonly ArrayLike<number>[];
  /** 1 where the draw came from a divergent transition, pooled like `values`. */
  readonly divergent?: ArrayLike<number>;
  /** Per parameter, whether its axes are log10 (positive draws only; its histogram is of log10 of the draws). */
  readonly log?: readonly boolean[];
}

/** Room around the grid of cells: the y labels and ticks on the left, the x ones below, a title row above. */
const PAD = { left: 64, top: 6, bottom: 44, right: 8 };
/** Each cell's margins: a title row above the box for the diagonal's names, a gap between boxes. */
const CELL_MARGIN = { left: 6, right: 6, top: 18, bottom: 4 };
const TICKS = 3;

/**
 * A pair plot: histograms on the diagonal, scatter plots below it, divergent draws in red on top.
 * Columns share their x axis and rows their y axis, as in a corner plot: every cell has tick
 * marks, and the tick values and names are written once, along the bottom and the left edge;
 * each histogram's name stands above its box. Non-divergent points are thinned to `maxPoints` per
 * panel and drawn as one path of dots (far smaller than a circle per point); every divergent
 * draw is drawn.
 */
export function pairsSvg(input: PairsInput, maxPoints: number, cell = 150): string {
  const k = input.names.length;
  const width = PAD.left + k * cell + PAD.right;
  const height = PAD.top + k * cell + PAD.bottom;
  const n = input.values[0]?.length ?? 0;
  const keep = thinIndices(n, maxPoints).filter((i) => !(input.divergent && input.divergent[i]! !== 0));
  const div: number[] = [];
  if (input.divergent) for (let i = 0; i < n; i++) if (input.divergent[i]! !== 0) div.push(i);
  const log = (i: number): boolean => input.log?.[i] ?? false;
  const domains = input.values.map((v, i) => padded(extent(Array.from(v).filter((x) => !log(i) || x > 0)), 0.04, log(i)));
  const parts: string[] = [];
  for (let r = 0; r < k; r++) {
    for (let c = 0; c <= r; c++) {
      const ox = PAD.left + c * cell;
      const oy = PAD.top + r * cell;
      const diagonal = r === c;
      // On a log axis the bins are equal in log10, as the axis is.
      const h = !diagonal ? [] : log(r) ? histogram(Array.from(input.values[r]!, Math.log10), Math.log10(domains[r]![0]), Math.log10(domains[r]![1]), 24) : histogram(input.values[r]!, domains[r]![0], domains[r]![1], 24);
      const f = frame(domains[c]!, diagonal ? [0, Math.max(1, ...h) * 1.05] : domains[r]!, cell, cell, CELL_MARGIN, ox, oy, { x: log(c), y: !diagonal && log(r) });
      parts.push(`<g class="cell" data-row="${r}" data-col="${c}">`);
      parts.push(axes(f, { grid: false, xLabels: false, yLabels: false, xTicks: TICKS, yTicks: TICKS }));
      parts.push(tickMarks(f, !diagonal));
      if (r === k - 1) parts.push(tickLabelsX(f));
      if (c === 0 && !diagonal) parts.push(tickLabelsY(f));
      if (diagonal) {
        const bw = (f.right - f.left) / h.length;
        parts.push(`<path class="hist" d="${h.map((v, b) => `M${px(f.left + b * bw)} ${px(f.bottom)}h${px(bw)}V${px(f.y.at(v))}h${px(-bw)}z`).join("")}"/>`);
        parts.push(`<text class="title" x="${px((f.left + f.right) / 2)}" y="${px(f.top - 5)}" text-anchor="middle">${escapeXml(input.names[r]!)}</text>`);
      } else {
        const xs = input.values[c]!;
        const ys = input.values[r]!;
        const dots = (idx: number[]): string => idx.map((i) => `M${px(f.x.at(xs[i]!))} ${px(f.y.at(ys[i]!))}h0`).join("");
        parts.push(`<path class="dots" d="${dots(keep)}"/>`);
        if (div.length > 0) parts.push(`<path class="divergent" stroke="${DIVERGENT_COLOR}" d="${dots(div)}"/>`);
      }
      if (r === k - 1) parts.push(xAxisLabel(f, input.names[c]!));
      if (c === 0 && !diagonal) parts.push(yAxisLabel(f, input.names[r]!, Y_LABEL_GAP));
      parts.push(`</g>`);
    }
  }
  const logNames = input.names.filter((_, i) => log(i));
  return svg(width, height, "pairs", parts.join(""), { params: input.names.join(","), ...(logNames.length > 0 ? { "log-params": logNames.join(",") } : {}) });
}

/** Short outward tick marks on the bottom edge, and on the left edge when the y axis is a parameter. */
function tickMarks(f: Frame, yAxis: boolean): string {
  const d = f.x.ticks(TICKS).map((v) => `M${px(f.x.at(v))} ${px(f.bottom)}v3`);
  if (yAxis) d.push(...f.y.ticks(TICKS).map((v) => `M${px(f.left)} ${px(f.y.at(v))}h-3`));
  return `<path class="tick-mark" d="${d.join("")}"/>`;
}

/**
 * Tick values far enough from the box's ends (10 px) that they cannot run into the next cell's,
 * or all of them when fewer than two are that far in.
 */
function inner(values: number[], at: (v: number) => number, lo: number, hi: number): number[] {
  const kept = values.filter((v) => at(v) >= lo + 10 && at(v) <= hi - 10);
  return kept.length >= 2 ? kept : values;
}

function tickLabelsX(f: Frame): string {
  return inner(f.x.ticks(TICKS), (v) => f.x.at(v), f.left, f.right)
    .map((v) => `<text class="tick x" x="${px(f.x.at(v))}" y="${px(f.bottom + 15)}" text-anchor="middle">${tickLabel(v)}</text>`)
    .join("");
}

function tickLabelsY(f: Frame): string {
  return inner(f.y.ticks(TICKS), (v) => f.y.at(v), f.top, f.bottom)
    .map((v) => `<text class="tick y" x="${px(f.left - 5)}" y="${px(f.y.at(v))}" text-anchor="end" dominant-baseline="middle">${tickLabel(v)}</text>`)
    .join("");
}
