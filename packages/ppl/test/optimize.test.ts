// The optimizers on closed-form problems (a Gaussian's mode, Rosenbrock's valley), each of
// CmdStan's convergence criteria triggering, the strong Wolfe conditions of every accepted step,
// and --jacobian moving a gamma-distributed parameter's mode from (α−1)/β to α/β.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compileModel, gamma, model, normal } from "../src/index.ts";
import {
  dot, LINE_SEARCH_DEFAULTS, minimize, objectiveOf, optimizationDensity, strongWolfe, symmetricEigen, laplaceApproximation, HessianError,
  type Objective, type OptimizerName,
} from "../src/optimize/index.ts";

const ALGORITHMS: OptimizerName[] = ["lbfgs", "bfgs", "newton"];

/** ½ (x − m)ᵀ A (x − m) with A = diag(scales) rotated: a Gaussian's negative log density, mode m. */
function gaussian(m: number[], scales: number[]): Objective {
  const n = m.length;
  return {
    dim: n,
    evaluate(x, g) {
      let f = 0;
      for (let i = 0; i < n; i++) {
        // A tridiagonal coupling keeps it positive definite (diagonally dominant) and not separable.
        const r = x[i]! - m[i]!;
        const left = i > 0 ? x[i - 1]! - m[i - 1]! : 0;
        const right = i < n - 1 ? x[i + 1]! - m[i + 1]! : 0;
        g[i] = scales[i]! * r + 0.25 * (left + right);
        f += 0.5 * r * g[i]!;
      }
      return f;
    },
  };
}

const rosenbrock: Objective = {
  dim: 2,
  evaluate(x, g) {
    const [a, b] = [x[0]!, x[1]!];
    g[0] = -2 * (1 - a) - 400 * a * (b - a * a);
    g[1] = 200 * (b - a * a);
    return (1 - a) ** 2 + 100 * (b - a * a) ** 2;
  },
};

