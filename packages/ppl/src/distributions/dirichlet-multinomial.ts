import { add, div, lgamma, mul, sub, sum, type Operand } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import { vectorParam } from "./categorical.ts";
import type { Distribution } from "./distribution.ts";
import { sampleEvents } from "./sampling.ts";
import { binomialVariate, logGammaVariate } from "./variates.ts";
import { checkOperand } from "./helpers.ts";

/**
 * Stan's dirichlet_multinomial(alpha): count vectors (last axis K) whose category probabilities are
 * Dirichlet(alpha); log p(n) = log N! + log Γ(α₀) − log Γ(N + α₀) + Σ_k [log Γ(n_k + α_k) − log n_k! − log Γ(α_k)],
 * N = Σ n_k, α₀ = Σ α_k. `n`, the number of trials, is needed only to sample and for the moments.
 */
export function dirichletMultinomial(alpha: Operand, n?: number): Distribution {
  checkOperand("dirichletMultinomial", "alpha", alpha);
  const a = vectorParam("dirichletMultinomial", "alpha", alpha);
  if (n !== undefined && !(Number.isInteger(n) && n >= 0)) throw new ModelError(`dirichletMultinomial: n must be a non-negative integer, got ${n}`);
  const k = a.shape[a.rank - 1]!;
  const batchShape = a.shape.slice(0, -1);
  const a0 = () => sum(a, -1, true);
  return {
    name: "dirichlet_multinomial",
    support: { kind: "counts" },
    discrete: true,
    batchShape,
    eventShape: [k],
    logpdf: (x) => {
      const total = sum(x, -1);
      const alpha0 = sum(a, -1);
      const head = sub(add(lgamma(add(total, 1)), lgamma(alpha0)), lgamma(add(total, alpha0)));
      return add(head, sum(sub(sub(lgamma(add(x, a)), lgamma(add(x, 1))), lgamma(a)), -1));
    },
    sample: (rng, shape = [], bindings) => {
      if (n === undefined) throw new ModelError("dirichletMultinomial: sampling needs the number of trials; call dirichletMultinomial(alpha, n)");
      return sampleEvents(rng, shape, batchShape, [k], [a], [1], bindings, (r, [al], out, o) => {
        // p ~ Dirichlet(alpha) (normalized gammas, in logs), then sequential binomials as in multinomial.
        const lg = Array.from(al!, (v) => logGammaVariate(r, v));
        const m = Math.max(...lg);
        const w = lg.map((v) => Math.exp(v - m));
        let rest = w.reduce((s, v) => s + v, 0);
        let left = n;
        for (let i = 0; i < k; i++) {
          const c = i === k - 1 ? left : binomialVariate(r, left, rest > 0 ? Math.min(1, w[i]! / rest) : 0);
          out[o + i] = c;
          left -= c;
          rest -= w[i]!;
        }
      });
    },
    ...(n === undefined
      ? {}
      : {
          mean: () => mul(div(a, a0()), n),
          variance: () => {
            const p = div(a, a0());
            return div(mul(mul(mul(p, sub(1, p)), n), add(a0(), n)), add(a0(), 1));
          },
        }),
  };
}
