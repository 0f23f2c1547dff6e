import type { MetricKind } from "../sampler/metric.ts";
import type { Reference } from "./reference.ts";

/** Sampler settings of one posterior's run. */
export interface PosteriorSettings {
  readonly chains: number;
  readonly warmup: number;
  readonly draws: number;
  readonly metric: MetricKind;
  readonly adaptDelta: number;
  readonly maxDepth: number;
  /** The float type a density needs to sample this posterior correctly (f32 unless stated). */
  readonly precision: "f32" | "f64";
}

/** The pass rule's minimum run: 4 chains × 1000 draws after 1000 warmup. */
export const SUITE_RUN = { chains: 4, warmup: 1000, draws: 1000 } as const;

/**
 * Per-posterior departures from the reference's own settings. Diamonds' posterior is strongly
 * correlated: with a diagonal metric the reference needed adapt_delta 0.99 and trees of depth 20;
 * a dense metric makes it a near-isotropic Gaussian, and Stan's defaults (0.8, depth 10) then
 * sample it without divergences on 2.4 times fewer gradients (0.2M against 0.5M at 0.99, depth 20).
 */
const OVERRIDES: Readonly<Record<string, Partial<PosteriorSettings>>> = {
  "diamonds-diamonds": { metric: "dense", adaptDelta: 0.8, maxDepth: 10 },
  // gp_pois_regr's kernel matrix (11 points 2 apart, length scale ≈ 5.7) has a condition number
  // near 5e8 in the posterior bulk, beyond f32's 1/ε ≈ 8e6: its f32 Cholesky fails or loses all
  // digits there, and almost every f32 transition diverges. Stan samples it in double; so must we.
  "gp_pois_regr-gp_pois_regr": { precision: "f64" },
  // The ODE posteriors are solved by RK45 at relative tolerances of 1e-6, a few times f32's
  // ε ≈ 1.2e-7: in f32 the local error estimates are mostly rounding and the step sizes wander.
  // Stan solves them in double; so do we.
  "hudson_lynx_hare-lotka_volterra": { precision: "f64" },
  "one_comp_mm_elim_abs-one_comp_mm_elim_abs": { precision: "f64" },
};

/**
 * Settings for a posterior: the pass rule's run length, the reference run's adapt_delta and
 * max_treedepth (Stan's 0.8 and 10 where it gave none), and the overrides above.
 */
export function posteriorSettings(name: string, reference: Reference): PosteriorSettings {
  const control = reference.inference.method_arguments.control ?? {};
  return {
    ...SUITE_RUN,
    metric: "diag",
    adaptDelta: control.adapt_delta ?? 0.8,
    maxDepth: control.max_treedepth ?? 10,
    precision: "f32",
    ...OVERRIDES[name],
  };
}
