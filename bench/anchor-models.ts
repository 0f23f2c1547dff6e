/** The models of ../shared/anchors/numpyro_bench.py, written with this toolkit (same priors and likelihoods). */
import { add, cast, gather, matmul, mul } from "../packages/tensor/src/index.ts";
import { bernoulliLogit, compileModel, data, halfNormal, model, normal, type CompiledModel } from "../packages/ppl/src/index.ts";
import randomWalk from "../examples/random_walk.ts";

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

// Synthetic data of the anchors' shapes, for the benchmarks of kernels (their plans depend on the
// shapes, not on the values): a fixed wave, every group of hier holding N / J rows.
const wave = (i: number) => Math.sin(i * 0.7) * 0.5;

/** The logistic anchor on synthetic data: N rows of D predictors. */
export function syntheticLogistic(N: number, D: number): CompiledModel {
  const X = Array.from({ length: N }, (_, n) => Array.from({ length: D }, (_, d) => wave(n * D + d)));
  return compileModel(anchorLogistic, { N, D, X, y: Array.from({ length: N }, (_, n) => n % 2) });
}

/** The hierarchical anchor on synthetic data: N rows in J groups. */
export function syntheticHier(N: number, J: number): CompiledModel {
  return compileModel(anchorHier, {
    N, J,
    g: Array.from({ length: N }, (_, n) => n % J),
    x: Array.from({ length: N }, (_, n) => wave(n)),
    u: Array.from({ length: J }, (_, j) => wave(j)),
    y: Array.from({ length: N }, (_, n) => wave(3 * n)),
  });
}

/**
 * examples/random_walk.ts (not one of NumPyro's anchors) on synthetic data: T steps of a slow
 * wave. Its gradient is a reverse cumulative sum over the T steps, the shape of long time series.
 */
export function syntheticWalk(T: number): CompiledModel {
  return compileModel(randomWalk, { T, y: Array.from({ length: T }, (_, t) => Math.sin(t * 1e-3) * 3 + wave(t)) });
}
