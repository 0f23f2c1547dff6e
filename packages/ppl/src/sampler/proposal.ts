/**
 * Multinomial proposal bookkeeping in log space: each trajectory state has
 * weight exp(H0 − H); a proposal is chosen by progressive sampling.
 */

/** log(exp(a) + exp(b)), exact when either is −∞. */
export function logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/**
 * Uniform progressive sampling (inside a subtree): the newcomer with log
 * weight logWeightNew replaces the current proposal with probability
 * w_new / (w_old + w_new), where logWeightTotal = log(w_old + w_new).
 */
export function uniformAcceptProbability(logWeightNew: number, logWeightTotal: number): number {
  return Math.exp(logWeightNew - logWeightTotal);
}

/**
 * Biased progressive sampling (merging a subtree onto the trajectory): the
 * subtree's proposal replaces the sample with probability min(1, w_new / w_old).
 */
export function biasedAcceptProbability(logWeightNew: number, logWeightOld: number): number {
  return logWeightNew > logWeightOld ? 1 : Math.exp(logWeightNew - logWeightOld);
}
