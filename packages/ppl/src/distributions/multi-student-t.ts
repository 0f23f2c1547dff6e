import {
  add, broadcastTo, cholesky, diagonal, div, gt, lgamma, log, log1p, mul, select, square, sub, sum, type Node, type Operand,
} from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { checkParam, isPositive, LOG_PI, logOf, checkOperand } from "./helpers.ts";
import { lowerTimes } from "./dense.ts";
import { solveVectors, squareMatrix } from "./matrix-numbers.ts";
import { sampleEvents } from "./sampling.ts";
import { gammaVariate } from "./variates.ts";

/** Stan's multi_student_t(nu, mu, Sigma): multivariate Student's t with nu degrees of freedom, location mu (last axis K) and scale matrix Sigma [K,K]. */
export function multiStudentT(nu: Operand, mu: Operand, sigma: Operand): Distribution {
  checkOperand("multiStudentT", "nu", nu);
  checkOperand("multiStudentT", "mu", mu);
  checkOperand("multiStudentT", "sigma", sigma);
  return multiT("multi_student_t", "multiStudentT", nu, mu, lift(sigma), false);
}

/** Stan's multi_student_t_cholesky(nu, mu, L): multivariate Student's t whose scale matrix is L Lᵀ, for a lower Cholesky factor L. */
export function multiStudentTCholesky(nu: Operand, mu: Operand, L: Operand): Distribution {
  checkOperand("multiStudentTCholesky", "nu", nu);
  checkOperand("multiStudentTCholesky", "mu", mu);
  checkOperand("multiStudentTCholesky", "L", L);
  return multiT("multi_student_t_cholesky", "multiStudentTCholesky", nu, mu, lift(L), true);
}

function multiT(name: string, fn: string, nu: Operand, mu: Operand, m: Node, isFactor: boolean): Distribution {
  checkParam(fn, "nu", nu, isPositive, "positive");
  const k = squareMatrix(fn, isFactor ? "L" : "Sigma", m);
  if (lift(nu).rank !== 0) throw new ModelError(`${fn}: nu must be a scalar, got shape [${lift(nu).shape.join(",")}]`);
  const mun = lift(mu);
  if (mun.rank > 0 && mun.shape[mun.rank - 1] !== k && mun.shape[mun.rank - 1] !== 1) {
    throw new ModelError(`${fn}: mu has last axis ${mun.shape[mun.rank - 1]} but the scale matrix is ${k}×${k}; make them agree`);
  }
  const batchShape = mun.rank > 0 ? mun.shape.slice(0, -1) : [];
  const meanNode = broadcastTo(mun, [...batchShape, k]);
  const L = isFactor ? m : cholesky(m);
  return {
    name,
    support: { kind: "real" },
    discrete: false,
    batchShape,
    eventShape: [k],
    logpdf: (x) => {
      const quad = sum(square(solveVectors(L, sub(x, meanNode))), -1);
      const half = mul(0.5, add(nu, k));
      const norm = sub(sub(lgamma(half), lgamma(mul(0.5, nu))), mul(0.5 * k, add(logOf(nu), LOG_PI)));
      return sub(sub(norm, sum(log(diagonal(L)), -1)), mul(half, log1p(div(quad, nu))));
    },
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, batchShape, [k], [meanNode, L, nu], [1, 2, 0], bindings, (r, [mv, f, n], out, o) => {
        // mu + L z / √(w/nu), w ~ χ²(nu): a normal scale mixture.
        const z = Float64Array.from({ length: k }, () => r.normal());
        const x = lowerTimes(f!, z, k);
        const scale = 1 / Math.sqrt((2 * gammaVariate(r, n![0]! / 2)) / n![0]!);
        for (let i = 0; i < k; i++) out[o + i] = mv![i]! + scale * x[i]!;
      }),
    // Undefined moments (nu ≤ 1 for the mean, nu ≤ 2 for the variance) come out as NaN and +∞.
    mean: () => select(gt(nu, 1), meanNode, NaN),
    variance: () => {
      const diag = isFactor ? sum(square(m), -1) : diagonal(m);
      return broadcastTo(select(gt(nu, 2), mul(div(nu, sub(nu, 2)), diag), Infinity), [...batchShape, k]);
    },
  };
}

