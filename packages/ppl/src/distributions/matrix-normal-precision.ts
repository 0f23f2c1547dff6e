import {
  add, cholesky, constant, logdetSpd, matmul, mul, reshape, square, sub, sum, triangularSolve, type Node, type Operand,
} from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import { choleskyNumbers } from "./dense.ts";
import type { Distribution } from "./distribution.ts";
import { HALF_LOG_TWO_PI, checkOperand } from "./helpers.ts";
import { lowerInverse, squareMatrix, transposeNumbers } from "./matrix-numbers.ts";
import { sampleEvents } from "./sampling.ts";

/**
 * Stan's matrix_normal_prec(Mu, Sigma, D): an M×N matrix with mean Mu, row precision Sigma (M×M) and
 * column precision D (N×N); log p(y) = −MN log √(2π) + N/2 log det Sigma + M/2 log det D − tr(D (y − Mu)ᵀ Sigma (y − Mu))/2.
 */
export function matrixNormalPrecision(Mu: Operand, Sigma: Operand, D: Operand): Distribution {
  checkOperand("matrixNormalPrecision", "Mu", Mu);
  checkOperand("matrixNormalPrecision", "Sigma", Sigma);
  checkOperand("matrixNormalPrecision", "D", D);
  const mu = lift(Mu), s = lift(Sigma), d = lift(D);
  const m = squareMatrix("matrixNormalPrecision", "Sigma", s);
  const n = squareMatrix("matrixNormalPrecision", "D", d);
  if (mu.rank !== 2 || mu.shape[0] !== m || mu.shape[1] !== n) {
    throw new ModelError(`matrixNormalPrecision: Mu must be ${m}×${n} (rows of Sigma × rows of D), got [${mu.shape.join(",")}]`);
  }
  return {
    name: "matrix_normal_prec",
    support: { kind: "real" },
    discrete: false,
    batchShape: [],
    eventShape: [m, n],
    logpdf: (y) => {
      const r = sub(y, mu);
      const quad = sum(mul(r, matmul(matmul(s, r), d)), [-2, -1]);
      const norm = add(-m * n * HALF_LOG_TWO_PI, add(mul(0.5 * n, logdetSpd(s)), mul(0.5 * m, logdetSpd(d))));
      return sub(norm, mul(0.5, quad));
    },
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, [], [m, n], [mu, s, d], [2, 2, 2], bindings, (r, [mv, sv, dv], out, o) => {
        // y = Mu + A Z Bᵀ with A Aᵀ = Sigma⁻¹ and B Bᵀ = D⁻¹: A = L_Sigma⁻ᵀ, Bᵀ = L_D⁻¹.
        const a = transposeNumbers(lowerInverse(choleskyNumbers(sv!, m), m), m);
        const bt = lowerInverse(choleskyNumbers(dv!, n), n);
        const z = Float64Array.from({ length: m * n }, () => r.normal());
        const az = rectMul(a, z, m, m, n);
        const y = rectMul(az, bt, m, n, n);
        for (let i = 0; i < m * n; i++) out[o + i] = mv![i]! + y[i]!;
      }),
    mean: () => mu,
    variance: () => mul(reshape(inverseDiagonal(s, m), [m, 1]), reshape(inverseDiagonal(d, n), [1, n])),
  };
}

// diag(P⁻¹) of an SPD matrix: column sums of (L⁻¹)², as P⁻¹ = L⁻ᵀ L⁻¹.
function inverseDiagonal(p: Node, k: number): Node {
  const eye = constant(Array.from({ length: k * k }, (_, i) => (Math.floor(i / k) === i % k ? 1 : 0)), [k, k]);
  return sum(square(triangularSolve(cholesky(p), eye)), 0);
}

// a (p×q) times b (q×r), row-major.
function rectMul(a: ArrayLike<number>, b: ArrayLike<number>, p: number, q: number, r: number): Float64Array {
  const c = new Float64Array(p * r);
  for (let i = 0; i < p; i++) for (let k = 0; k < q; k++) for (let j = 0; j < r; j++) c[i * r + j]! += a[i * q + k]! * b[k * r + j]!;
  return c;
}
