import { add, div, erfc, log, mul, neg, owensT, Phi, sqrt, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, HALF_LOG_TWO_PI, isFiniteNumber, isPositive, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/** Skew normal with location xi, scale omega and shape alpha (Stan's skew_normal). */
export function skewNormal(xi: Operand, omega: Operand, alpha: Operand): Distribution {
  checkParam("skewNormal", "xi", xi, isFiniteNumber, "finite");
  checkParam("skewNormal", "omega", omega, isPositive, "positive");
  checkParam("skewNormal", "alpha", alpha, isFiniteNumber, "finite");
  const batchShape = batchShapeOf("skewNormal", { xi, omega, alpha });
  const delta = () => div(alpha, sqrt(add(1, square(alpha))));
  return {
    name: "skew_normal",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    // 2 φ(z) Φ(αz) / ω, with 2Φ(t) = erfc(−t/√2).
    logpdf: (x) => {
      const z = div(sub(x, xi), omega);
      return add(sub(neg(add(logOf(omega), HALF_LOG_TWO_PI)), mul(0.5, square(z))), log(erfc(mul(neg(mul(alpha, z)), Math.SQRT1_2))));
    },
    // F(z) = Φ(z) − 2·T(z, α) with Owen's T (as Stan); 1 − F(z) = Φ(−z) + 2·T(z, α).
    lcdf: (x) => {
      const z = div(sub(x, xi), omega);
      return log(sub(Phi(z), mul(2, owensT(z, alpha))));
    },
    lccdf: (x) => {
      const z = div(sub(x, xi), omega);
      return log(add(Phi(neg(z)), mul(2, owensT(z, alpha))));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [xi, omega, alpha], bindings, (r, [x, w, a]) => {
        const d = a! / Math.sqrt(1 + a! * a!);
        const u0 = r.normal(), v = r.normal();
        return x! + w! * (d * Math.abs(u0) + Math.sqrt(1 - d * d) * v);
      }),
    mean: () => full(add(xi, mul(mul(omega, delta()), Math.sqrt(2 / Math.PI))), batchShape),
    variance: () => full(mul(square(omega), sub(1, mul(square(delta()), 2 / Math.PI))), batchShape),
  };
}
