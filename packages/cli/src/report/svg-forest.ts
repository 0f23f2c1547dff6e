import { THRESHOLDS } from "@ppl/ppl";
import { rowLayout } from "./svg-rows.ts";
import { axes, extent, padded, px, svg } from "./svg.ts";

/** One parameter of the forest plot: its summary's median and 90% interval, its 50% interval (the pooled draws' 25% and 75% quantiles), R-hat. */
export interface ForestRow {
  readonly name: string;
  readonly q25: number;
  readonly q75: number;
  readonly q5: number;
  readonly median: number;
  readonly q95: number;
  readonly rhat: number;
}

const RHAT_COLUMN = 64;

/**
 * A forest plot of every parameter on one axis: the median as a dot, the central 50% interval as
 * a thick bar and the 90% interval (the summary's q5–q95) as a thin line, with each parameter's
 * R-hat in a column on the right, in red above the threshold.
 */
export function forestSvg(rows: readonly ForestRow[], width = 760): string {
  const finite = rows.flatMap((r) => [r.q5, r.q95]).filter(Number.isFinite);
  const layout = rowLayout(rows.map((r) => r.name), padded(extent(finite), 0.03), width, RHAT_COLUMN);
  const f = layout.frame;
  const thin: string[] = [];
  const thick: string[] = [];
  const dots: string[] = [];
  const rhats: string[] = [];
  rows.forEach((r, i) => {
    const y = px(layout.rowY(i));
    if (Number.isFinite(r.q5) && Number.isFinite(r.q95)) thin.push(`M${px(f.x.at(r.q5))} ${y}H${px(f.x.at(r.q95))}`);
    const { q25, q75 } = r;
    if (Number.isFinite(q25) && Number.isFinite(q75)) thick.push(`M${px(f.x.at(q25))} ${y}H${px(f.x.at(q75))}`);
    if (Number.isFinite(r.median)) dots.push(`M${px(f.x.at(r.median))} ${y}h0`);
    const bad = !(r.rhat <= THRESHOLDS.rhat);
    rhats.push(`<text class="rhat${bad ? " flag" : ""}" x="${px(f.right + RHAT_COLUMN - 8)}" y="${y}" text-anchor="end" dominant-baseline="middle">${Number.isFinite(r.rhat) ? r.rhat.toFixed(3) : "NA"}</text>`);
  });
  const flagged = new Set(rows.filter((r) => !(r.rhat <= THRESHOLDS.rhat)).map((r) => r.name));
  const header = `<text class="legend" x="${px(f.right + RHAT_COLUMN - 8)}" y="${px(f.top - 7)}" text-anchor="end">R-hat</text>`;
  return svg(
    layout.width, layout.height, "forest",
    axes(f, { title: "Medians, 50% and 90% intervals", xLabel: "value", yLabels: false, yTicks: 0 }) +
      layout.names(flagged) +
      `<path class="interval90" d="${thin.join("")}"/><path class="interval50" d="${thick.join("")}"/><path class="median" d="${dots.join("")}"/>` +
      header + rhats.join(""),
    { params: rows.map((r) => r.name).join(",") },
  );
}
