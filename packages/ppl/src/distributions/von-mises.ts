import { cos, ge, sub, mul, type Operand } from "@ppl/tensor";
import { logBesselI0 } from "./composed-special.ts";
import { vonMisesLogCdf } from "./von-mises-cdf.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, LOG_TWO, LOG_PI, REAL, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import type { Rng } from "../random/rng.ts";

/**
 * Stan's von_mises(mu, kappa): a circular distribution with location mu and concentration kappa ≥ 0,
 * log p(y) = kappa cos(y − mu) − log(2π I₀(kappa)). As in Stan the density takes any real y (it is
 * 2π-periodic); draws lie in [mu − π, mu + π], so their mean is mu.
 */
export function vonMises(mu: Operand, kappa: Operand): Distribution {
  checkParam("vonMises", "mu", mu, isFiniteNumber, "finite");
  checkParam("vonMises", "kappa", kappa, (v) => v >= 0 && Number.isFinite(v), "non-negative and finite");
  const batchShape = batchShapeOf("vonMises", { mu, kappa });
  return {
    name: "von_mises",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => restrict(ge(kappa, 0), sub(sub(mul(kappa, cos(sub(y, mu))), LOG_TWO + LOG_PI), logBesselI0(kappa))),
    // Stan's von_mises_lcdf and _lccdf: the mass from −π to x, and from x to π, for x in [−π, π].
    lcdf: (y) => vonMisesLogCdf(y, mu, kappa, true),
    lccdf: (y) => vonMisesLogCdf(y, mu, kappa, false),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, kappa], bindings, (r, [m, k]) => m! + vonMisesAngle(r, k!)),
    mean: () => full(mu, batchShape),
  };
}

/** An angle in [−π, π] from von Mises(0, kappa): Best and Fisher's (1979) wrapped-Cauchy rejection. */
export function vonMisesAngle(rng: Rng, kappa: number): number {
  // Below this the density is uniform to double precision; above, the normal limit is (the rejection's constants lose their digits).
  if (kappa < 1e-8) return Math.PI * (2 * rng.uniform() - 1);
  if (kappa > 1e7) return Math.max(-Math.PI, Math.min(Math.PI, rng.normal() / Math.sqrt(kappa)));
  const tau = 1 + Math.sqrt(1 + 4 * kappa * kappa);
  const rho = (tau - Math.sqrt(2 * tau)) / (2 * kappa);
  const r = (1 + rho * rho) / (2 * rho);
  for (;;) {
    const z = Math.cos(Math.PI * rng.uniform());
    const f = (1 + r * z) / (r + z);
    const c = kappa * (r - f);
    const u2 = rng.uniform();
    if (c * (2 - c) - u2 > 0 || Math.log(c / u2) + 1 - c >= 0) {
      const theta = Math.acos(Math.max(-1, Math.min(1, f)));
      return rng.uniform() < 0.5 ? -theta : theta;
    }
  }
}
