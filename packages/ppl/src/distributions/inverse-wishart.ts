import { add, diagonal, div, gt, mul, reshape, select, square, sub, type Node, type Operand } from "@ppl/tensor";
import { lmgamma } from "./composed-special.ts";
import { choleskyNumbers } from "./dense.ts";
import type { Distribution } from "./distribution.ts";
import { LOG_TWO, checkOperand } from "./helpers.ts";
import { bartlettFactor, logdetOfFactor, lowerInverse, matMulNumbers, outerSelf, transposeNumbers, traceSolve } from "./matrix-numbers.ts";
import { wishartFamily } from "./wishart-family.ts";

/** Stan's inv_wishart(nu, S): X whose inverse is Wishart(nu, S⁻¹); nu > K − 1, mean S/(nu − K − 1). */
export function inverseWishart(nu: Operand, S: Operand): Distribution {
  checkOperand("inverseWishart", "nu", nu);
  checkOperand("inverseWishart", "S", S);
  return wishartFamily({
    fn: "inverseWishart",
    name: "inv_wishart",
    nu,
    scale: S,
    form: "matrix",
    logpdfOfFactor: inverseWishartLogpdfOfFactor,
    draw: (r, n, l, k) => outerSelf(inverseWishartFactor(r, n, l, k), k),
    moments: (s, k) => ({
      // The mean is infinite for nu ≤ K + 1, the variance for nu ≤ K + 3.
      mean: () => select(gt(nu, k + 1), div(s, sub(nu, k + 1)), Infinity),
      variance: () => {
        // Var(X_ij) = ((nu − K + 1) S_ij² + (nu − K − 1) S_ii S_jj) / ((nu − K)(nu − K − 1)²(nu − K − 3)).
        const d = diagonal(s);
        const outer = mul(reshape(d, [k, 1]), reshape(d, [1, k]));
        const num = add(mul(sub(nu, k - 1), square(s)), mul(sub(nu, k + 1), outer));
        return select(gt(nu, k + 3), div(num, mul(mul(sub(nu, k), square(sub(nu, k + 1))), sub(nu, k + 3))), Infinity);
      },
    }),
  });
}

/** log InvWishart(L_X L_Xᵀ | nu, L_S L_Sᵀ) from the two Cholesky factors (L_X may carry batch axes). */
export function inverseWishartLogpdfOfFactor(nu: Operand, k: number, lx: Node, ls: Node): Node {
  const norm = sub(sub(mul(mul(0.5, nu), logdetOfFactor(ls)), mul(mul(nu, 0.5 * k), LOG_TWO)), lmgamma(k, mul(0.5, nu)));
  // tr(S X⁻¹) = ‖L_X⁻¹ L_S‖²_F.
  return sub(sub(norm, mul(mul(0.5, add(nu, k + 1)), logdetOfFactor(lx))), mul(0.5, traceSolve(lx, ls)));
}

/**
 * A factor B with B Bᵀ ~ InvWishart(nu, L_S L_Sᵀ): with A the Bartlett factor of Wishart(nu, I),
 * (L_S A⁻ᵀ)(L_S A⁻ᵀ)ᵀ = L_S (A Aᵀ)⁻¹ L_Sᵀ, the inverse of a Wishart(nu, S⁻¹) draw.
 */
export function inverseWishartFactor(rng: Parameters<typeof bartlettFactor>[0], nu: number, ls: ArrayLike<number>, k: number): Float64Array {
  return matMulNumbers(ls, transposeNumbers(lowerInverse(bartlettFactor(rng, nu, k), k), k), k);
}

/** The lower Cholesky factor of B Bᵀ for a square B of numbers. */
export function factorOfProduct(b: ArrayLike<number>, k: number): Float64Array {
  return choleskyNumbers(outerSelf(b, k), k);
}
