import {
  add, cholesky, constant, diagonal, div, log, mul, reshape, square, sub, sum, type Node, type Operand,
} from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import { lowerTimes } from "./dense.ts";
import type { Distribution } from "./distribution.ts";
import { HALF_LOG_TWO_PI, checkOperand } from "./helpers.ts";
import { solveVectors, squareMatrix } from "./matrix-numbers.ts";
import { sampleEvents } from "./sampling.ts";

/**
 * Stan's multi_gp(Sigma, w): a K×N matrix whose rows are independent MultiNormal(0, Sigma/w_k), for
 * an N×N kernel matrix Sigma and K positive inverse scales w (Stan's functional data over shared inputs).
 */
export function multiGP(sigma: Operand, w: Operand): Distribution {
  checkOperand("multiGP", "sigma", sigma);
  checkOperand("multiGP", "w", w);
  return multiGaussianProcess("multi_gp", "multiGP", lift(sigma), lift(w), false);
}

/** Stan's multi_gp_cholesky(L, w): multi_gp with the kernel matrix given by its lower Cholesky factor L. */
export function multiGPCholesky(L: Operand, w: Operand): Distribution {
  checkOperand("multiGPCholesky", "L", L);
  checkOperand("multiGPCholesky", "w", w);
  return multiGaussianProcess("multi_gp_cholesky", "multiGPCholesky", lift(L), lift(w), true);
}

function multiGaussianProcess(name: string, fn: string, m: Node, w: Node, isFactor: boolean): Distribution {
  const n = squareMatrix(fn, isFactor ? "L" : "Sigma", m);
  if (w.rank !== 1) throw new ModelError(`${fn}: w must be a vector of K inverse scales, got shape [${w.shape.join(",")}]`);
  const k = w.shape[0]!;
  const L = isFactor ? m : cholesky(m);
  return {
    name,
    support: { kind: "real" },
    discrete: false,
    batchShape: [],
    eventShape: [k, n],
    logpdf: (y) => {
      // Σ_k log MultiNormal(y_k | 0, Sigma/w_k) = Σ_k [N/2 log w_k − log det L − N log √(2π) − w_k ‖L⁻¹ y_k‖²/2].
      const quad = sum(square(solveVectors(L, lift(y))), -1);
      const perRow = sub(sub(mul(0.5 * n, log(w)), add(sum(log(diagonal(L))), n * HALF_LOG_TWO_PI)), mul(0.5, mul(w, quad)));
      return sum(perRow, -1);
    },
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, [], [k, n], [L, w], [2, 1], bindings, (r, [f, wv], out, o) => {
        for (let row = 0; row < k; row++) {
          const x = lowerTimes(f!, Float64Array.from({ length: n }, () => r.normal()), n);
          const scale = 1 / Math.sqrt(wv![row]!);
          for (let j = 0; j < n; j++) out[o + row * n + j] = scale * x[j]!;
        }
      }),
    mean: () => constant(new Float64Array(k * n), [k, n]),
    variance: () => div(reshape(isFactor ? sum(square(m), -1) : diagonal(m), [1, n]), reshape(w, [k, 1])),
  };
}
