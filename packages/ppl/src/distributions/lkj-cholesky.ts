import { add, constant, diagonal, log, mul, neg, reshape, slice, sub, sum, type Node, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, isPositive, lbeta, LOG_TWO, checkOperand } from "./helpers.ts";
import { sampleEvents } from "./sampling.ts";
import { betaVariate } from "./variates.ts";

/**
 * LKJ distribution over Cholesky factors L of K×K correlation matrices, with shape eta
 * (Stan's lkj_corr_cholesky): log p(L) = Σ_{i=2..K} (K − i + 2η − 2) log L_ii + log c_K(η).
 */
export function lkjCholesky(k: number, eta: Operand): Distribution {
  checkOperand("lkjCholesky", "eta", eta);
  if (!Number.isInteger(k) || k < 2) throw new ModelError(`lkjCholesky: K must be an integer ≥ 2, got ${k}`);
  checkParam("lkjCholesky", "eta", eta, isPositive, "positive");
  const batchShape = batchShapeOf("lkjCholesky", { eta });
  return {
    name: "lkj_corr_cholesky",
    support: { kind: "cholesky_corr" },
    discrete: false,
    batchShape,
    eventShape: [k, k],
    logpdf: (L) => {
      const logDiag = slice(log(diagonal(L)), [...lift(L).shape.slice(0, -2).map(() => undefined), { start: 1 }]);
      const exponents = add(constant(Array.from({ length: k - 1 }, (_, j) => k - (j + 2)), [k - 1]), mul(2, sub(expandEta(eta), 1)));
      return add(sum(mul(exponents, logDiag), -1), lkjLogConstant(k, eta));
    },
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, batchShape, [k, k], [eta], [0], bindings, (r, [e], out, o) => {
        // Canonical partial correlations: column c's are Beta(a_c, a_c) on (−1, 1), a_c = η + (K − 2 − c)/2 (Stan's lkj_corr_cholesky_rng).
        for (let i = 0; i < k; i++) {
          let ss = 0;
          for (let c = 0; c < i; c++) {
            const a = e![0]! + (k - 2 - c) / 2;
            const z = 2 * betaVariate(r, a, a) - 1;
            const v = z * Math.sqrt(1 - ss);
            out[o + i * k + c] = v;
            ss += v * v;
          }
          out[o + i * k + i] = Math.sqrt(1 - ss);
        }
      }),
  };
}

/** log c_K(η) of the LKJ density over Cholesky factors (Lewandowski, Kurowicka and Joe 2009). */
export function lkjLogConstant(k: number, eta: Operand): Node {
  // −[Σ_{j=1}^{K−1} (2η − 2 + K − j)(K − j) log 2 + Σ_j (K − j) log B(b_j, b_j)], b_j = η + (K − j − 1)/2.
  const js = Array.from({ length: k - 1 }, (_, i) => i + 1);
  const kmj = constant(js.map((j) => k - j), [k - 1]);
  const e = expandEta(eta);
  const b = add(e, constant(js.map((j) => (k - j - 1) / 2), [k - 1]));
  const pow2 = mul(mul(add(sub(mul(2, e), 2), kmj), kmj), LOG_TWO);
  return neg(sum(add(pow2, mul(kmj, lbeta(b, b))), -1));
}

// eta with a trailing axis so it broadcasts against the per-row vectors.
function expandEta(eta: Operand): Operand {
  return typeof eta === "number" ? eta : reshapeTrailing(eta);
}

function reshapeTrailing(eta: Node): Node {
  return eta.rank === 0 ? eta : reshape(eta, [...eta.shape, 1]);
}
