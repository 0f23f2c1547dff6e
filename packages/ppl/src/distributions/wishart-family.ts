/**
 * What the four Wishart-family distributions (wishart, inv_wishart and their Cholesky-factor forms)
 * share: the checks of nu and the scale, the K×K event, and the log density over a matrix X or its
 * Cholesky factor L_X, restricted to the support, from a density of the two factors.
 */
import { add, and, cholesky, constant, diagonal, eq, log, mul, sum, type Node, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution, Support } from "./distribution.ts";
import { checkParam, LOG_TWO, restrict } from "./helpers.ts";
import { isCholeskyFactor, isSymmetric, squareMatrix } from "./matrix-numbers.ts";
import type { Rng } from "../random/rng.ts";
import { sampleEvents } from "./sampling.ts";

/** Support of the covariance-matrix distributions: symmetric positive definite. */
export const COV_MATRIX: Support = { kind: "cov_matrix" };

/** Checks of the matrix-variate distributions' nu and scale matrix; returns K. */
export function checkWishart(fn: string, nu: Operand, s: Node, what: string): number {
  const k = squareMatrix(fn, what, s);
  checkParam(fn, "nu", nu, (v) => v > k - 1 && Number.isFinite(v), `greater than K − 1 = ${k - 1}`);
  if (lift(nu).rank !== 0) throw new ModelError(`${fn}: nu must be a scalar, got shape [${lift(nu).shape.join(",")}]`);
  return k;
}

/** log of the Jacobian 2^K ∏_{k=1..K} L_kk^{K−k+1} of the map L ↦ L Lᵀ on Cholesky factors (per matrix). */
export function choleskyJacobian(l: Node, k: number): Node {
  const powers = constant(Array.from({ length: k }, (_, i) => k - i), [k]);
  return add(k * LOG_TWO, sum(mul(powers, log(diagonal(l))), -1));
}

/** One member of the Wishart family, described by what sets it apart. */
export interface WishartMember {
  /** The user-facing function's name, for errors. */
  readonly fn: string;
  /** Stan's name of the distribution. */
  readonly name: string;
  readonly nu: Operand;
  /** The scale matrix S ("matrix" form) or its Cholesky factor L_S ("cholesky" form). */
  readonly scale: Operand;
  /** Over matrices X (cov_matrix), or over their lower Cholesky factors L_X (cholesky_cov). */
  readonly form: "matrix" | "cholesky";
  /** log p(L_X L_Xᵀ | nu, L_S L_Sᵀ) from the two factors (L_X may carry batch axes). */
  readonly logpdfOfFactor: (nu: Operand, k: number, lx: Node, ls: Node) => Node;
  /** One draw in the member's form (X, or L_X) of numbers, from L_S. */
  readonly draw: (rng: Rng, nu: number, ls: Float64Array, k: number) => Float64Array;
  /** The moments, where the member offers them, given the scale S ("matrix" form). */
  readonly moments?: (s: Node, k: number) => Pick<Distribution, "mean" | "variance">;
}

/**
 * The member's distribution: nu and the scale checked once, and the log density −∞ outside the
 * support — X not symmetric, or L_X not a Cholesky factor, or a NaN density (X not positive definite).
 */
export function wishartFamily(m: WishartMember): Distribution {
  const { nu, logpdfOfFactor, draw } = m;
  const scale = lift(m.scale);
  const k = checkWishart(m.fn, nu, scale, m.form === "matrix" ? "S" : "L_S");
  const ls = m.form === "matrix" ? cholesky(scale) : scale;
  const logpdf = m.form === "matrix"
    ? (x: Operand): Node => {
        const xn = lift(x);
        const lp = logpdfOfFactor(nu, k, cholesky(xn), ls);
        return restrict(and(isSymmetric(xn), eq(lp, lp)), lp);
      }
    : (x: Operand): Node => {
        // The density of L_X is that of X = L_X L_Xᵀ times the Jacobian of L ↦ L Lᵀ.
        const lx = lift(x);
        const lp = add(logpdfOfFactor(nu, k, lx, ls), choleskyJacobian(lx, k));
        return restrict(and(isCholeskyFactor(lx, k), eq(lp, lp)), lp);
      };
  return {
    name: m.name,
    support: m.form === "matrix" ? COV_MATRIX : { kind: "cholesky_cov" },
    discrete: false,
    batchShape: [],
    eventShape: [k, k],
    logpdf,
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, [], [k, k], [nu, ls], [0, 2], bindings, (r, [n, l], out, o) => {
        out.set(draw(r, n![0]!, l!, k), o);
      }),
    ...(m.moments ? m.moments(scale, k) : {}),
  };
}
