import type { Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { bartlettFactor, matMulNumbers } from "./matrix-numbers.ts";
import { wishartLogpdfOfFactor } from "./wishart.ts";
import { wishartFamily } from "./wishart-family.ts";
import { checkOperand } from "./helpers.ts";

/**
 * Stan's wishart_cholesky(nu, L_S): the lower Cholesky factor L_W of W ~ Wishart(nu, L_S L_Sᵀ);
 * its density is Wishart(L_W L_Wᵀ) times the Jacobian 2^K ∏_k L_kk^{K−k+1} of W = L_W L_Wᵀ.
 */
export function wishartCholesky(nu: Operand, LS: Operand): Distribution {
  checkOperand("wishartCholesky", "nu", nu);
  checkOperand("wishartCholesky", "LS", LS);
  return wishartFamily({
    fn: "wishartCholesky",
    name: "wishart_cholesky",
    nu,
    scale: LS,
    form: "cholesky",
    logpdfOfFactor: wishartLogpdfOfFactor,
    // L_S A is lower triangular with a positive diagonal and (L_S A)(L_S A)ᵀ ~ Wishart: it is the factor itself.
    draw: (r, n, l, k) => matMulNumbers(l, bartlettFactor(r, n, k), k),
  });
}
