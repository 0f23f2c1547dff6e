/**
 * Euclidean metrics for HMC: the kinetic energy is ½·pᵀ·M⁻¹·p with M⁻¹ the
 * "inverse metric" (Stan's inv_metric), diagonal or dense.
 */

import { choleskyInPlace, matVec, solveLowerTransposed } from "./linalg.ts";

/** Which form the inverse metric takes. */
export type MetricKind = "diag" | "dense";

/** A metric's numbers: M⁻¹ and its factor, copied bit for bit (to continue a chain elsewhere). */
export interface MetricState {
  readonly inverse: Float64Array;
  readonly factor: Float64Array;
}

/** A diagonal or dense Euclidean metric, given by its inverse M⁻¹. */
export class Metric {
  readonly kind: MetricKind;
  readonly dim: number;
  /** M⁻¹: the diagonal (length dim) or the full matrix (dim×dim, row-major). */
  readonly inverse: Float64Array;
  // diag: 1/sqrt(M⁻¹ᵢᵢ); dense: lower Cholesky factor L of M⁻¹ = L·Lᵀ.
  private readonly factor: Float64Array;
  private changes = 0;

  /** How many times M⁻¹ has been replaced: a copy of it taken at the same generation is still current. */
  get generation(): number {
    return this.changes;
  }

  /** Unit metric of the given kind, or the given inverse metric. */
  constructor(kind: MetricKind, dim: number, inverse?: Float64Array) {
    this.kind = kind;
    this.dim = dim;
    const size = kind === "diag" ? dim : dim * dim;
    this.inverse = new Float64Array(size);
    this.factor = new Float64Array(size);
    if (inverse) {
      this.set(inverse);
    } else if (kind === "diag") {
      this.inverse.fill(1);
      this.factor.fill(1);
    } else {
      for (let i = 0; i < dim; i++) {
        this.inverse[i * dim + i] = 1;
        this.factor[i * dim + i] = 1;
      }
    }
  }

  /** Replaces M⁻¹; returns false (leaving the metric unchanged) when it is not finite positive definite. */
  trySet(inverse: Float64Array): boolean {
    const n = this.dim;
    if (inverse.length !== this.inverse.length) {
      throw new RangeError(`inverse metric has length ${inverse.length}, expected ${this.inverse.length}`);
    }
    if (this.kind === "diag") {
      for (let i = 0; i < n; i++) {
        const v = inverse[i]!;
        if (!(v > 0) || !Number.isFinite(v)) return false;
      }
      for (let i = 0; i < n; i++) {
        this.inverse[i] = inverse[i]!;
        this.factor[i] = 1 / Math.sqrt(inverse[i]!);
      }
      this.changes++;
      return true;
    }
    const l = Float64Array.from(inverse);
    if (!choleskyInPlace(l, n)) return false;
    this.inverse.set(inverse);
    this.factor.set(l);
    this.changes++;
    return true;
  }

  /** Replaces M⁻¹; throws when it is not finite positive definite. */
  set(inverse: Float64Array): void {
    if (!this.trySet(inverse)) {
      throw new RangeError(`inverse metric (${this.kind}) is not finite and positive definite`);
    }
  }

  /** A copy of M⁻¹ and its factor. */
  state(): MetricState {
    return { inverse: Float64Array.from(this.inverse), factor: Float64Array.from(this.factor) };
  }

  /** Takes M⁻¹ and its factor from state() of a metric of the same kind and size. */
  restore(s: MetricState): void {
    this.inverse.set(s.inverse);
    this.factor.set(s.factor);
    this.changes++;
  }

  /** Velocity dq/dt = M⁻¹·p (Stan's p_sharp), written to out. */
  velocity(p: Float64Array, out: Float64Array): void {
    const n = this.dim;
    if (this.kind === "diag") {
      const inv = this.inverse;
      for (let i = 0; i < n; i++) out[i] = inv[i]! * p[i]!;
    } else {
      matVec(this.inverse, n, p, out);
    }
  }

  /** Kinetic energy ½·pᵀ·M⁻¹·p; also leaves M⁻¹·p in vel. */
  kinetic(p: Float64Array, vel: Float64Array): number {
    const n = this.dim;
    let s = 0;
    if (this.kind === "diag") {
      // One pass for the velocity and the sum (this runs at every leapfrog step); the same products in the same order.
      const inv = this.inverse;
      for (let i = 0; i < n; i++) {
        const v = inv[i]! * p[i]!;
        vel[i] = v;
        s += p[i]! * v;
      }
      return 0.5 * s;
    }
    matVec(this.inverse, n, p, vel);
    for (let i = 0; i < n; i++) s += p[i]! * vel[i]!;
    return 0.5 * s;
  }

  /**
   * Momentum p ~ N(0, M) from standard normals z: diag p = z/sqrt(M⁻¹);
   * dense p = L⁻ᵀ·z with M⁻¹ = L·Lᵀ, so Cov(p) = (L·Lᵀ)⁻¹ = M (Stan's dense_e).
   */
  momentumFromNormals(z: Float64Array, out: Float64Array): void {
    if (this.kind === "diag") {
      const f = this.factor;
      for (let i = 0; i < this.dim; i++) out[i] = z[i]! * f[i]!;
    } else {
      solveLowerTransposed(this.factor, this.dim, z, out);
    }
  }
}
