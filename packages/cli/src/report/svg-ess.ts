import { minimumEss } from "@ppl/ppl";
import { ROW_HEIGHT, rowLayout } from "./svg-rows.ts";
import { axes, px, svg } from "./svg.ts";

/** One parameter's effective sample sizes. */
export interface EssRow {
  readonly name: string;
  readonly bulk: number;
  readonly tail: number;
}

const BULK = "#1f77b4";
const TAIL = "#ff7f0e";
const LEGEND_COLUMN = 120;

/**
 * Bulk- and tail-ESS of every parameter as two bars per row, with the dashed line of the usual
 * minimum (100 per chain, at most 400 in all): a bar short of the line names a parameter whose mean or quantiles
 * need more draws. The axis reaches the number of draws, the ESS of independent draws.
 */
export function essSvg(rows: readonly EssRow[], chains: number, draws: number, width = 760): string {
  const minimum = minimumEss(chains);
  const top = Math.max(draws, minimum, ...rows.flatMap((r) => [r.bulk, r.tail]).filter(Number.isFinite));
  const layout = rowLayout(rows.map((r) => r.name), [0, top * 1.02], width, LEGEND_COLUMN);
  const f = layout.frame;
  const bar = ROW_HEIGHT * 0.36;
  const bars = (value: (r: EssRow) => number, offset: number): string =>
    rows
      .map((r, i) => {
        const v = value(r);
        if (!Number.isFinite(v)) return "";
        return `M${px(f.left)} ${px(layout.rowY(i) + offset)}H${px(f.x.at(Math.max(0, v)))}v${px(bar)}H${px(f.left)}z`;
      })
      .join("");
  const flagged = new Set(rows.filter((r) => !(r.bulk >= minimum && r.tail >= minimum)).map((r) => r.name));
  const line = px(f.x.at(minimum));
  const lx = f.right + 12;
  const legend = [
    `<rect x="${px(lx)}" y="${px(f.top)}" width="12" height="10" fill="${BULK}"/><text class="legend" x="${px(lx + 18)}" y="${px(f.top + 9)}">bulk-ESS</text>`,
    `<rect x="${px(lx)}" y="${px(f.top + 16)}" width="12" height="10" fill="${TAIL}"/><text class="legend" x="${px(lx + 18)}" y="${px(f.top + 25)}">tail-ESS</text>`,
    `<line class="expect" x1="${px(lx)}" x2="${px(lx + 12)}" y1="${px(f.top + 37)}" y2="${px(f.top + 37)}"/><text class="legend" x="${px(lx + 18)}" y="${px(f.top + 41)}">minimum ${minimum}</text>`,
  ];
  return svg(
    layout.width, layout.height, "ess",
    axes(f, { title: "Effective sample size (bulk and tail)", xLabel: `effective sample size (of ${draws} draws)`, yLabels: false, yTicks: 0 }) +
      layout.names(flagged) +
      `<path class="bulk" fill="${BULK}" d="${bars((r) => r.bulk, -bar)}"/><path class="tail" fill="${TAIL}" d="${bars((r) => r.tail, 0)}"/>` +
      `<line class="expect" x1="${line}" x2="${line}" y1="${px(f.top)}" y2="${px(f.bottom)}"/>` +
      legend.join(""),
    { params: rows.map((r) => r.name).join(",") },
  );
}
