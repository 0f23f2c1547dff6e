import { add, and, eq, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import type { Distribution } from "./distribution.ts";
import { restrict } from "./helpers.ts";
import { factorOfProduct, inverseWishartFactor, inverseWishartLogpdfOfFactor } from "./inverse-wishart.ts";
import { isCholeskyFactor } from "./matrix-numbers.ts";
import { sampleEvents } from "./sampling.ts";
import { checkWishart } from "./wishart.ts";
import { choleskyJacobian } from "./wishart-cholesky.ts";

/**
 * Stan's inv_wishart_cholesky(nu, L_S): the lower Cholesky factor L_W of W ~ InvWishart(nu, L_S L_Sᵀ);
 * its density is InvWishart(L_W L_Wᵀ) times the Jacobian 2^K ∏_k L_kk^{K−k+1} of W = L_W L_Wᵀ.
 */
export function inverseWishartCholesky(nu: Operand, LS: Operand): Distribution {
  const ls = lift(LS);
  const k = checkWishart("inverseWishartCholesky", nu, ls, "L_S");
  return {
    name: "inv_wishart_cholesky",
    support: { kind: "cholesky_cov" },
    discrete: false,
    batchShape: [],
    eventShape: [k, k],
    logpdf: (x) => {
      const lw = lift(x);
      const lp = add(inverseWishartLogpdfOfFactor(nu, k, lw, ls), choleskyJacobian(lw, k));
      return restrict(and(isCholeskyFactor(lw, k), eq(lp, lp)), lp);
    },
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, [], [k, k], [nu, ls], [0, 2], bindings, (r, [n, l], out, o) => {
        out.set(factorOfProduct(inverseWishartFactor(r, n![0]!, l!, k), k), o);
      }),
  };
}
