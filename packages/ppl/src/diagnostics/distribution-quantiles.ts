import qnorm from "@stdlib/stats-base-dists-normal-quantile";
import qbeta from "@stdlib/stats-base-dists-beta-quantile";

/** Quantile function of the standard normal distribution. */
export function normalQuantile(p: number): number {
  return qnorm(p, 0, 1);
}

/** Quantile function of the Beta(alpha, beta) distribution. */
export function betaQuantile(p: number, alpha: number, beta: number): number {
  return qbeta(p, alpha, beta);
}
