/**
 * A computation that asks for its objective's values as requests (a generator yielding the points
 * it needs f and ∇f at, resumed with them), so that one algorithm serves both ways of evaluating:
 * a point at a time with an Objective, or many computations in lockstep (Pathfinder's paths), each
 * round of all their requests one call of a BatchedObjective. The computation's arithmetic is the
 * same either way; only who evaluates, and when, changes.
 */
import type { BatchedObjective } from "./batched-objective.ts";
import type { Objective } from "./objective.ts";

/** The values at a request's points: f[i] and ∇f (g[i]) at point i. */
export interface Evaluations {
  readonly f: Float64Array;
  readonly g: readonly Float64Array[];
}

/** A computation yielding requests (points, each dim long) and returning T. */
export type Evaluating<T> = Generator<readonly Float64Array[], T, Evaluations>;

/** Runs a computation with `obj`, its requests' points evaluated one at a time in order. */
export function runEvaluating<T>(gen: Evaluating<T>, obj: Objective): T {
  let step = gen.next();
  while (!step.done) {
    const points = step.value;
    const f = new Float64Array(points.length);
    const g = points.map((x, i) => {
      const gi = new Float64Array(obj.dim);
      f[i] = obj.evaluate(x, gi);
      return gi;
    });
    step = gen.next({ f, g });
  }
  return step.value;
}

/**
 * Runs computations in lockstep: each round, the requests of every one not yet finished are
 * evaluated in one batched call (in the computations' order), and each resumes with its own.
 * Returns their results in order.
 */
export function runLockstep<T>(gens: readonly Evaluating<T>[], batched: BatchedObjective): T[] {
  const dim = batched.dim;
  const results: T[] = new Array<T>(gens.length);
  let pending = gens.map((gen, i) => ({ i, gen, step: gen.next() }));
  for (;;) {
    for (const p of pending) if (p.step.done) results[p.i] = p.step.value;
    pending = pending.filter((p) => !p.step.done);
    if (pending.length === 0) return results;
    const requests = pending.map((p) => p.step.value as readonly Float64Array[]);
    const n = requests.reduce((t, r) => t + r.length, 0);
    const x = new Float64Array(n * dim);
    let row = 0;
    for (const r of requests) for (const point of r) x.set(point, dim * row++);
    const f = new Float64Array(n);
    const grad = new Float64Array(n * dim);
    if (n > 0) batched.evaluateBatch(x, n, f, grad);
    row = 0;
    pending.forEach((p, k) => {
      const count = requests[k]!.length;
      const g = Array.from({ length: count }, (_, i) => grad.slice((row + i) * dim, (row + i + 1) * dim));
      const values = { f: f.slice(row, row + count), g };
      row += count;
      p.step = p.gen.next(values);
    });
  }
}
