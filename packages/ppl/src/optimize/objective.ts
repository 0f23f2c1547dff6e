import type { BatchedDensity } from "../sampler/density.ts";

/**
 * A function to minimize over R^dim: its value at x, with its gradient written into `grad`. The
 * optimizers minimize, so a log density enters as its negative (see objectiveOf).
 */
export interface Objective {
  readonly dim: number;
  /** f(x), writing ∇f(x) into grad; a point outside the function's domain gives +Infinity or NaN. */
  evaluate(x: Float64Array, grad: Float64Array): number;
}

/** The negative of a log density (one chain of a BatchedDensity): what maximizing the density minimizes. */
export function objectiveOf(density: BatchedDensity): Objective {
  const lp = new Float64Array(1);
  return {
    dim: density.dim,
    evaluate(x, grad) {
      density.logpGrad(x, lp, grad);
      for (let i = 0; i < grad.length; i++) grad[i] = -grad[i]!;
      const f = -lp[0]!;
      return Number.isNaN(f) ? Infinity : f;
    },
  };
}

/** x + a·p, into a new array. */
export function axpy(x: Float64Array, a: number, p: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i]! + a * p[i]!;
  return out;
}

/** The dot product of two vectors. */
export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The Euclidean norm of a vector. */
export function norm(a: Float64Array): number {
  return Math.sqrt(dot(a, a));
}

/** a - b, into a new array. */
export function sub(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! - b[i]!;
  return out;
}