describe("optimizers", () => {
  test.each(ALGORITHMS)("%s finds a correlated Gaussian's mode: to 1e-4 with CmdStan's defaults, to 1e-8 on the gradient test alone", (algorithm) => {
    const m = [1, -2, 3, 0.5, -0.25];
    const obj = gaussian(m, [1, 4, 9, 2, 30]);
    // tol-obj 1e-12 stops where f − f* < 1e-12 can still leave x − m of order √(2e-12 / λmin).
    const loose = minimize(obj, new Float64Array(5), { algorithm });
    expect(loose.converged, loose.message).toBe(true);
    loose.x.forEach((v, i) => expect(Math.abs(v - m[i]!)).toBeLessThan(1e-4));
    // ‖g‖ < 1e-8 bounds ‖x − m‖ by 1e-8 / λmin (λmin > 0.5 here).
    const tight = minimize(obj, new Float64Array(5), { algorithm, tolObj: 0, tolRelObj: 0, tolRelGrad: 0, tolParam: 0 });
    expect(tight.termination).toBe("tol-grad");
    tight.x.forEach((v, i) => expect(Math.abs(v - m[i]!)).toBeLessThan(2e-8));
  });

  test.each(ALGORITHMS)("%s finds Rosenbrock's minimum (1, 1) from (−1.2, 1)", (algorithm) => {
    const r = minimize(rosenbrock, Float64Array.of(-1.2, 1), { algorithm, tolRelObj: 0, tolRelGrad: 0, tolObj: 0 });
    expect(r.converged, r.message).toBe(true);
    expect(Math.abs(r.x[0]! - 1)).toBeLessThan(1e-5);
    expect(Math.abs(r.x[1]! - 1)).toBeLessThan(1e-5);
  });

  test("each convergence criterion triggers, and a run that cannot converge says which limit it hit", () => {
    const none = { tolObj: 0, tolRelObj: 0, tolGrad: 0, tolRelGrad: 0, tolParam: 0 };
    const start = Float64Array.of(-1.2, 1);
    const cases: [object, string][] = [
      [{ ...none, tolObj: 1e-3 }, "tol-obj"],
      [{ ...none, tolRelObj: 1e12 }, "tol-rel-obj"],
      [{ ...none, tolGrad: 1e-1 }, "tol-grad"],
      [{ ...none, tolRelGrad: 1e14 }, "tol-rel-grad"],
      [{ ...none, tolParam: 1e-1 }, "tol-param"],
      [{ ...none, iter: 3 }, "max-iterations"],
    ];
    for (const [opts, expected] of cases) {
      const r = minimize(rosenbrock, start, opts);
      expect(r.termination, expected).toBe(expected);
      expect(r.converged).toBe(expected !== "max-iterations");
    }
    expect(minimize(rosenbrock, start, { ...none, iter: 3 }).message).toMatch(/Maximum number of iterations hit \(--iter 3\)/);
    // A gradient that points the wrong way: no step along −g decreases f.
    const wrong: Objective = { dim: 1, evaluate: (x, g) => ((g[0] = -2 * x[0]!), x[0]! ** 2) };
    const r = minimize(wrong, Float64Array.of(1));
    expect(r.termination).toBe("line-search");
    expect(r.converged).toBe(false);
    expect(r.message).toMatch(/Line search failed/);
  });

  test("an accepted line-search step meets the strong Wolfe conditions (random convex quadratics)", () => {
    fc.assert(fc.property(
      fc.array(fc.double({ min: 0.1, max: 100, noNaN: true }), { minLength: 1, maxLength: 6 }),
      fc.double({ min: 1e-4, max: 10, noNaN: true }),
      (scales, alpha0) => {
        const obj = gaussian(scales.map((_, i) => i - 1), scales);
        const x = new Float64Array(scales.length).fill(3);
        const g = new Float64Array(scales.length);
        const f = obj.evaluate(x, g);
        const p = g.map((v) => -v);
        const r = strongWolfe(obj, x, f, g, p, alpha0);
        expect(r.ok).toBe(true);
        const d0 = dot(g, p);
        expect(r.f).toBeLessThanOrEqual(f + LINE_SEARCH_DEFAULTS.c1 * r.alpha * d0 + 1e-12 * Math.abs(f));
        expect(Math.abs(dot(r.g, p))).toBeLessThanOrEqual(-LINE_SEARCH_DEFAULTS.c2 * d0 * (1 + 1e-12));
      },
    ), { seed: 45, numRuns: 200 });
  });

  test("an objective without a minimum (f = −x₁ − ½x₂, falling as far as the steps reach) fails the line search as unbounded, for the quasi-Newton methods", () => {
    const linear: Objective = { dim: 2, evaluate: (x, g) => ((g[0] = -1), (g[1] = -0.5), -x[0]! - 0.5 * x[1]!) };
    const x0 = Float64Array.of(0.3, -0.2);
    const g0 = Float64Array.of(-1, -0.5);
    const ls = strongWolfe(linear, x0, linear.evaluate(x0, new Float64Array(2)), g0, Float64Array.of(1, 0.5), 1);
    expect([ls.ok, ls.unbounded, ls.evaluations]).toEqual([false, true, LINE_SEARCH_DEFAULTS.maxEvaluations]);
    // Newton's Hessian is zero here: its floored eigenvalues give no descent direction to search.
    expect(minimize(linear, x0, { algorithm: "newton" }).converged).toBe(false);
    for (const algorithm of ["lbfgs", "bfgs"] as const) {
      const r = minimize(linear, x0, { algorithm });
      expect([r.termination, r.converged, r.iterations], algorithm).toEqual(["unbounded", false, 0]);
      expect(Array.from(r.x)).toEqual(Array.from(x0));
      expect(r.message).toMatch(/kept decreasing along the search direction .* it may have no minimum/);
    }
  });

  test("Jacobi eigenvalues of a symmetric matrix reconstruct it", () => {
    const a = Float64Array.of(4, 1, 0.5, 1, 3, -1, 0.5, -1, 2);
    const { values, vectors } = symmetricEigen(a, 3);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        let s = 0;
        for (let k = 0; k < 3; k++) s += vectors[i * 3 + k]! * values[k]! * vectors[j * 3 + k]!;
        expect(s).toBeCloseTo(a[i * 3 + j]!, 12);
      }
    }
  });
});

describe("the mode of a model, with and without the Jacobian", () => {
  // σ ~ gamma(α, β) on (0, ∞): its density's mode is (α − 1)/β; on the log scale u = log σ the
  // density with the Jacobian, p(eᵘ)·eᵘ ∝ σ^α e^(−βσ), has its mode at σ = α/β.
  const alpha = 3.5;
  const beta = 2;
  const compiled = compileModel(model({ name: "g", data: {}, build: (m) => void m.param("sigma", gamma(alpha, beta)) }), {});

  test.each([[false, (alpha - 1) / beta], [true, alpha / beta]] as const)("jacobian %s: σ at the mode is %d", async (jacobian, mode) => {
    const density = await optimizationDensity(compiled, jacobian);
    const r = minimize(objectiveOf(density), Float64Array.of(0.3));
    expect(r.converged, r.message).toBe(true);
    expect(Math.abs(Math.exp(r.x[0]!) - mode) / mode).toBeLessThan(1e-6);
  });

  test("the Laplace approximation at a normal model's mode has its exact precision; a flat direction is a HessianError", async () => {
    const c = compileModel(model({ name: "n", data: {}, build: (m) => void m.param("mu", normal(1, 0.5)) }), {});
    const obj = objectiveOf(await optimizationDensity(c, true));
    const r = minimize(obj, Float64Array.of(0));
    const approx = laplaceApproximation(obj, r.x);
    expect(approx.precisionFactor[0]! ** 2).toBeCloseTo(4, 6);
    const flat: Objective = { dim: 2, evaluate: (x, g) => ((g[0] = x[0]!), (g[1] = 0), 0.5 * x[0]! ** 2) };
    expect(() => laplaceApproximation(flat, new Float64Array(2))).toThrow(HessianError);
  });
});
