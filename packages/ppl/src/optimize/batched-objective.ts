/**
 * An objective evaluated at many points in one call: what the approximations (Pathfinder's paths
 * in lockstep and its Monte Carlo ELBO draws, ADVI's draws, Laplace's finite-difference Hessian)
 * hand a whole round of points to. On the CPU the call loops over the points (the same bits as one
 * call a point); over a batched density of fixed batch sizes (the GPU's batched gradient, one
 * device submission a call) the points fill a batch, padded or split to the sizes it was built for.
 */
import type { BatchedDensity } from "../sampler/density.ts";
import type { Objective } from "./objective.ts";

/** f and ∇f at n points at once (row-major n·dim); +Infinity where the value is not finite or NaN, as Objective.evaluate. */
export interface BatchedObjective {
  readonly dim: number;
  /** f at each of the n points of x (n·dim) into f (n), ∇f into grad (n·dim). */
  evaluateBatch(x: Float64Array, n: number, f: Float64Array, grad: Float64Array): void;
  /** Batched calls so far (each one evaluation of a batch on a device, or one loop on the CPU). */
  readonly calls: number;
}

/** The CPU's batched objective: one call of `obj` a point, in order (the same values as calling it a point at a time). */
export function loopedObjective(obj: Objective): BatchedObjective {
  const dim = obj.dim;
  let calls = 0;
  return {
    dim,
    evaluateBatch(x, n, f, grad) {
      calls++;
      for (let r = 0; r < n; r++) f[r] = obj.evaluate(x.subarray(r * dim, (r + 1) * dim), grad.subarray(r * dim, (r + 1) * dim));
    },
    get calls() {
      return calls;
    },
  };
}

/**
 * The negative log density over batched densities of fixed batch sizes (`bySize`: batch size →
 * density that evaluates exactly that many rows per call): a call of n points takes the smallest
 * size ≥ n, its unused rows copies of the first point (computed and dropped: every row of a batch
 * is independent of the others), and a call beyond the largest size is split into calls of it.
 */
export function fixedBatchObjective(bySize: ReadonlyMap<number, BatchedDensity>): BatchedObjective {
  const sizes = [...bySize.keys()].sort((a, b) => a - b);
  if (sizes.length === 0 || sizes[0]! < 1) throw new Error("fixedBatchObjective: give at least one batch size of one row or more");
  const dim = bySize.get(sizes[0]!)!.dim;
  const buffers = new Map(sizes.map((c) => [c, { q: new Float64Array(c * dim), lp: new Float64Array(c), g: new Float64Array(c * dim) }]));
  let calls = 0;
  const evaluateChunk = (x: Float64Array, from: number, n: number, f: Float64Array, grad: Float64Array): void => {
    const size = sizes.find((c) => c >= n) ?? sizes[sizes.length - 1]!;
    const { q, lp, g } = buffers.get(size)!;
    q.set(x.subarray(from * dim, (from + n) * dim));
    for (let r = n; r < size; r++) q.copyWithin(r * dim, 0, dim);
    bySize.get(size)!.logpGrad(q, lp, g);
    calls++;
    for (let r = 0; r < n; r++) {
      const v = -lp[r]!;
      f[from + r] = Number.isNaN(v) ? Infinity : v;
      for (let i = 0, o = r * dim, t = (from + r) * dim; i < dim; i++) grad[t + i] = -g[o + i]!;
    }
  };
  const largest = sizes[sizes.length - 1]!;
  return {
    dim,
    evaluateBatch(x, n, f, grad) {
      for (let from = 0; from < n; from += largest) evaluateChunk(x, from, Math.min(largest, n - from), f, grad);
    },
    get calls() {
      return calls;
    },
  };
}

/** An Objective that evaluates each point as a one-row call of a batched objective, which it keeps for the steps that evaluate many points at once (a Hessian's gradients). */
export interface PointObjective extends Objective {
  readonly batched: BatchedObjective;
}

/** One point's evaluation through a batched objective (for the steps that evaluate a point alone: an optimizer's path). */
export function pointObjective(batched: BatchedObjective): PointObjective {
  const f = new Float64Array(1);
  return {
    dim: batched.dim,
    batched,
    evaluate(x, grad) {
      batched.evaluateBatch(x, 1, f, grad);
      return f[0]!;
    },
  };
}

/** The batched objective behind `obj` (a PointObjective's), or the CPU's loop over it. */
export function batchedOf(obj: Objective): BatchedObjective {
  return "batched" in obj ? (obj as PointObjective).batched : loopedObjective(obj);
}
