import { add, and, div, ge, gt, le, mul, select, square, sub, type Node, type Operand } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkOptions, checkParam, full, isNonNegativeInt, isPositive, lbeta, lchoose, restrict } from "./helpers.ts";
import { countAxis, logMassSum } from "./mass-sums.ts";
import { sampleScalar } from "./sampling.ts";
import { betaVariate, binomialVariate } from "./variates.ts";

/** Options of betaBinomial. */
export interface BetaBinomialOptions {
  /**
   * An upper bound on n where n is a node (data), for lcdf and lccdf, which sum the mass function
   * over 0..maxN; an n above it gives NaN there. Not needed when n is a number.
   */
  readonly maxN?: number;
}

/**
 * BetaBinomial(n, a, b): Binomial(n, p) with p ~ Beta(a, b). Its lcdf and lccdf (Stan's
 * beta_binomial_lcdf and _lccdf) sum the mass function over the counts on each side of y.
 */
export function betaBinomial(n: Operand, a: Operand, b: Operand, opts: BetaBinomialOptions = {}): Distribution {
  checkOptions("betaBinomial", opts, ["maxN"]);
  checkParam("betaBinomial", "n", n, isNonNegativeInt, "a non-negative integer");
  if (opts.maxN !== undefined && !isNonNegativeInt(opts.maxN)) {
    throw new ModelError(`betaBinomial: maxN must be a non-negative integer, got ${opts.maxN}; give the largest n in the data`);
  }
  checkParam("betaBinomial", "a", a, isPositive, "positive");
  checkParam("betaBinomial", "b", b, isPositive, "positive");
  const batchShape = batchShapeOf("betaBinomial", { n, a, b });
  const s = () => add(a, b);
  return {
    name: "beta_binomial",
    support: { kind: "int_interval", lower: 0, upper: n },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (k) => restrict(and(ge(k, 0), le(k, n)), sub(add(lchoose(n, k), lbeta(add(k, a), add(sub(n, k), b))), lbeta(a, b))),
    lcdf: (k) => betaBinomialLogCdf(k, n, a, b, opts.maxN, true),
    lccdf: (k) => betaBinomialLogCdf(k, n, a, b, opts.maxN, false),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [n, a, b], bindings, (r, [m, p, q]) => binomialVariate(r, m!, betaVariate(r, p!, q!))),
    mean: () => full(div(mul(n, a), s()), batchShape),
    variance: () => full(div(mul(mul(mul(n, a), b), add(s(), n)), mul(square(s()), add(s(), 1))), batchShape),
  };
}

// The table runs over 0..n for a number n, over 0..maxN for a node; where a node n exceeds maxN the
// sum would miss counts, so it is NaN there rather than wrong.
function betaBinomialLogCdf(k: Operand, n: Operand, a: Operand, b: Operand, maxN: number | undefined, lower: boolean): Node {
  const top = typeof n === "number" ? n : maxN;
  if (top === undefined) {
    throw new ModelError(
      "betaBinomial: lcdf and lccdf (truncation, censoring) sum the mass function over 0..n, so they need n as a number " +
        "or a bound on it; pass the largest n in the data: betaBinomial(n, a, b, { maxN })",
    );
  }
  const [na, aa, ba] = [countAxis(n), countAxis(a), countAxis(b)];
  const logMass = (j: Node) => sub(add(lchoose(na, j), lbeta(add(j, aa), add(sub(na, j), ba))), lbeta(aa, ba));
  const sum = logMassSum(k, logMass, top + 1, n, lower);
  return typeof n === "number" ? sum : select(gt(n, top), NaN, sum);
}
