import { add, and, broadcastTo, constant, div, eq, logdetSpd, mul, reshape, sub, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import type { Distribution } from "./distribution.ts";
import { restrict, checkOperand } from "./helpers.ts";
import { lkjCholesky, lkjLogConstant } from "./lkj-cholesky.ts";
import { hasUnitDiagonal, isSymmetric, outerSelf } from "./matrix-numbers.ts";

/**
 * Stan's lkj_corr(eta) over K×K correlation matrices Σ: log p(Σ) = (eta − 1) log det Σ + log c_K(eta),
 * the same normalizing constant as lkjCholesky (the two differ by the Jacobian of Σ = L Lᵀ only).
 */
export function lkjCorr(k: number, eta: Operand): Distribution {
  checkOperand("lkjCorr", "eta", eta);
  // lkjCholesky checks K and eta and supplies the draws' factors.
  const factor = lkjCholesky(k, eta);
  const { batchShape } = factor;
  return {
    name: "lkj_corr",
    support: { kind: "corr_matrix" },
    discrete: false,
    batchShape,
    eventShape: [k, k],
    logpdf: (x) => {
      const xn = lift(x);
      const lp = add(mul(sub(eta, 1), logdetSpd(xn)), lkjLogConstant(k, eta));
      return restrict(and(and(isSymmetric(xn), hasUnitDiagonal(xn)), eq(lp, lp)), lp);
    },
    sample: (rng, shape = [], bindings) => {
      const l = factor.sample(rng, shape, bindings);
      const es = k * k;
      const out = new Float64Array(l.data.length);
      for (let o = 0; o < out.length; o += es) out.set(outerSelf(l.data.subarray(o, o + es), k), o);
      return { dtype: "f64", shape: l.shape, data: out };
    },
    // Off the diagonal r_ij is Beta(a, a) on (−1, 1) with a = eta − 1 + K/2: mean 0, variance 1/(2 eta + K − 1).
    mean: () => broadcastTo(constant(eye(k, 1, 0), [k, k]), [...batchShape, k, k]),
    variance: () => div(constant(eye(k, 0, 1), [k, k]), add(mul(2, matrixAxes(eta)), k - 1)),
  };
}

// A K×K matrix of `diag` on the diagonal and `off` elsewhere.
function eye(k: number, diag: number, off: number): number[] {
  return Array.from({ length: k * k }, (_, i) => (Math.floor(i / k) === i % k ? diag : off));
}

// eta with two trailing axes, so that it broadcasts against K×K matrices.
function matrixAxes(eta: Operand): Operand {
  return typeof eta === "number" ? eta : reshape(eta, [...eta.shape, 1, 1]);
}
