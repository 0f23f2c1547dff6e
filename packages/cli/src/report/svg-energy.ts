import { ebfmi } from "@ppl/ppl";
import { axes, extent, frame, histogram, px, svg } from "./svg.ts";

const MARGINAL = "#1f77b4";
const TRANSITION = "#ff7f0e";

/**
 * Betancourt's energy diagnostic: histograms of the marginal energy (E minus its chain's mean)
 * and of the energy transitions (E[n] - E[n-1]), pooled over chains. When the transition
 * distribution is much narrower than the marginal one, momentum resampling explores the energy
 * slowly (low E-BFMI) and the posterior's tails may be missed.
 */
export function energySvg(energy: readonly ArrayLike<number>[], width = 560, height = 240): string {
  const marginal: number[] = [];
  const transitions: number[] = [];
  for (const chain of energy) {
    let m = 0;
    for (let i = 0; i < chain.length; i++) m += chain[i]!;
    m /= Math.max(1, chain.length);
    for (let i = 0; i < chain.length; i++) {
      marginal.push(chain[i]! - m);
      if (i > 0) transitions.push(chain[i]! - chain[i - 1]!);
    }
  }
  const [lo, hi] = extent([...marginal, ...transitions]);
  const bins = 40;
  const hm = histogram(marginal, lo, hi, bins).map((c) => c / Math.max(1, marginal.length));
  const ht = histogram(transitions, lo, hi, bins).map((c) => c / Math.max(1, transitions.length));
  const f = frame([lo, hi], [0, Math.max(...hm, ...ht, 1e-9) * 1.05], width, height, { left: 52, right: 170, top: 22, bottom: 38 });
  const bw = (f.right - f.left) / bins;
  const bars = (h: number[], color: string, cls: string): string =>
    `<path class="${cls}" fill="${color}" fill-opacity="0.5" d="${h.map((v, b) => `M${px(f.left + b * bw)} ${px(f.bottom)}h${px(bw)}V${px(f.y.at(v))}h${px(-bw)}z`).join("")}"/>`;
  const values = energy.map((c) => ebfmi(c));
  const legend = [
    `<rect x="${px(f.right + 12)}" y="${px(f.top)}" width="12" height="12" fill="${MARGINAL}" fill-opacity="0.5"/>`,
    `<text class="legend" x="${px(f.right + 30)}" y="${px(f.top + 10)}">marginal energy</text>`,
    `<rect x="${px(f.right + 12)}" y="${px(f.top + 20)}" width="12" height="12" fill="${TRANSITION}" fill-opacity="0.5"/>`,
    `<text class="legend" x="${px(f.right + 30)}" y="${px(f.top + 30)}">energy transitions</text>`,
    ...values.map((v, c) => `<text class="legend" x="${px(f.right + 12)}" y="${px(f.top + 56 + 14 * c)}">E-BFMI chain ${c + 1}: ${Number.isFinite(v) ? v.toFixed(2) : "NA"}</text>`),
  ];
  return svg(
    width, height, "energy",
    axes(f, { title: "Energy: marginal vs transitions (E-BFMI)", xLabel: "energy − chain mean, or energy change", yLabel: "share of draws", yTicks: 3 }) + bars(hm, MARGINAL, "marginal") + bars(ht, TRANSITION, "transitions") + legend.join(""),
  );
}
