import {
  add, broadcastTo, cholesky, constant, diagonal, log, logdetSpd, matmul, mT, mul, reshape, square, sub, sum,
  triangularSolve, type Node, type Operand, type Shape,
} from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { choleskyNumbers, lowerTimes, lowerTransposeSolve } from "./dense.ts";
import { HALF_LOG_TWO_PI, checkOperand } from "./helpers.ts";
import { sampleEvents } from "./sampling.ts";

type Form = "covariance" | "precision" | "cholesky";

/** Multivariate normal with mean mu (last axis K, or a scalar) and covariance matrix cov [K,K]. */
export function multivariateNormal(mu: Operand, cov: Operand): Distribution {
  checkOperand("multivariateNormal", "mu", mu);
  checkOperand("multivariateNormal", "cov", cov);
  return mvn("multi_normal", mu, lift(cov), "covariance");
}

/** Multivariate normal with mean mu and precision (inverse covariance) matrix [K,K]. */
export function multivariateNormalPrecision(mu: Operand, precision: Operand): Distribution {
  checkOperand("multivariateNormalPrecision", "mu", mu);
  checkOperand("multivariateNormalPrecision", "precision", precision);
  return mvn("multi_normal_prec", mu, lift(precision), "precision");
}

/** Multivariate normal with mean mu and the lower Cholesky factor L [K,K] of its covariance. */
export function multivariateNormalCholesky(mu: Operand, L: Operand): Distribution {
  checkOperand("multivariateNormalCholesky", "mu", mu);
  checkOperand("multivariateNormalCholesky", "L", L);
  return mvn("multi_normal_cholesky", mu, lift(L), "cholesky");
}

function mvn(name: string, mu: Operand, m: Node, form: Form): Distribution {
  if (m.rank !== 2 || m.shape[0] !== m.shape[1]) {
    throw new ModelError(`${name}: the ${form} matrix must be square [K,K], got [${m.shape.join(",")}]; batches of matrices are not supported, use one matrix`);
  }
  const k = m.shape[0]!;
  const mun = lift(mu);
  if (mun.rank > 0 && mun.shape[mun.rank - 1] !== k && mun.shape[mun.rank - 1] !== 1) {
    throw new ModelError(`${name}: mu has last axis ${mun.shape[mun.rank - 1]} but the ${form} matrix is ${k}×${k}; make them agree`);
  }
  const batchShape = mun.rank > 0 ? mun.shape.slice(0, -1) : [];
  const meanNode = broadcastTo(mun, [...batchShape, k]);
  return {
    name,
    support: { kind: "real" },
    discrete: false,
    batchShape,
    eventShape: [k],
    logpdf: (x) => {
      const d = sub(x, meanNode);
      if (form === "precision") {
        const quad = sum(mul(d, matmul(d, m)), -1);
        return sub(add(-k * HALF_LOG_TWO_PI, mul(0.5, logdetSpd(m))), mul(0.5, quad));
      }
      const L = form === "cholesky" ? m : cholesky(m);
      const quad = sum(square(solveEach(L, d)), -1);
      return sub(sub(-k * HALF_LOG_TWO_PI, sum(log(diagonal(L)))), mul(0.5, quad));
    },
    sample: (rng, shape = [], bindings) => {
      const factor = form === "covariance" ? cholesky(m) : m;
      return sampleEvents(rng, shape, batchShape, [k], [meanNode, factor], [1, 2], bindings, (r, [mv, f], out, o) => {
        const z = Float64Array.from({ length: k }, () => r.normal());
        // Covariance and Cholesky forms: x = mu + L z; precision: x = mu + L⁻ᵀ z with P = L Lᵀ.
        const x = form === "precision" ? lowerTransposeSolve(choleskyNumbers(f!, k), z, k) : lowerTimes(f!, z, k);
        for (let i = 0; i < k; i++) out[o + i] = mv![i]! + x[i]!;
      });
    },
    mean: () => meanNode,
    variance: () => {
      const diag =
        form === "covariance" ? diagonal(m)
        : form === "cholesky" ? sum(square(m), -1)
        : sum(square(triangularSolve(cholesky(m), constant(identity(k), [k, k]))), 0);
      return broadcastTo(diag, [...batchShape, k]);
    },
  };
}

/** L⁻¹ d for each vector d along the last axis of d (any batch shape). */
function solveEach(L: Node, d: Node): Node {
  if (d.rank === 1) return triangularSolve(L, d);
  const k = d.shape[d.rank - 1]!;
  const batch: Shape = d.shape.slice(0, -1);
  const flat = reshape(d, [-1, k]);
  const z = triangularSolve(L, mT(flat));
  return reshape(mT(z), [...batch, k]);
}

function identity(k: number): number[] {
  return Array.from({ length: k * k }, (_, i) => (Math.floor(i / k) === i % k ? 1 : 0));
}

