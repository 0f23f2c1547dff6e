import { add, exp, ge, lgamma, mul, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, NONNEGATIVE_INT, restrict, xlogy } from "./helpers.ts";
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
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [logRate], bindings, (r, [e]) => poissonVariate(r, Math.exp(e!))),
    mean: () => full(exp(logRate), batchShape),
    variance: () => full(exp(logRate), batchShape),
  };
}
