import { add, cholesky, constant, gather, matmul, mT, mul, sum, type Node, type Shape } from "@ppl/tensor";
import { choleskyCorr } from "./cholesky-corr.ts";
import { log1mTanhSquared } from "./log1m-tanh-squared.ts";
import { squareSize } from "./square-shape.ts";
import type { Constraint, Transform } from "./transform.ts";

/**
 * Stan's corr_matrix[K]: Ω = L·Lᵀ with L the Cholesky factor of choleskyCorr (canonical partial
 * correlations z = tanh(u), K(K−1)/2 of them). log|J| = Σ log(1 − z_ij²)·(1 + (K − 2 − j)/2)
 * over i > j: the tanh, and the map L → LLᵀ, which is triangular with L_jj on the diagonal for
 * every Ω_ij (Lewandowski, Kurowicka and Joe 2009). The unconstrained vector holds the partial
 * correlations column by column, as Stan's corr_matrix does (choleskyCorr's go row by row).
 */
export function corrMatrix(): Constraint {
  return {
    name: "corr_matrix",
    bind(shape: Shape): Transform {
      const k = squareSize("corrMatrix", shape, 2);
      const chol = choleskyCorr().bind(shape);
      // Row-order position (i, j) of each column-order entry, and back.
      const rowPos = (i: number, j: number) => (i * (i - 1)) / 2 + j;
      const colToRow: number[] = [];
      const weights: number[] = [];
      for (let j = 0; j < k; j++) {
        for (let i = j + 1; i < k; i++) {
          colToRow.push(rowPos(i, j));
          weights.push(1 + (k - 2 - j) / 2);
        }
      }
      const rowToCol = new Array<number>(colToRow.length);
      colToRow.forEach((r, c) => (rowToCol[r] = c));
      const m = colToRow.length;
      const toRowOrder = (u: Node) => gather(u, constant(rowToCol, [m], "i32"));
      const toColumnOrder = (v: Node) => gather(v, constant(colToRow, [m], "i32"));
      const weightNode = constant(weights, [m]);
      const eye = constant(Array.from({ length: k * k }, (_, f) => (Math.floor(f / k) === f % k ? 1 : 0)), [k, k]);
      const offDiagonal = constant(Array.from({ length: k * k }, (_, f) => (Math.floor(f / k) === f % k ? 0 : 1)), [k, k]);
      return {
        name: "corr_matrix",
        shape,
        constrainedSize: k * k,
        unconstrainedSize: chol.unconstrainedSize,
        // The diagonal is set to 1 rather than left as Σ_j L_ij², which rounds; Ω stays exactly symmetric.
        forward: (u) => {
          const l = chol.forward(toRowOrder(u));
          return add(mul(matmul(l, mT(l)), offDiagonal), eye);
        },
        inverse: (x) => toColumnOrder(chol.inverse(cholesky(x))),
        logJacobian: (u) => sum(mul(weightNode, log1mTanhSquared(u))),
      };
    },
  };
}
