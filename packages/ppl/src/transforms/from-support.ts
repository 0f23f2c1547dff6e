import type { Support } from "../distributions/distribution.ts";
import { ModelError } from "../model/errors.ts";
import { choleskyCorr } from "./cholesky-corr.ts";
import { choleskyFactorCov } from "./cholesky-factor-cov.ts";
import { corrMatrix } from "./corr-matrix.ts";
import { covMatrix } from "./cov-matrix.ts";
import { real } from "./identity.ts";
import { interval, unitInterval } from "./interval.ts";
import { lower, positive } from "./lower.ts";
import { simplex } from "./simplex.ts";
import type { Constraint } from "./transform.ts";
import { upper } from "./upper.ts";

/** The constraint that maps the real line onto a continuous support (positive → exp, unit → logit, simplex → stick-breaking, covariance → L·Lᵀ, …). */
export function constraintOfSupport(support: Support, dist: string): Constraint {
  switch (support.kind) {
    case "real":
    case "any":
      return real();
    case "positive":
      return positive();
    case "unit":
      return unitInterval();
    case "lower":
      return lower(support.lower);
    case "upper":
      return upper(support.upper);
    case "interval":
      return interval(support.lower, support.upper);
    case "simplex":
      return simplex();
    case "cholesky_corr":
      return choleskyCorr();
    case "cov_matrix":
      return covMatrix();
    case "corr_matrix":
      return corrMatrix();
    case "cholesky_cov":
      return choleskyFactorCov();
    default:
      throw new ModelError(`${dist} is a distribution over integers (${support.kind}); a parameter must be continuous — observe integer data with it instead`);
  }
}

