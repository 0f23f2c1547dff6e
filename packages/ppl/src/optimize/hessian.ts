import type { Objective } from "./objective.ts";

/**
 * The Hessian of an objective at x by central differences of its gradient (the gradient is exact,
 * by reverse-mode autodiff; CmdStan's Laplace approximation takes finite differences of gradients
 * too), symmetrized: H[i][j] = (∂g_j(x + h_i e_i) − ∂g_j(x − h_i e_i)) / 2h_i with h_i = ε^(1/3)·max(1, |x_i|),
 * whose truncation error is O(h²). Row-major n·n; NaN entries where the gradient is not finite there.
 */
export function finiteDifferenceHessian(obj: Objective, x: Float64Array): Float64Array {
  const n = obj.dim;
  const h = new Float64Array(n * n);
  const gp = new Float64Array(n);
  const gm = new Float64Array(n);
  const xt = Float64Array.from(x);
  for (let i = 0; i < n; i++) {
    const step = Math.cbrt(Number.EPSILON) * Math.max(1, Math.abs(x[i]!));
    xt[i] = x[i]! + step;
    obj.evaluate(xt, gp);
    xt[i] = x[i]! - step;
    obj.evaluate(xt, gm);
    xt[i] = x[i]!;
    for (let j = 0; j < n; j++) h[i * n + j] = (gp[j]! - gm[j]!) / (2 * step);
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
