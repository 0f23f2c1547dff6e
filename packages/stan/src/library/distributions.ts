import { add, exp, matmul, type Node, type Operand } from "@ppl/tensor";
import {
  bernoulli, bernoulliLogit, beta, betaBinomial, binomial, binomialLogit, categorical, categoricalLogit, cauchy, chiSquared,
  dirichlet, discreteUniform, exponential, expModNormal, frechet, gamma, gumbel, inverseChiSquared, inverseGamma, laplace,
  lkjCholesky, lkjCorr, logistic, logLogistic, logNormal, multinomial, multiStudentT, multiStudentTCholesky, multivariateNormal,
  multivariateNormalCholesky, multivariateNormalPrecision, negativeBinomial, negativeBinomial2, normal, orderedLogistic, orderedProbit,
  pareto, paretoType2, poisson, poissonLog, rayleigh, scaledInverseChiSquared, skewDoubleExponential, skewNormal, studentT,
  uniform, vonMises, weibull, wishart, wishartCholesky, inverseWishart, inverseWishartCholesky, betaProportion, hypergeometric,
  type Distribution,
} from "@ppl/ppl";

/** How a Stan distribution is built from its arguments, and whether its outcomes are integers. */
export interface StanDistribution {
  /** The number of arguments after the outcome. */
  readonly arity: number;
  readonly discrete: boolean;
  /** The distribution for these arguments; `outcome` gives the size of a matrix outcome (LKJ's K). */
  readonly make: (args: readonly Operand[], outcome: Node) => Distribution;
  /** What one draw of _rng is where it is not a scalar vectorized over the arguments: a vector, a matrix, or an int array. */
  readonly draw?: "int" | "vector" | "matrix" | "int_array";
}

const d = (arity: number, discrete: boolean, make: StanDistribution["make"], draw?: StanDistribution["draw"]): StanDistribution => ({ arity, discrete, make, draw });
const lastDim = (x: Node) => x.shape[x.shape.length - 1]!;

/**
 * Stan's distributions by name (the name before _lpdf/_lpmf, or after ~), mapped onto the
 * toolkit's families with Stan's parameterisations (packages/ppl/README.md lists them).
 */
