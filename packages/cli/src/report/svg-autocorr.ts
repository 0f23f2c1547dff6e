import { autocovariance } from "@ppl/ppl";
import { axes, chainColor, frame, linePath, svg } from "./svg.ts";

/** Lags shown: enough to see the decay of a slowly mixing chain, few enough to stay readable. */
export function maxLag(n: number): number {
  return Math.max(1, Math.min(100, Math.floor(n / 2)));
}

/** The autocorrelation of each chain's draws at lags 0..maxLag, one line per chain. */
export function autocorrSvg(name: string, chains: readonly ArrayLike<number>[], width = 260, height = 190): string {
  const n = chains[0]?.length ?? 0;
  const lags = maxLag(n);
  const f = frame([0, lags], [-0.25, 1], width, height, { left: 48, right: 16, top: 22, bottom: 38 });
  const xs = Array.from({ length: lags + 1 }, (_, t) => f.x.at(t));
  const lines = chains.map((chain, c) => {
    const acov = autocovariance(chain);
    const rho = Array.from({ length: lags + 1 }, (_, t) => (acov[0]! > 0 ? Math.max(-0.25, acov[t]! / acov[0]!) : t === 0 ? 1 : 0));
    return `<path class="chain" stroke="${chainColor(c)}" d="${linePath(xs, rho.map((r) => f.y.at(r)))}"/>`;
  });
  const zero = f.y.at(0);
  return svg(
    width, height, "autocorr",
    axes(f, { title: `${name} — autocorrelation`, xLabel: "lag", yLabel: "autocorrelation", yTicks: 3, xTicks: 4 }) + `<line class="zero" x1="${f.left}" x2="${f.right}" y1="${zero}" y2="${zero}"/>` + lines.join(""),
    { param: name },
  );
}
