import { add, concat, constant, cumsum, exp, log, logSigmoid, neg, reshape, slice, sub, sum, type Node, type Shape } from "@ppl/tensor";
import type { Constraint, Transform } from "./transform.ts";
import { vectorLength } from "./vector-shape.ts";

/**
 * The K-simplex from K−1 unconstrained values by Stan's stick-breaking: z_k = sigmoid(u_k − log(K−k)),
 * x_k = z_k·(stick left), x_K = stick left at the end. Computed in logs so no stick length rounds to 0.
 */
export function simplex(): Constraint {
  return {
    name: "simplex",
    bind(shape: Shape): Transform {
      const k = vectorLength("simplex", shape, 2);
      // log(K − k) for k = 1..K−1 centres the map so u = 0 gives the uniform simplex.
      const offset = constant(Array.from({ length: k - 1 }, (_, i) => Math.log(k - 1 - i)), [k - 1]);
      const parts = (u: Node) => {
        const a = sub(u, offset);
        const logZ = logSigmoid(a);
        const log1mZ = logSigmoid(neg(a));
        const cum = cumsum(log1mZ);
        const logStick = sub(cum, log1mZ); // stick left before break k
        return { logZ, log1mZ, cum, logStick };
      };
      return {
        name: "simplex",
        shape,
        constrainedSize: k,
        unconstrainedSize: k - 1,
        forward: (u) => {
          const { logZ, cum, logStick } = parts(u);
          return exp(concat([add(logStick, logZ), reshape(slice(cum, [{ start: k - 2 }]), [1])]));
        },
        // u_k = log x_k − log(Σ_{j>k} x_j) + log(K−k); the tail sums avoid 1 − cumsum cancellation.
        inverse: (x) => {
          const head = slice(x, [{ stop: k - 1 }]);
          const tail = slice(sub(cumsum(x, 0, true), x), [{ stop: k - 1 }]);
          return add(sub(log(head), log(tail)), offset);
        },
        logJacobian: (u) => {
          const { logZ, log1mZ, logStick } = parts(u);
          return sum(add(add(logZ, log1mZ), logStick));
        },
      };
    },
  };
}
