import { concat, mul, reshape, slice, square, sub, sum, constant, type Node, type Operand } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, isPositive, checkOperand } from "./helpers.ts";
import { normalLogpdf } from "./normal.ts";
import { sampleEvents } from "./sampling.ts";

/** Gaussian random walk of `steps` values: x[1] ~ Normal(0, sigma), x[t] − x[t−1] ~ Normal(0, sigma). */
export function gaussianRandomWalk(sigma: Operand, steps: number): Distribution {
  checkOperand("gaussianRandomWalk", "sigma", sigma);
  if (!Number.isInteger(steps) || steps < 1) throw new ModelError(`gaussianRandomWalk: steps must be a positive integer, got ${steps}`);
  checkParam("gaussianRandomWalk", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("gaussianRandomWalk", { sigma });
  const sigmaE: Operand = typeof sigma === "number" ? sigma : reshape(sigma, [...sigma.shape, 1]);
  const times = constant(Array.from({ length: steps }, (_, t) => t + 1), [steps]);
  return {
    name: "gaussian_random_walk",
    support: { kind: "real" },
    discrete: false,
    batchShape,
    eventShape: [steps],
    logpdf: (x) => sum(normalLogpdf(increments(lift(x)), 0, sigmaE), -1),
    sample: (rng, shape = [], bindings) =>
      sampleEvents(rng, shape, batchShape, [steps], [sigma], [0], bindings, (r, [s], out, o) => {
        let acc = 0;
        for (let t = 0; t < steps; t++) out[o + t] = acc += s![0]! * r.normal();
      }),
    mean: () => mul(times, 0),
    variance: () => mul(times, square(sigmaE)),
  };
}

// [x1, x2 − x1, …, xT − x(T−1)] along the last axis.
function increments(x: Node): Node {
  const lead = x.shape.slice(0, -1).map(() => undefined);
  const first = slice(x, [...lead, { stop: 1 }]);
  if (x.shape[x.rank - 1] === 1) return first;
  return concat([first, sub(slice(x, [...lead, { start: 1 }]), slice(x, [...lead, { stop: -1 }]))], -1);
}
