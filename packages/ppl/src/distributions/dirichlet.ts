import { add, div, lgamma, mul, square, sub, sum, type Operand } from "@ppl/tensor";
import { vectorParam } from "./categorical.ts";
import type { Distribution } from "./distribution.ts";
import { xlogy, checkOperand } from "./helpers.ts";
import { sampleEvents } from "./sampling.ts";
import { logGammaVariate } from "./variates.ts";

/** Dirichlet with concentrations `alpha` (last axis K) over the K-simplex. */
export function dirichlet(alpha: Operand): Distribution {
  checkOperand("dirichlet", "alpha", alpha);
  const a = vectorParam("dirichlet", "alpha", alpha);
  const k = a.shape[a.rank - 1]!;
  const batchShape = a.shape.slice(0, -1);
  const a0 = () => sum(a, -1, true);
  return {
    name: "dirichlet",
    support: { kind: "simplex" },
    discrete: false,
    batchShape,
    eventShape: [k],
    logpdf: (x) => add(sub(lgamma(sum(a, -1)), sum(lgamma(a), -1)), sum(xlogy(sub(a, 1), x), -1)),
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, batchShape, [k], [a], [1], bindings, (r, [al], out, o) => {
        // Normalized gammas, in logs so small concentrations do not underflow to 0/0.
        const lg = Array.from(al!, (v) => logGammaVariate(r, v));
        const m = Math.max(...lg);
        let s = 0;
        for (let i = 0; i < k; i++) s += Math.exp(lg[i]! - m);
        for (let i = 0; i < k; i++) out[o + i] = Math.exp(lg[i]! - m) / s;
      }),
    mean: () => div(a, a0()),
    variance: () => div(mul(a, sub(a0(), a)), mul(square(a0()), add(a0(), 1))),
  };
}