export const DISTRIBUTIONS: Readonly<Record<string, StanDistribution>> = {
  normal: d(2, false, ([m, s]) => normal(m!, s!)),
  std_normal: d(0, false, () => normal(0, 1)),
  student_t: d(3, false, ([n, m, s]) => studentT(n!, m!, s!)),
  cauchy: d(2, false, ([m, s]) => cauchy(m!, s!)),
  double_exponential: d(2, false, ([m, s]) => laplace(m!, s!)),
  logistic: d(2, false, ([m, s]) => logistic(m!, s!)),
  lognormal: d(2, false, ([m, s]) => logNormal(m!, s!)),
  exponential: d(1, false, ([b]) => exponential(b!)),
  gamma: d(2, false, ([a, b]) => gamma(a!, b!)),
  inv_gamma: d(2, false, ([a, b]) => inverseGamma(a!, b!)),
  beta: d(2, false, ([a, b]) => beta(a!, b!)),
  beta_proportion: d(2, false, ([m, k]) => betaProportion(m!, k!)),
  uniform: d(2, false, ([a, b]) => uniform(a!, b!)),
  weibull: d(2, false, ([a, s]) => weibull(a!, s!)),
  chi_square: d(1, false, ([n]) => chiSquared(n!)),
  inv_chi_square: d(1, false, ([n]) => inverseChiSquared(n!)),
  scaled_inv_chi_square: d(2, false, ([n, s]) => scaledInverseChiSquared(n!, s!)),
  skew_normal: d(3, false, ([x, o, a]) => skewNormal(x!, o!, a!)),
  skew_double_exponential: d(3, false, ([m, s, t]) => skewDoubleExponential(m!, s!, t!)),
  exp_mod_normal: d(3, false, ([m, s, l]) => expModNormal(m!, s!, l!)),
  gumbel: d(2, false, ([m, b]) => gumbel(m!, b!)),
  frechet: d(2, false, ([a, s]) => frechet(a!, s!)),
  rayleigh: d(1, false, ([s]) => rayleigh(s!)),
  pareto: d(2, false, ([y, a]) => pareto(y!, a!)),
  pareto_type_2: d(3, false, ([m, l, a]) => paretoType2(m!, l!, a!)),
  loglogistic: d(2, false, ([a, b]) => logLogistic(a!, b!)),
  von_mises: d(2, false, ([m, k]) => vonMises(m!, k!)),
  bernoulli: d(1, true, ([p]) => bernoulli(p!)),
  bernoulli_logit: d(1, true, ([a]) => bernoulliLogit(a!)),
  binomial: d(2, true, ([n, p]) => binomial(n!, p!)),
  binomial_logit: d(2, true, ([n, a]) => binomialLogit(n!, a!)),
  beta_binomial: d(3, true, ([n, a, b]) => betaBinomial(n!, a!, b!)),
  hypergeometric: d(3, true, ([n, a, b]) => hypergeometric(n!, a!, b!)),
  poisson: d(1, true, ([l]) => poisson(l!)),
  poisson_log: d(1, true, ([a]) => poissonLog(a!)),
  neg_binomial: d(2, true, ([a, b]) => negativeBinomial(a!, b!)),
  neg_binomial_2: d(2, true, ([m, p]) => negativeBinomial2(m!, p!)),
  neg_binomial_2_log: d(2, true, ([e, p]) => negativeBinomial2Log(e!, p!)),
  discrete_range: d(2, true, ([l, u]) => discreteUniform(l!, u!)),
  categorical: d(1, true, ([t]) => categorical(t!), "int"),
  categorical_logit: d(1, true, ([b]) => categoricalLogit(b!), "int"),
  ordered_logistic: d(2, true, ([e, c]) => orderedLogistic(e!, c!), "int"),
  ordered_probit: d(2, true, ([e, c]) => orderedProbit(e!, c!), "int"),
  multinomial: d(1, true, ([t]) => multinomial(t!), "int_array"),
  dirichlet: d(1, false, ([a]) => dirichlet(a!), "vector"),
  multi_normal: d(2, false, ([m, s]) => multivariateNormal(m!, s!), "vector"),
  multi_normal_prec: d(2, false, ([m, p]) => multivariateNormalPrecision(m!, p!), "vector"),
  multi_normal_cholesky: d(2, false, ([m, l]) => multivariateNormalCholesky(m!, l!), "vector"),
  multi_student_t: d(3, false, ([n, m, s]) => multiStudentT(n!, m!, s!), "vector"),
  multi_student_t_cholesky: d(3, false, ([n, m, l]) => multiStudentTCholesky(n!, m!, l!), "vector"),
  lkj_corr_cholesky: d(1, false, ([eta], x) => lkjCholesky(lastDim(x), eta!), "matrix"),
  lkj_corr: d(1, false, ([eta], x) => lkjCorr(lastDim(x), eta!), "matrix"),
  wishart: d(2, false, ([n, s]) => wishart(n!, s!), "matrix"),
  wishart_cholesky: d(2, false, ([n, l]) => wishartCholesky(n!, l!), "matrix"),
  inv_wishart: d(2, false, ([n, s]) => inverseWishart(n!, s!), "matrix"),
  inv_wishart_cholesky: d(2, false, ([n, l]) => inverseWishartCholesky(n!, l!), "matrix"),
  // The GLM forms: the linear predictor alpha + x * beta, then the family.
  normal_id_glm: d(4, false, ([x, a, b, s]) => normal(add(a!, matmul(x!, b!)), s!)),
  bernoulli_logit_glm: d(3, true, ([x, a, b]) => bernoulliLogit(add(a!, matmul(x!, b!)))),
  poisson_log_glm: d(3, true, ([x, a, b]) => poissonLog(add(a!, matmul(x!, b!)))),
  neg_binomial_2_log_glm: d(4, true, ([x, a, b, p]) => negativeBinomial2Log(add(a!, matmul(x!, b!)), p!)),
};

// neg_binomial_2_log(eta, phi) is neg_binomial_2(exp(eta), phi).
function negativeBinomial2Log(eta: Operand, phi: Operand): Distribution {
  return negativeBinomial2(exp(eta), phi);
}

/** The suffixes of a distribution function's name and what each computes. */
export const DENSITY_SUFFIX = /^(.*)_(lpdf|lupdf|lpmf|lupmf|lcdf|lccdf|cdf|rng)$/;
