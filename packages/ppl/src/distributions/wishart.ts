import { add, and, cholesky, diagonal, eq, mul, reshape, square, sub, type Node, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import { lmgamma } from "./composed-special.ts";
import type { Distribution, Support } from "./distribution.ts";
import { checkParam, LOG_TWO, restrict } from "./helpers.ts";
import { bartlettFactor, isSymmetric, logdetOfFactor, matMulNumbers, outerSelf, squareMatrix, traceSolve } from "./matrix-numbers.ts";
import { sampleEvents } from "./sampling.ts";

/** Stan's wishart(nu, S): symmetric positive-definite K×K matrices, nu > K − 1 degrees of freedom, scale matrix S; mean nu·S. */
export function wishart(nu: Operand, S: Operand): Distribution {
  const s = lift(S);
  const k = checkWishart("wishart", nu, s, "S");
  const ls = cholesky(s);
  return {
    name: "wishart",
    support: COV_MATRIX,
    discrete: false,
    batchShape: [],
    eventShape: [k, k],
    logpdf: (x) => {
      const xn = lift(x);
      const lx = cholesky(xn);
      const lp = wishartLogpdfOfFactor(nu, k, lx, ls);
      // A matrix that is not symmetric, or not positive definite (a NaN factor), is outside the support.
      return restrict(and(isSymmetric(xn), eq(lp, lp)), lp);
    },
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, [], [k, k], [nu, ls], [0, 2], bindings, (r, [n, l], out, o) => {
        out.set(outerSelf(matMulNumbers(l!, bartlettFactor(r, n![0]!, k), k), k), o);
      }),
    mean: () => mul(nu, s),
    variance: () => wishartVariance(nu, s),
  };
}

/** Support of the covariance-matrix distributions: symmetric positive definite. */
export const COV_MATRIX: Support = { kind: "cov_matrix" };

/** log Wishart(L_X L_Xᵀ | nu, L_S L_Sᵀ) from the two Cholesky factors (L_X may carry batch axes). */
export function wishartLogpdfOfFactor(nu: Operand, k: number, lx: Node, ls: Node): Node {
  const norm = add(add(mul(mul(nu, 0.5 * k), LOG_TWO), mul(mul(0.5, nu), logdetOfFactor(ls))), lmgamma(k, mul(0.5, nu)));
  const body = sub(mul(mul(0.5, sub(nu, k + 1)), logdetOfFactor(lx)), mul(0.5, traceSolve(ls, lx)));
  return sub(body, norm);
}

/** Var(X_ij) = nu (S_ij² + S_ii S_jj) of a Wishart(nu, S) matrix. */
export function wishartVariance(nu: Operand, s: Node): Node {
  const d = diagonal(s);
  const k = s.shape[0]!;
  return mul(nu, add(square(s), mul(reshape(d, [k, 1]), reshape(d, [1, k]))));
}

/** Checks of the matrix-variate distributions' nu and scale matrix; returns K. */
export function checkWishart(fn: string, nu: Operand, s: Node, what: string): number {
  const k = squareMatrix(fn, what, s);
  checkParam(fn, "nu", nu, (v) => v > k - 1 && Number.isFinite(v), `greater than K − 1 = ${k - 1}`);
  if (lift(nu).rank !== 0) throw new ModelError(`${fn}: nu must be a scalar, got shape [${lift(nu).shape.join(",")}]`);
  return k;
}
