import {
  add, constant, cumsum, div, exp, gather, log1p, mul, neg, reshape, sqrt, square, sub, sum, tanh, concat, type Node, type Shape,
} from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import { log1mTanhSquared } from "./log1m-tanh-squared.ts";
import type { Constraint, Transform } from "./transform.ts";

/**
 * Lower Cholesky factor of a K×K correlation matrix from K(K−1)/2 values (Stan's construction):
 * canonical partial correlations z = tanh(u), taken row by row; L_ij = z_ij·sqrt(1 − Σ_{l<j} L_il²),
 * L_ii = sqrt(1 − Σ_{l<i} L_il²).
 */
export function choleskyCorr(): Constraint {
  return {
    name: "cholesky_corr",
    bind(shape: Shape): Transform {
      if (shape.length !== 2 || shape[0] !== shape[1] || shape[0]! < 2) {
        throw new ModelError(`choleskyCorr: needs a square matrix parameter of size ≥ 2, got shape [${shape.join(",")}]; pass { shape: [K, K] }`);
      }
      const k = shape[0]!;
      const m = (k * (k - 1)) / 2;
      // Row-major positions of the strictly lower entries; entry m of the padded vector is a 0 filler.
      const idx: number[] = [];
      const flatPos: number[] = [];
      const strict: number[] = [];
      let c = 0;
      for (let i = 0; i < k; i++) {
        for (let j = 0; j < k; j++) {
          idx.push(j < i ? c++ : m);
          strict.push(j < i ? 1 : 0);
          if (j < i) flatPos.push(i * k + j);
        }
      }
      const idxNode = constant(idx, [k, k], "i32");
      const strictMask = constant(strict, [k, k]);
      const eye = constant(Array.from({ length: k * k }, (_, f) => (Math.floor(f / k) === f % k ? 1 : 0)), [k, k]);
      const lowerMatrix = (v: Node) => gather(concat([v, constant(0, [1])]), idxNode);
      const parts = (u: Node) => {
        const w = log1mTanhSquared(u);
        const wm = lowerMatrix(w);
        const before = sub(cumsum(wm, 1), wm); // Σ_{l<j} log(1 − z_il²) = log of the row's length left
        return { w, before };
      };
      return {
        name: "cholesky_corr",
        shape,
        constrainedSize: k * k,
        unconstrainedSize: m,
        forward: (u) => {
          const z = lowerMatrix(tanh(u));
          const { before } = parts(u);
          return mul(add(z, eye), exp(mul(0.5, before)));
        },
        inverse: (x) => {
          const sq = square(x);
          const left = sub(1, sub(cumsum(sq, 1), sq));
          const z = div(x, sqrt(left));
          const zv = gather(reshape(z, [k * k]), constant(flatPos, [m], "i32"));
          return mul(0.5, sub(log1p(zv), log1p(neg(zv))));
        },
        logJacobian: (u) => {
          const { w, before } = parts(u);
          return add(sum(w), mul(0.5, sum(mul(before, strictMask))));
        },
      };
    },
  };
}
