import {
  add, and, broadcastTo, constant, diagonal, div, eq, exp, log, logdetSpd, mul, reshape, sqrt, square, sub, sum, type Node,
  type Operand,
} from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { checkParam, isPositive, restrict, checkOperand } from "./helpers.ts";
import { lkjCholesky, lkjLogConstant } from "./lkj-cholesky.ts";
import { normalLogpdf } from "./normal.ts";
import { isSymmetric, outerSelf } from "./matrix-numbers.ts";
import { sampleEvents } from "./sampling.ts";

/**
 * Stan's lkj_cov(mu, sigma, eta) over K×K covariance matrices Σ: the standard deviations s_k = √Σ_kk
 * are LogNormal(mu_k, sigma_k) and the correlation matrix D⁻¹ΣD⁻¹ (D = diag s) is LKJ(eta). As in Stan,
 * log p(Σ) = Σ_k log LogNormal(s_k | mu_k, sigma_k) + log LKJ(D⁻¹ΣD⁻¹ | eta), without the Jacobian
 * −K log 2 − K Σ_k log s_k of Σ ↦ (s, R), so it is Stan's density, not the normalized density of the
 * construction; the sampler draws the construction (s, then R, then Σ = D R D), whose moments
 * mean and variance give. mu and sigma are vectors of K or scalars; eta is a scalar.
 */
export function lkjCov(mu: Operand, sigma: Operand, eta: Operand, k: number): Distribution {
  checkOperand("lkjCov", "mu", mu);
  checkOperand("lkjCov", "sigma", sigma);
  checkOperand("lkjCov", "eta", eta);
  if (!Number.isInteger(k) || k < 2) throw new ModelError(`lkjCov: K must be an integer ≥ 2, got ${k}`);
  checkParam("lkjCov", "sigma", sigma, isPositive, "positive");
  checkParam("lkjCov", "eta", eta, isPositive, "positive");
  const m = scaleVector("mu", mu, k), s = scaleVector("sigma", sigma, k);
  if (lift(eta).rank !== 0) throw new ModelError(`lkjCov: eta must be a scalar, got shape [${lift(eta).shape.join(",")}]`);
  const corr = lkjCholesky(k, eta);
  // E s_k^j = exp(j mu_k + j² sigma_k²/2) for the moments.
  const sdMoment = (j: number) => exp(add(mul(j, m), mul((j * j) / 2, square(s))));
  const outer = (a: Node) => mul(reshape(a, [k, 1]), reshape(a, [1, k]));
  const eye = constant(Array.from({ length: k * k }, (_, i) => (Math.floor(i / k) === i % k ? 1 : 0)), [k, k]);
  return {
    name: "lkj_cov",
    support: { kind: "cov_matrix" },
    discrete: false,
    batchShape: [],
    eventShape: [k, k],
    logpdf: (x) => {
      const xn = lift(x);
      const sds = sqrt(diagonal(xn));
      const logSds = sum(sub(normalLogpdf(log(sds), m, s), log(sds)), -1);
      const r = div(xn, mul(reshape(sds, [...sds.shape, 1]), reshape(sds, [...sds.shape.slice(0, -1), 1, k])));
      const lp = add(logSds, add(mul(sub(eta, 1), logdetSpd(r)), lkjLogConstant(k, eta)));
      return restrict(and(isSymmetric(xn), eq(lp, lp)), lp);
    },
    sample: (rng, shape = [], bindings) => {
      const l = corr.sample(rng, shape, bindings);
      const es = k * k;
      const sdDraws = sampleEvents(rng, shape, [], [k], [m, s], [1, 1], bindings, (r, [mv, sv], out, o) => {
        for (let i = 0; i < k; i++) out[o + i] = Math.exp(mv![i]! + sv![i]! * r.normal());
      });
      const out = new Float64Array(l.data.length);
      for (let o = 0, t = 0; o < out.length; o += es, t += k) {
        const rm = outerSelf(l.data.subarray(o, o + es), k);
        for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) out[o + i * k + j] = sdDraws.data[t + i]! * sdDraws.data[t + j]! * rm[i * k + j]!;
      }
      return { dtype: "f64", shape: l.shape, data: out };
    },
    // E Σ_ij = E s_i s_j E R_ij: the diagonal E s_k², zero elsewhere. Var Σ_kk = E s_k⁴ − (E s_k²)²; off the
    // diagonal Var Σ_ij = E s_i² E s_j² E R_ij², with E R_ij² = 1/(2 eta + K − 1).
    mean: () => mul(eye, broadcastTo(reshape(sdMoment(2), [k, 1]), [k, k])),
    variance: () => {
      const diag = mul(eye, broadcastTo(reshape(sub(sdMoment(4), square(sdMoment(2))), [k, 1]), [k, k]));
      const off = mul(sub(1, eye), div(outer(sdMoment(2)), add(mul(2, eta), k - 1)));
      return add(diag, off);
    },
  };
}

// mu or sigma as a vector of K (a scalar is repeated).
function scaleVector(name: string, x: Operand, k: number): Node {
  const n = lift(x);
  if (n.rank === 0) return broadcastTo(n, [k]);
  if (n.rank !== 1 || n.shape[0] !== k) throw new ModelError(`lkjCov: ${name} must be a scalar or a vector of K = ${k}, got shape [${n.shape.join(",")}]`);
  return n;
}
