/**
 * Streaming (co)variance estimates by Welford's algorithm, and Stan's
 * regularization of the result toward a small multiple of the identity.
 */

/** A Welford estimator's accumulated state (to continue it elsewhere: another thread). */
export interface WelfordState {
  readonly count: number;
  readonly mean: Float64Array;
  readonly m2: Float64Array;
}

/** Streaming mean and variance of each coordinate. */
export class WelfordDiag {
  readonly dim: number;
  count = 0;
  private readonly mean: Float64Array;
  private readonly m2: Float64Array;

  constructor(dim: number) {
    this.dim = dim;
    this.mean = new Float64Array(dim);
    this.m2 = new Float64Array(dim);
  }

  /** Forgets all samples. */
  reset(): void {
    this.count = 0;
    this.mean.fill(0);
    this.m2.fill(0);
  }

  /** Adds one draw. */
  add(q: Float64Array): void {
    this.count++;
    const n = this.count;
    for (let i = 0; i < this.dim; i++) {
      const delta = q[i]! - this.mean[i]!;
      this.mean[i] = this.mean[i]! + delta / n;
      this.m2[i] = this.m2[i]! + (q[i]! - this.mean[i]!) * delta;
    }
  }

  /** A copy of the accumulated state. */
  state(): WelfordState {
    return { count: this.count, mean: Float64Array.from(this.mean), m2: Float64Array.from(this.m2) };
  }

  /** Continues from a state that state() gave. */
  restore(s: WelfordState): void {
    this.count = s.count;
    this.mean.set(s.mean);
    this.m2.set(s.m2);
  }

  /** Sample variance (denominator n − 1) into out. */
  variance(out: Float64Array): void {
    for (let i = 0; i < this.dim; i++) out[i] = this.m2[i]! / (this.count - 1);
  }
}

/** Streaming mean and covariance matrix (row-major dim×dim). */
export class WelfordDense {
  readonly dim: number;
  count = 0;
  private readonly mean: Float64Array;
  private readonly m2: Float64Array;
  private readonly delta: Float64Array;

  constructor(dim: number) {
    this.dim = dim;
    this.mean = new Float64Array(dim);
    this.m2 = new Float64Array(dim * dim);
    this.delta = new Float64Array(dim);
  }

  /** Forgets all samples. */
  reset(): void {
    this.count = 0;
    this.mean.fill(0);
    this.m2.fill(0);
  }

  /** Adds one draw. */
  add(q: Float64Array): void {
    this.count++;
    const n = this.count;
    const d = this.dim;
    for (let i = 0; i < d; i++) {
      this.delta[i] = q[i]! - this.mean[i]!;
      this.mean[i] = this.mean[i]! + this.delta[i]! / n;
    }
    // m2 += (q − mean_new)·(q − mean_old)ᵀ, as Stan's welford_covar_estimator.
    for (let i = 0; i < d; i++) {
      const a = q[i]! - this.mean[i]!;
      for (let j = 0; j < d; j++) this.m2[i * d + j] = this.m2[i * d + j]! + a * this.delta[j]!;
    }
  }

  /** A copy of the accumulated state. */
  state(): WelfordState {
    return { count: this.count, mean: Float64Array.from(this.mean), m2: Float64Array.from(this.m2) };
  }

  /** Continues from a state that state() gave. */
  restore(s: WelfordState): void {
    this.count = s.count;
    this.mean.set(s.mean);
    this.m2.set(s.m2);
  }

  /** Sample covariance (denominator n − 1) into out. */
  covariance(out: Float64Array): void {
    for (let k = 0; k < out.length; k++) out[k] = this.m2[k]! / (this.count - 1);
  }
}

/**
 * Stan's regularization of an estimated (co)variance from n draws:
 * (n/(n+5))·Σ + 1e-3·(5/(n+5))·I, in place. For a diagonal, `dim` equals its
 * length; for a dense row-major matrix pass dense = true.
 */
export function regularize(estimate: Float64Array, n: number, dim: number, dense: boolean): void {
  const w = n / (n + 5);
  const shrink = 1e-3 * (5 / (n + 5));
  for (let k = 0; k < estimate.length; k++) estimate[k] = w * estimate[k]!;
  if (dense) {
    for (let i = 0; i < dim; i++) estimate[i * dim + i] = estimate[i * dim + i]! + shrink;
  } else {
    for (let i = 0; i < dim; i++) estimate[i] = estimate[i]! + shrink;
  }
}
