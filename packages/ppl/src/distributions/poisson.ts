import { add, exp, floor, gammaP, gammaQ, ge, lgamma, log, lpdfSum, mul, select, sub, type Node, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, NONNEGATIVE_INT, restrict, restrictAll, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { poissonVariate } from "./variates.ts";

/** Poisson with rate lambda ≥ 0. */
export function poisson(rate: Operand): Distribution {
  checkParam("poisson", "rate", rate, (v) => v >= 0 && Number.isFinite(v), "non-negative and finite");
  const batchShape = batchShapeOf("poisson", { rate });
  return {
    name: "poisson",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (k) => restrict(ge(k, 0), sub(sub(xlogy(k, rate), rate), lgamma(add(k, 1)))),
    lcdf: (k) => poissonLogCdf(k, rate).lower,
    lccdf: (k) => poissonLogCdf(k, rate).upper,
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [rate], bindings, (r, [l]) => poissonVariate(r, l!)),
    mean: () => full(rate, batchShape),
    variance: () => full(rate, batchShape),
  };
}

/** Poisson with the rate given on the log scale: log p(k) = k·eta − exp(eta) − log k!. */
export function poissonLog(logRate: Operand): Distribution {
  checkParam("poissonLog", "logRate", logRate, isFiniteNumber, "finite");
  const batchShape = batchShapeOf("poissonLog", { logRate });
  return {
    name: "poisson_log",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (k) => restrict(ge(k, 0), sub(sub(mul(k, logRate), exp(logRate)), lgamma(add(k, 1)))),
    // The partial y − e^eta reuses the value's e^eta; Σ log k! is one sum of data.
    logpdfSum: (k) => restrictAll(ge(k, 0), lpdfSum("poisson_log", k, logRate)),
    lcdf: (k) => poissonLogCdf(k, exp(logRate)).lower,
    lccdf: (k) => poissonLogCdf(k, exp(logRate)).upper,
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [logRate], bindings, (r, [e]) => poissonVariate(r, Math.exp(e!))),
    mean: () => full(exp(logRate), batchShape),
    variance: () => full(exp(logRate), batchShape),
  };
}

// log P(Y ≤ k) = log Q(⌊k⌋ + 1, λ) and log P(Y > k) = log P(⌊k⌋ + 1, λ): differentiable in the rate.
function poissonLogCdf(k: Operand, rate: Operand): { lower: Node; upper: Node } {
  const kf = floor(k);
  const inside = ge(kf, 0);
  const a = add(select(inside, kf, 0), 1);
  return {
    lower: select(inside, log(gammaQ(a, rate)), -Infinity),
    upper: select(inside, log(gammaP(a, rate)), 0),
  };
}
