import { batchedOf, type BatchedObjective } from "./batched-objective.ts";
import type { Objective } from "./objective.ts";

/**
 * The Hessian of an objective at x by central differences of its gradient (the gradient is exact,
 * by reverse-mode autodiff; CmdStan's Laplace approximation takes finite differences of gradients
 * too), symmetrized: H[i][j] = (∂g_j(x + h_i e_i) − ∂g_j(x − h_i e_i)) / 2h_i with h_i = ε^(1/3)·max(1, |x_i|),
 * whose truncation error is O(h²). Row-major n·n; NaN entries where the gradient is not finite there.
 * The 2n gradients are one call of `batched` (by default the one behind a PointObjective, so that
 * Newton's steps on a GPU take one call a Hessian), or of `obj` a point at a time.
 */
export function finiteDifferenceHessian(obj: Objective, x: Float64Array, batched: BatchedObjective = batchedOf(obj)): Float64Array {
  const n = obj.dim;
  const h = new Float64Array(n * n);
  // Rows 2i and 2i + 1: x + h_i e_i and x − h_i e_i.
  const points = new Float64Array(2 * n * n);
  const steps = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    steps[i] = Math.cbrt(Number.EPSILON) * Math.max(1, Math.abs(x[i]!));
    points.set(x, 2 * i * n);
    points.set(x, (2 * i + 1) * n);
    points[2 * i * n + i] = x[i]! + steps[i]!;
    points[(2 * i + 1) * n + i] = x[i]! - steps[i]!;
  }
  const grads = new Float64Array(2 * n * n);
  batched.evaluateBatch(points, 2 * n, new Float64Array(2 * n), grads);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) h[i * n + j] = (grads[2 * i * n + j]! - grads[(2 * i + 1) * n + j]!) / (2 * steps[i]!);
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const s = 0.5 * (h[i * n + j]! + h[j * n + i]!);
      h[i * n + j] = s;
      h[j * n + i] = s;
    }
  }
  return h;
}
