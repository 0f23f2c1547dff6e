import type { Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { factorOfProduct, inverseWishartFactor, inverseWishartLogpdfOfFactor } from "./inverse-wishart.ts";
import { wishartFamily } from "./wishart-family.ts";
import { checkOperand } from "./helpers.ts";

/**
 * Stan's inv_wishart_cholesky(nu, L_S): the lower Cholesky factor L_W of W ~ InvWishart(nu, L_S L_Sᵀ);
 * its density is InvWishart(L_W L_Wᵀ) times the Jacobian 2^K ∏_k L_kk^{K−k+1} of W = L_W L_Wᵀ.
 */
export function inverseWishartCholesky(nu: Operand, LS: Operand): Distribution {
  checkOperand("inverseWishartCholesky", "nu", nu);
  checkOperand("inverseWishartCholesky", "LS", LS);
  return wishartFamily({
    fn: "inverseWishartCholesky",
    name: "inv_wishart_cholesky",
    nu,
    scale: LS,
    form: "cholesky",
    logpdfOfFactor: inverseWishartLogpdfOfFactor,
    draw: (r, n, l, k) => factorOfProduct(inverseWishartFactor(r, n, l, k), k),
  });
}
