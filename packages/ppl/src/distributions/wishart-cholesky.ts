import { add, and, constant, diagonal, eq, log, mul, sum, type Node, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import type { Distribution } from "./distribution.ts";
import { LOG_TWO, restrict } from "./helpers.ts";
import { bartlettFactor, isCholeskyFactor, matMulNumbers } from "./matrix-numbers.ts";
import { sampleEvents } from "./sampling.ts";
import { checkWishart, wishartLogpdfOfFactor } from "./wishart.ts";

/**
 * Stan's wishart_cholesky(nu, L_S): the lower Cholesky factor L_W of W ~ Wishart(nu, L_S L_Sᵀ);
 * its density is Wishart(L_W L_Wᵀ) times the Jacobian 2^K ∏_k L_kk^{K−k+1} of W = L_W L_Wᵀ.
 */
export function wishartCholesky(nu: Operand, LS: Operand): Distribution {
  const ls = lift(LS);
  const k = checkWishart("wishartCholesky", nu, ls, "L_S");
  return {
    name: "wishart_cholesky",
    support: { kind: "cholesky_cov" },
    discrete: false,
    batchShape: [],
    eventShape: [k, k],
    logpdf: (x) => {
      const lw = lift(x);
      const lp = add(wishartLogpdfOfFactor(nu, k, lw, ls), choleskyJacobian(lw, k));
      return restrict(and(isCholeskyFactor(lw, k), eq(lp, lp)), lp);
    },
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, [], [k, k], [nu, ls], [0, 2], bindings, (r, [n, l], out, o) => {
        // L_S A is lower triangular with a positive diagonal and (L_S A)(L_S A)ᵀ ~ Wishart: it is the factor itself.
        out.set(matMulNumbers(l!, bartlettFactor(r, n![0]!, k), k), o);
      }),
  };
}

/** log of the Jacobian 2^K ∏_{k=1..K} L_kk^{K−k+1} of the map L ↦ L Lᵀ on Cholesky factors (per matrix). */
export function choleskyJacobian(l: Node, k: number): Node {
  const powers = constant(Array.from({ length: k }, (_, i) => k - i), [k]);
  return add(k * LOG_TWO, sum(mul(powers, log(diagonal(l))), -1));
}
