import { add, lgamma, mul, sub, sum, type Operand } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import { vectorParam } from "./categorical.ts";
import type { Distribution } from "./distribution.ts";
import { xlogy, checkOperand, checkCount } from "./helpers.ts";
import { sampleEvents } from "./sampling.ts";
import { binomialVariate } from "./variates.ts";

/** Multinomial over count vectors with category probabilities `probs` (last axis K); `n`, the number of trials, is needed only to sample. */
export function multinomial(probs: Operand, n?: number): Distribution {
  checkOperand("multinomial", "probs", probs);
  if (n !== undefined) checkCount("multinomial", "n", n);
  const p = vectorParam("multinomial", "probs", probs);
  const k = p.shape[p.rank - 1]!;
  const batchShape = p.shape.slice(0, -1);
  return {
    name: "multinomial",
    support: { kind: "counts" },
    discrete: true,
    batchShape,
    eventShape: [k],
    logpdf: (x) => add(sub(lgamma(add(sum(x, -1), 1)), sum(lgamma(add(x, 1)), -1)), sum(xlogy(x, p), -1)),
    sample: (rng, shape = [], bindings) => {
      if (n === undefined) throw new ModelError("multinomial: sampling needs the number of trials; call multinomial(probs, n)");
      return sampleEvents(rng, shape, batchShape, [k], [p], [1], bindings, (r, [w], out, o) => {
        // Sequential binomials: each category takes its share of the trials still left.
        let left = n, rest = 1;
        for (let i = 0; i < k; i++) {
          const c = i === k - 1 ? left : binomialVariate(r, left, rest > 0 ? Math.min(1, w![i]! / rest) : 0);
          out[o + i] = c;
          left -= c;
          rest -= w![i]!;
        }
      });
    },
    ...(n === undefined ? {} : { mean: () => mul(p, n), variance: () => mul(mul(p, sub(1, p)), n) }),
  };
}
