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
  // Loops, not every(Number.isFinite): this runs over every chain at every warmup iteration.
  for (let c = 0; c < grad.length; c++) if (allFinite(grad[c]!) && allFinite(q[c]!)) rows.push(c);
  const n = rows.length;
  if (n < 2) return 0;
  // Row by row into per-coordinate sums (each coordinate's sums add the rows in the same order as a
  // column's loop would, so the same bits), reading each chain's row once and in order.
  const mq = new Float64Array(dim);
  const mg = new Float64Array(dim);
  for (const c of rows) {
    const qc = q[c]!;
    const gc = grad[c]!;
    for (let i = 0; i < dim; i++) {
      mq[i] = mq[i]! + qc[i]!;
      mg[i] = mg[i]! + gc[i]!;
    }
  }
  for (let i = 0; i < dim; i++) {
    mq[i] = mq[i]! / n;
    mg[i] = mg[i]! / n;
  }
  const vq = new Float64Array(dim);
  const vg = new Float64Array(dim);
  for (const c of rows) {
    const qc = q[c]!;
    const gc = grad[c]!;
    for (let i = 0; i < dim; i++) {
      vq[i] = vq[i]! + (qc[i]! - mq[i]!) ** 2;
      vg[i] = vg[i]! + (gc[i]! - mg[i]!) ** 2;
    }
  }
  let written = 0;
  for (let i = 0; i < dim; i++) {
    const ratio = Math.sqrt(vq[i]! / vg[i]!);
    if (!(vq[i]! > 0 && vg[i]! > 0 && Number.isFinite(ratio))) continue;
    out[i] = Math.min(METRIC_BOUNDS.max, Math.max(METRIC_BOUNDS.min, ratio));
    written++;
  }
  return written;
}

function allFinite(v: Float64Array): boolean {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i]!)) return false;
  return true;
}
