/**
 * Leapfrog (velocity Verlet) for H(q, p) = −log π(q) + ½·pᵀM⁻¹p.
 *
 * One step is split at the gradient evaluation so that many chains can share
 * one batched `logpGrad` call between the halves:
 *   begin: p += ε/2·∇log π(q);  q += ε·M⁻¹p      (then evaluate ∇log π at the new q)
 *   end:   p += ε/2·∇log π(q)
 * ε carries the direction of time (negative when integrating backwards).
 */

import type { BatchedDensity } from "./density.ts";
import type { Metric } from "./metric.ts";

/** First half of a leapfrog step: half momentum kick with the current gradient, then a full drift. */
export function leapfrogBegin(
  q: Float64Array,
  p: Float64Array,
  grad: Float64Array,
  eps: number,
  metric: Metric,
  vel: Float64Array,
): void {
  const half = 0.5 * eps;
  const n = q.length;
  if (metric.kind === "diag") {
    // One pass instead of three (this runs at every leapfrog step); each element gets the same operations.
    const inv = metric.inverse;
    for (let i = 0; i < n; i++) {
      const pi = p[i]! + half * grad[i]!;
      p[i] = pi;
      const v = inv[i]! * pi;
      vel[i] = v;
      q[i] = q[i]! + eps * v;
    }
    return;
  }
  for (let i = 0; i < n; i++) p[i] = p[i]! + half * grad[i]!;
  metric.velocity(p, vel);
  for (let i = 0; i < n; i++) q[i] = q[i]! + eps * vel[i]!;
}

/** Second half of a leapfrog step: half momentum kick with the gradient at the new position. */
export function leapfrogEnd(p: Float64Array, grad: Float64Array, eps: number): void {
  const half = 0.5 * eps;
  const n = p.length;
  for (let i = 0; i < n; i++) p[i] = p[i]! + half * grad[i]!;
}

/**
 * Hamiltonian −lp + ½·pᵀM⁻¹p; leaves M⁻¹p (p♯) in vel. NaN, and any
 * non-finite gradient, count as +∞ so the state is treated as divergent.
 */
export function hamiltonian(lp: number, grad: Float64Array, p: Float64Array, metric: Metric, vel: Float64Array): number {
  const h = -lp + metric.kinetic(p, vel);
  if (Number.isNaN(h)) return Infinity;
  for (let i = 0; i < grad.length; i++) {
    // A finite density with a non-finite gradient would poison every later step.
    if (!Number.isFinite(grad[i]!)) return Infinity;
  }
  return h;
}

/**
 * leapfrogEnd followed by hamiltonian(lp, grad, p, metric, vel), in one pass over the vectors for a
 * diagonal metric: the same operations per element, so the same bits.
 */
export function leapfrogEndHamiltonian(lp: number, p: Float64Array, grad: Float64Array, eps: number, metric: Metric, vel: Float64Array): number {
  if (metric.kind !== "diag") {
    leapfrogEnd(p, grad, eps);
    return hamiltonian(lp, grad, p, metric, vel);
  }
  const half = 0.5 * eps;
  const inv = metric.inverse;
  const n = p.length;
  let s = 0;
  let finite = true;
  for (let i = 0; i < n; i++) {
    const g = grad[i]!;
    if (!Number.isFinite(g)) finite = false;
    const pi = p[i]! + half * g;
    p[i] = pi;
    const v = inv[i]! * pi;
    vel[i] = v;
    s += pi * v;
  }
  const h = -lp + 0.5 * s;
  // As hamiltonian: NaN, and any non-finite gradient, count as +∞.
  return Number.isNaN(h) || !finite ? Infinity : h;
}

/** One chain's phase-space point for {@link integrate}. */
export interface PhasePoint {
  readonly q: Float64Array;
  readonly p: Float64Array;
  /** length 1: log density at q */
  readonly lp: Float64Array;
  readonly grad: Float64Array;
}

/**
 * Runs `steps` leapfrog steps of size eps for a single chain (C = 1) in place;
 * a reference and test helper — the samplers drive the halves themselves.
 */
export function integrate(density: BatchedDensity, z: PhasePoint, eps: number, metric: Metric, steps: number): void {
  const vel = new Float64Array(z.q.length);
  for (let s = 0; s < steps; s++) {
    leapfrogBegin(z.q, z.p, z.grad, eps, metric, vel);
    density.logpGrad(z.q, z.lp, z.grad);
    leapfrogEnd(z.p, z.grad, eps);
  }
}
