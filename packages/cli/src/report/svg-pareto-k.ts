import { PARETO_K_THRESHOLDS } from "@ppl/ppl";
import { axes, frame, px, svg, thinIndices } from "./svg.ts";

const GOOD = "#1f77b4";
/** Most points drawn below the 0.7 line: more than a panel's pixels, and the file stays small for any N. */
const MAX_GOOD_POINTS = 5000;
const BAD = "#d62728";

/**
 * The Pareto k of each observation's PSIS weights against its index (loo's plot of pareto_k):
 * above 0.7 the importance sampling estimate of that observation's leave-one-out predictive is
 * unreliable (an influential observation, or a misspecified model); the title counts them.
 */
export function paretoKSvg(k: ArrayLike<number>, width = 520, height = 240): string {
  const n = k.length;
  const limit = PARETO_K_THRESHOLDS.ok;
  const values = Array.from(k, (v) => (Number.isFinite(v) ? v : NaN));
  const above = values.filter((v) => v > limit).length;
  const finite = values.filter(Number.isFinite);
  // A loop, not Math.min(...finite): a spread of 100 000 observations overflows the call stack.
  const lo = finite.reduce((a, v) => Math.min(a, v), -0.1) - 0.05;
  const hi = finite.reduce((a, v) => Math.max(a, v), 1) + 0.05;
  const f = frame([0.5, n + 0.5], [lo, hi], width, height, { left: 52, right: 16, top: 22, bottom: 38 });
  // Every k above the line is drawn; those below, past MAX_GOOD_POINTS, evenly thinned (they say only that all is well).
  const good = new Set(thinIndices(n, MAX_GOOD_POINTS));
  const dots = (pred: (v: number) => boolean, all: boolean): string =>
    values.map((v, i) => (Number.isFinite(v) && pred(v) && (all || good.has(i)) ? `M${px(f.x.at(i + 1))} ${px(f.y.at(v))}h0` : "")).join("");
  const line = (v: number, cls: string): string => `<line class="${cls}" x1="${px(f.left)}" x2="${px(f.right)}" y1="${px(f.y.at(v))}" y2="${px(f.y.at(v))}"/>`;
  const r = n > 200 ? 3 : 5;
  return svg(
    width, height, "pareto-k",
    axes(f, { title: `Pareto k by observation: ${above} of ${n} above ${limit}`, xLabel: "observation", yLabel: "Pareto k", xTicks: Math.min(8, n), yTicks: 4 }) +
      line(limit, "expect") + line(PARETO_K_THRESHOLDS.good, "grid") +
      `<path class="k-good" stroke="${GOOD}" stroke-opacity="0.7" stroke-width="${r}" stroke-linecap="round" d="${dots((v) => v <= limit, false)}"/>` +
      (above > 0 ? `<path class="k-bad" stroke="${BAD}" stroke-width="${r + 1}" stroke-linecap="round" d="${dots((v) => v > limit, true)}"/>` : ""),
    { above: String(above), observations: String(n) },
  );
}
