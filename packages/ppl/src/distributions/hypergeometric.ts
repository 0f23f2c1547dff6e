import { add, and, div, ge, le, maximum, minimum, mul, square, sub, type Operand } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isNonNegativeInt, lchoose, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/**
 * Stan's hypergeometric(N, a, b): the number of successes in N draws without replacement from an urn
 * of a successes and b failures; support max(0, N − b) ≤ n ≤ min(a, N).
 */
export function hypergeometric(N: Operand, a: Operand, b: Operand): Distribution {
  checkParam("hypergeometric", "N", N, isNonNegativeInt, "a non-negative integer");
  checkParam("hypergeometric", "a", a, isNonNegativeInt, "a non-negative integer");
  checkParam("hypergeometric", "b", b, isNonNegativeInt, "a non-negative integer");
  if (typeof N === "number" && typeof a === "number" && typeof b === "number" && N > a + b) {
    throw new ModelError(`hypergeometric: N (${N}) draws exceed the urn's a + b = ${a + b} items; give N ≤ a + b`);
  }
  const batchShape = batchShapeOf("hypergeometric", { N, a, b });
  const lower = typeof N === "number" && typeof b === "number" ? Math.max(0, N - b) : maximum(0, sub(N, b));
  const upper = typeof N === "number" && typeof a === "number" ? Math.min(a, N) : minimum(a, N);
  const total = () => add(a, b);
  return {
    name: "hypergeometric",
    support: { kind: "int_interval", lower, upper },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => restrict(and(ge(n, lower), le(n, upper)), sub(add(lchoose(a, n), lchoose(b, sub(N, n))), lchoose(total(), N))),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [N, a, b], bindings, (r, [draws, good, bad]) => {
        // The urn drawn from one item at a time (O(N), exact).
        let g = good!, t = good! + bad!, k = 0;
        for (let i = 0; i < draws!; i++) {
          if (r.uniform() * t < g) {
            k++;
            g--;
          }
          t--;
        }
        return k;
      }),
    mean: () => full(div(mul(N, a), total()), batchShape),
    variance: () => full(div(mul(mul(mul(N, a), b), sub(total(), N)), mul(square(total()), sub(total(), 1))), batchShape),
  };
}
