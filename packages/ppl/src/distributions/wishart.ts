import { add, diagonal, mul, reshape, square, sub, type Node, type Operand } from "@ppl/tensor";
import { lmgamma } from "./composed-special.ts";
import type { Distribution } from "./distribution.ts";
import { LOG_TWO, checkOperand } from "./helpers.ts";
import { bartlettFactor, logdetOfFactor, matMulNumbers, outerSelf, traceSolve } from "./matrix-numbers.ts";
import { wishartFamily } from "./wishart-family.ts";

/** Stan's wishart(nu, S): symmetric positive-definite K×K matrices, nu > K − 1 degrees of freedom, scale matrix S; mean nu·S. */
export function wishart(nu: Operand, S: Operand): Distribution {
  checkOperand("wishart", "nu", nu);
  checkOperand("wishart", "S", S);
  return wishartFamily({
    fn: "wishart",
    name: "wishart",
    nu,
    scale: S,
    form: "matrix",
    logpdfOfFactor: wishartLogpdfOfFactor,
    draw: (r, n, l, k) => outerSelf(matMulNumbers(l, bartlettFactor(r, n, k), k), k),
    moments: (s) => ({ mean: () => mul(nu, s), variance: () => wishartVariance(nu, s) }),
  });
}

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
