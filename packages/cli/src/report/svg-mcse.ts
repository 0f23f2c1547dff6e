import { ROW_HEIGHT, rowLayout } from "./svg-rows.ts";
import { axes, px, svg } from "./svg.ts";

/** One parameter's Monte Carlo standard errors and posterior sd. */
export interface McseRow {
  readonly name: string;
  readonly mcseMean: number;
  readonly mcseSd: number;
  readonly sd: number;
}

const MEAN = "#2ca02c";
const SD = "#9467bd";
const LEGEND_COLUMN = 120;

/**
 * The Monte Carlo standard errors of each parameter's mean and sd as bars, each divided by the
 * parameter's posterior sd so that parameters on different scales share one axis: a bar of 0.1
 * means the estimate's own noise is a tenth of the posterior's width. The exact values are in
 * the summary table.
 */
export function mcseSvg(rows: readonly McseRow[], width = 760): string {
  const relative = (v: number, r: McseRow): number => (r.sd > 0 ? v / r.sd : NaN);
  const values = rows.flatMap((r) => [relative(r.mcseMean, r), relative(r.mcseSd, r)]).filter(Number.isFinite);
  const layout = rowLayout(rows.map((r) => r.name), [0, Math.max(1e-3, ...values) * 1.05], width, LEGEND_COLUMN);
  const f = layout.frame;
  const bar = ROW_HEIGHT * 0.36;
  const bars = (value: (r: McseRow) => number, offset: number): string =>
    rows
      .map((r, i) => {
        const v = relative(value(r), r);
        return Number.isFinite(v) ? `M${px(f.left)} ${px(layout.rowY(i) + offset)}H${px(f.x.at(v))}v${px(bar)}H${px(f.left)}z` : "";
      })
      .join("");
  const lx = f.right + 12;
  const legend = [
    `<rect x="${px(lx)}" y="${px(f.top)}" width="12" height="10" fill="${MEAN}"/><text class="legend" x="${px(lx + 18)}" y="${px(f.top + 9)}">MCSE of mean</text>`,
    `<rect x="${px(lx)}" y="${px(f.top + 16)}" width="12" height="10" fill="${SD}"/><text class="legend" x="${px(lx + 18)}" y="${px(f.top + 25)}">MCSE of sd</text>`,
  ];
  return svg(
    layout.width, layout.height, "mcse",
    axes(f, { title: "Monte Carlo standard error, relative to the posterior sd", xLabel: "MCSE / posterior sd", yLabels: false, yTicks: 0, xTicks: 5 }) +
      layout.names() +
      `<path class="mcse-mean" fill="${MEAN}" d="${bars((r) => r.mcseMean, -bar)}"/><path class="mcse-sd" fill="${SD}" d="${bars((r) => r.mcseSd, 0)}"/>` +
      legend.join(""),
    { params: rows.map((r) => r.name).join(",") },
  );
}
