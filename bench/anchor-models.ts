/** The models of ../shared/anchors/numpyro_bench.py, written with this toolkit (same priors and likelihoods). */
import { add, matmul } from "../packages/tensor/src/index.ts";
import { bernoulliLogit, data, model, normal } from "../packages/ppl/src/index.ts";

/** Logistic regression as the NumPyro anchor defines it: beta ~ N(0,1)^D, alpha ~ N(0,1), y ~ Bernoulli(logit = X·beta + alpha). */
export const anchorLogistic = model({
  name: "logistic_regression",
  data: { N: data.int({ lower: 1 }), D: data.int({ lower: 1 }), X: data.matrix("N", "D"), y: data.intVector("N", { lower: 0, upper: 1 }) },
  build(m, d) {
    const beta = m.param("beta", normal(0, 1), { shape: [d.D] });
    const alpha = m.param("alpha", normal(0, 1));
    m.observe(d.y, bernoulliLogit(add(matmul(d.X, beta), alpha)));
  },
});
