import { interpret, type Bindings } from "../cpu/reference/interpret.ts";
import { GraphError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { grad } from "./vjp.ts";

/** Options of a gradient check. */
export interface GradCheckOptions {
  /** Relative tolerance on each gradient entry. */
  rtol?: number;
  /** Magnitude of the terms summed into the output (default 1 + |f|); sets the absolute tolerance. */
  scale?: number;
  /** Finite-difference step relative to max(1, |x|). */
  relStep?: number;
}

/** What a gradient check found: both gradients, and the worst entry relative to its tolerance. */
export interface GradCheckResult {
  ok: boolean;
  /** max over entries of |analytic − numeric| / tolerance; ≤ 1 passes. */
  worst: number;
  message: string;
  analytic: Float64Array[];
  numeric: Float64Array[];
}

/**
 * Central finite differences of a scalar graph with respect to named inputs (params or data),
 * evaluated by the reference interpreter in f64.
 */
export function numericGrad(output: Node, wrt: readonly Node[], bindings: Bindings, relStep = 1e-6): Float64Array[] {
  const f = (b: Bindings) => interpret([output], b)[0]!.data[0]!;
  return wrt.map((w) => {
    const name = w.attrs.name;
    if (name === undefined) throw new GraphError(`numericGrad: ${w} is not a named input`);
    const base = Float64Array.from(valuesOf(bindings[name]));
    const g = new Float64Array(base.length);
    for (let i = 0; i < base.length; i++) {
      const x = base[i]!;
      const h = relStep * Math.max(1, Math.abs(x));
      const up = Float64Array.from(base), down = Float64Array.from(base);
      up[i] = x + h;
      down[i] = x - h;
      // Divide by the step actually taken (x ± h rounded), not the nominal 2h.
      g[i] = (f({ ...bindings, [name]: { dtype: w.dtype, shape: w.shape, data: up } }) -
        f({ ...bindings, [name]: { dtype: w.dtype, shape: w.shape, data: down } })) / (up[i]! - down[i]!);
    }
    return g;
  });
}

/**
 * Compare the gradient graph of a scalar output with central finite differences. An entry passes
 * when |analytic − numeric| ≤ rtol·|numeric| + 1e-8·scale. The absolute part bounds the rounding
 * error of the difference quotient: each evaluation of f is off by about k·ε·scale (k the depth
 * of the computation, ε = 1.1e-16), divided by a step h ≥ 1e-6, so about 1e-10·k·scale, which
 * stays under 1e-8·scale for computations up to ~100 roundings deep. The truncation error
 * h²·|f'''|/6 ≈ 1e-13·|f'''| is negligible for the well-conditioned inputs tests choose.
 */
export function checkGrad(output: Node, wrt: readonly Node[], bindings: Bindings, opts: GradCheckOptions = {}): GradCheckResult {
  const rtol = opts.rtol ?? 1e-6;
  const [value, ...grads] = interpret([output, ...grad(output, wrt)], bindings);
  const scale = opts.scale ?? 1 + Math.abs(value!.data[0]!);
  const analytic = grads.map((g) => g.data);
  const numeric = numericGrad(output, wrt, bindings, opts.relStep);
  let worst = 0;
  let message = "ok";
  analytic.forEach((a, k) => {
    for (let i = 0; i < a.length; i++) {
      const n = numeric[k]![i]!;
      const tol = rtol * Math.abs(n) + 1e-8 * scale;
      const excess = Number.isNaN(a[i]!) || Number.isNaN(n) ? Infinity : Math.abs(a[i]! - n) / tol;
      if (excess > worst) {
        worst = excess;
        message = `d/d ${wrt[k]!.attrs.name}[${i}]: analytic ${a[i]}, numeric ${n} (tolerance ${tol.toExponential(2)})`;
      }
    }
  });
  return { ok: worst <= 1, worst, message, analytic, numeric };
}

function valuesOf(v: Bindings[string] | undefined): ArrayLike<number> {
  if (v === undefined) throw new GraphError("numericGrad: an input has no bound value");
  if (typeof v === "number") return [v];
  if ("data" in v && "shape" in v) return v.data;
  return v as ArrayLike<number>;
}
