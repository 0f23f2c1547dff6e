import type { ReferenceParameter } from "./reference.ts";

/** The pass rule's bounds (posteriordb README): |z| ≤ 4 and sd/ref_sd in [0.8, 1.25]. */
export const PASS_RULE = { maxZ: 4, minSdRatio: 0.8, maxSdRatio: 1.25 } as const;

/** One parameter's estimate from a run. */
export interface ParameterEstimate {
  readonly mean: number;
  readonly sd: number;
  /** Monte Carlo standard error of the mean. */
  readonly mcseMean: number;
}

/** One parameter checked against its reference. */
export interface ParameterCheck {
  readonly name: string;
  readonly mean: number;
  readonly sd: number;
  readonly mcseMean: number;
  readonly refMean: number;
  readonly refSd: number;
  readonly refMcseMean: number;
  /** |mean − ref.mean| / sqrt(mcse² + ref.mcse²). */
  readonly z: number;
  /** sd / ref.sd. */
  readonly sdRatio: number;
  readonly pass: boolean;
}

/** Applies the pass rule to one parameter; a non-finite estimate fails. */
export function checkParameter(name: string, est: ParameterEstimate, ref: ReferenceParameter): ParameterCheck {
  const z = Math.abs(est.mean - ref.mean) / Math.sqrt(est.mcseMean ** 2 + ref.mcse_mean ** 2);
  const sdRatio = est.sd / ref.sd;
  // Written so that NaN fails every comparison.
  const pass = z <= PASS_RULE.maxZ && sdRatio >= PASS_RULE.minSdRatio && sdRatio <= PASS_RULE.maxSdRatio;
  return {
    name,
    mean: est.mean,
    sd: est.sd,
    mcseMean: est.mcseMean,
    refMean: ref.mean,
    refSd: ref.sd,
    refMcseMean: ref.mcse_mean,
    z,
    sdRatio,
    pass,
  };
}
