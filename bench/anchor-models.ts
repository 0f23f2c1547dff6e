/** The models of ../shared/anchors/numpyro_bench.py, written with this toolkit (same priors and likelihoods). */
import { add, cast, gather, matmul, mul } from "../packages/tensor/src/index.ts";
import { bernoulliLogit, data, halfNormal, model, normal } from "../packages/ppl/src/index.ts";

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

/**
 * The hierarchical regression of the NumPyro anchor (`hier`): varying intercepts, non-centred, with a
 * group-level predictor u: a = mu + gamma·u + sigma_a·a_raw, y ~ N(a[g] + b·x, sigma_y); g is 0-based.
 */
export const anchorHier = model({
  name: "hier_varying_intercepts",
  data: {
    N: data.int({ lower: 1 }), J: data.int({ lower: 1 }),
    g: data.intVector("N", { lower: 0 }), x: data.vector("N"), u: data.vector("J"), y: data.vector("N"),
  },
  build(m, d) {
    const mu = m.param("mu", normal(0, 5));
    const gamma = m.param("gamma", normal(0, 5));
    const b = m.param("b", normal(0, 5));
    const sigmaA = m.param("sigma_a", halfNormal(2));
    const sigmaY = m.param("sigma_y", halfNormal(2));
    const aRaw = m.param("a_raw", normal(0, 1), { shape: [d.J] });
    const a = add(add(mu, mul(gamma, d.u)), mul(sigmaA, aRaw));
    m.observe(d.y, normal(add(gather(a, cast(d.g, "i32")), mul(b, d.x)), sigmaY));
  },
});
