import { dkwBand, ksUniform } from "@ppl/ppl";
import { axes, frame, linePath, px, svg } from "./svg.ts";

const BAND = "#1f77b4";

/**
 * LOO-PIT as the ECDF of the PIT values minus the uniform CDF (the "ECDF difference" plot of
 * Säilynoja et al. 2022), with the 95% simultaneous band of a uniform sample of that size (the
 * Dvoretzky–Kiefer–Wolfowitz bound, a little wider than the exact band). A curve that leaves the
 * band says the leave-one-out predictive distributions are miscalibrated: an S shape above then
 * below zero is too narrow, below then above too wide, one sign throughout biased.
 */
export function looPitSvg(name: string, pit: ArrayLike<number>, width = 520, height = 240): string {
  const n = pit.length;
  const band = dkwBand(n, 0.05);
  const sorted = Float64Array.from(pit).sort();
  const ks = ksUniform(sorted);
  const span = Math.max(band, ks) * 1.15;
  const f = frame([0, 1], [-span, span], width, height, { left: 52, right: 150, top: 22, bottom: 38 });
  // The ECDF minus u is a sawtooth: a jump of 1/n at each value, a slope of -1 between.
  const xs: number[] = [f.x.at(0)];
  const ys: number[] = [f.y.at(0)];
  sorted.forEach((u, i) => {
    xs.push(f.x.at(u), f.x.at(u));
    ys.push(f.y.at(i / n - u), f.y.at((i + 1) / n - u));
  });
  xs.push(f.x.at(1));
  ys.push(f.y.at(0));
  const bandPath = `M${px(f.left)} ${px(f.y.at(band))}H${px(f.right)}V${px(f.y.at(-band))}H${px(f.left)}z`;
  const zero = px(f.y.at(0));
  const outside = ks > band;
  const lx = f.right + 12;
  const legend = [
    `<rect x="${px(lx)}" y="${px(f.top)}" width="14" height="10" fill="${BAND}" fill-opacity="0.15"/><text class="legend" x="${px(lx + 20)}" y="${px(f.top + 9)}">95% band, uniform</text>`,
    `<text class="legend${outside ? " flag" : ""}" x="${px(lx)}" y="${px(f.top + 30)}">largest gap: ${ks.toFixed(3)}</text>`,
    `<text class="legend" x="${px(lx)}" y="${px(f.top + 46)}">${outside ? "outside the band" : "inside the band"}</text>`,
  ];
  return svg(
    width, height, "loo-pit",
    axes(f, { titleWidth: width - f.left - 8, title: `${name} — LOO-PIT: ECDF − uniform (${n} observations)`, xLabel: "LOO-PIT value", yLabel: "ECDF − u", xTicks: 5, yTicks: 3 }) +
      `<path class="band" fill="${BAND}" fill-opacity="0.15" d="${bandPath}"/>` +
      `<line class="zero" x1="${px(f.left)}" x2="${px(f.right)}" y1="${zero}" y2="${zero}"/>` +
      `<path class="ecdf" fill="none" stroke="#111" stroke-width="1.5" d="${linePath(xs, ys)}"/>` +
      legend.join(""),
    { param: name, ks: ks.toFixed(4), band: band.toFixed(4) },
  );
}
