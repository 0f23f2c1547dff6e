/**
 * A diagonal inverse metric over chains from their points and gradients together (nutpie's
 * estimator, Seyboldt et al.): σᵢ² = √(Var(qᵢ) / Var(∂ᵢ log p)), the variances over the chains.
 * For a Gaussian with independent coordinates ∂ᵢ log p = −(qᵢ − μᵢ)/sᵢ², so Var(∂ᵢ) = Var(qᵢ)/sᵢ⁴
 * and the ratio is sᵢ² exactly, however far the points are from the posterior and however spread
 * out: unlike the variance of the points alone, it does not need the chains to have reached the
 * typical set. Many-chain warmups (ChEES, MEADS) start from points spread over (−2, 2), far from a
 * posterior whose scales may be 10⁻³ (docs/many-chain-hmc.md).
 */

/** The bounds on an estimated σᵢ²: beyond them the estimate says more about rounding than about the posterior. */
export const METRIC_BOUNDS = { min: 1e-12, max: 1e12 } as const;

/**
 * Writes √(Var(qᵢ)/Var(gᵢ)) over the rows (chains) into `out[i]` for every coordinate where both
 * variances are positive and finite (rows with a non-finite gradient left out), clamped to
 * METRIC_BOUNDS; returns how many coordinates it wrote (the others keep their value).
 */
export function gradientScaledVariance(q: readonly Float64Array[], grad: readonly Float64Array[], out: Float64Array): number {
  const dim = out.length;
  const rows: number[] = [];
  grad.forEach((g, c) => {
    if (g.every(Number.isFinite) && q[c]!.every(Number.isFinite)) rows.push(c);
  });
  const n = rows.length;
  if (n < 2) return 0;
  let written = 0;
  for (let i = 0; i < dim; i++) {
    let mq = 0;
    let mg = 0;
    for (const c of rows) {
      mq += q[c]![i]!;
      mg += grad[c]![i]!;
    }
    mq /= n;
    mg /= n;
    let vq = 0;
    let vg = 0;
    for (const c of rows) {
      vq += (q[c]![i]! - mq) ** 2;
      vg += (grad[c]![i]! - mg) ** 2;
    }
    const ratio = Math.sqrt(vq / vg);
    if (!(vq > 0 && vg > 0 && Number.isFinite(ratio))) continue;
    out[i] = Math.min(METRIC_BOUNDS.max, Math.max(METRIC_BOUNDS.min, ratio));
    written++;
  }
  return written;
}
