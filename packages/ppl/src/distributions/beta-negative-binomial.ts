import { add, div, ge, gt, lgamma, log1mExp, mul, select, square, sub, type Node, type Operand } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkOptions, checkParam, full, isNonNegativeInt, isPositive, lbeta, NONNEGATIVE_INT, restrict } from "./helpers.ts";
import { countAxis, logMassSum } from "./mass-sums.ts";
import { sampleScalar } from "./sampling.ts";
import { betaVariate, gammaVariate, poissonVariate } from "./variates.ts";

/** Options of betaNegativeBinomial. */
export interface BetaNegativeBinomialOptions {
  /**
   * The largest count at which lcdf and lccdf are evaluated where that count is a node (censoring
   * limits in the data): they sum the mass function over 0..y, and a y above it gives NaN there.
   * Not needed for numbers (truncation bounds).
   */
  readonly maxCount?: number;
}

/**
 * Stan's beta_neg_binomial(r, alpha, beta): the failures before the r-th success when the success
 * probability is Beta(alpha, beta); log p(n) = log B(n + r, alpha + beta) − log B(r, alpha) + log Γ(n + beta) − log n! − log Γ(beta).
 */
export function betaNegativeBinomial(r: Operand, alpha: Operand, beta: Operand, opts: BetaNegativeBinomialOptions = {}): Distribution {
  checkOptions("betaNegativeBinomial", opts, ["maxCount"]);
  if (opts.maxCount !== undefined && !isNonNegativeInt(opts.maxCount)) {
    throw new ModelError(`betaNegativeBinomial: maxCount must be a non-negative integer, got ${opts.maxCount}; give the largest count the CDFs are evaluated at`);
  }
  checkParam("betaNegativeBinomial", "r", r, isPositive, "positive");
  checkParam("betaNegativeBinomial", "alpha", alpha, isPositive, "positive");
  checkParam("betaNegativeBinomial", "beta", beta, isPositive, "positive");
  const batchShape = batchShapeOf("betaNegativeBinomial", { r, alpha, beta });
  return {
    name: "beta_neg_binomial",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => restrict(ge(n, 0), bnbLogMass(n, r, alpha, beta)),
    lcdf: (n) => bnbLogCdf(n, r, alpha, beta, opts.maxCount),
    // The upper tail is infinite, so it is the complement of the sum below (it keeps its digits while
    // P(Y > n) is not tiny, which a tail decaying like a power of n stays for long).
    lccdf: (n) => log1mExp(bnbLogCdf(n, r, alpha, beta, opts.maxCount)),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [r, alpha, beta], bindings, (g, [rr, a, b]) => {
        // p ~ Beta(alpha, beta); the failures are NegBinomial(r, p), a Poisson with Gamma(r, p/(1 − p)) rate.
        const p = betaVariate(g, a!, b!);
        return poissonVariate(g, gammaVariate(g, rr!, p / (1 - p)));
      }),
    // Infinite for alpha ≤ 1 (the mean) and alpha ≤ 2 (the variance).
    mean: () => full(select(gt(alpha, 1), div(mul(r, beta), sub(alpha, 1)), Infinity), batchShape),
    variance: () =>
      full(
        select(
          gt(alpha, 2),
          div(mul(mul(mul(r, beta), add(r, sub(alpha, 1))), add(beta, sub(alpha, 1))), mul(sub(alpha, 2), square(sub(alpha, 1)))),
          Infinity,
        ),
        batchShape,
      ),
  };
}

// log P(Y ≤ n) (Stan's beta_neg_binomial_lcdf), the mass summed over 0..⌊n⌋ with a table sized by
// n (a number) or by maxCount (a node); NaN where a node n exceeds maxCount.
function bnbLogCdf(n: Operand, r: Operand, alpha: Operand, beta: Operand, maxCount: number | undefined): Node {
  const top = typeof n === "number" ? Math.max(0, Math.floor(n)) : maxCount;
  if (top === undefined) {
    throw new ModelError(
      "betaNegativeBinomial: lcdf and lccdf sum the mass function over 0..y, so a y that is a node (a censoring limit in the data) " +
        "needs a bound on it; pass the largest such y: betaNegativeBinomial(r, alpha, beta, { maxCount })",
    );
  }
  const [ra, aa, ba] = [countAxis(r), countAxis(alpha), countAxis(beta)];
  const sum = logMassSum(n, (k) => bnbLogMass(k, ra, aa, ba), top + 1, Infinity, true);
  return typeof n === "number" ? sum : select(gt(n, top), NaN, sum);
}

// log p(n) for n ≥ 0.
function bnbLogMass(n: Operand, r: Operand, alpha: Operand, beta: Operand): Node {
  return sub(sub(add(sub(lbeta(add(n, r), add(alpha, beta)), lbeta(r, alpha)), lgamma(add(n, beta))), lgamma(add(n, 1))), lgamma(beta));
}
