import fc from "fast-check";
import { add, cast, div, exp, gt, log, mul, neg, select, square, sub } from "../../api/elementwise.ts";
import { constant } from "../../api/leaves.ts";
import { logsumexp } from "../../api/reduce.ts";
import { scan } from "../../api/scan.ts";
import { odeRK45Solve } from "../../api/ode.ts";
import { reduce } from "../../api/reduce.ts";
import { index, reshape, stack } from "../../api/shape-ops.ts";
import { floats } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { compositeTol } from "../tolerance.ts";

/**
 * Sequential recurrences through scan: a GARCH(1,1) likelihood, an HMM forward pass (both
 * directions), and the adaptive RK45 solver (a scan that stops at a fixed point of its carries).
 */
export function scanCases(): ConformanceCase[] {
  return [
    {
      name: "scan: GARCH(1,1) log-likelihood",
      ops: ["scan", "tuple_get", "arg"],
      tolerance: (dtype) => compositeTol(dtype, 48),
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 12 }), fc.boolean()).chain(([T, reverse]) =>
          instanceArb(
            dtype,
            [
              { name: "r", shape: [T], values: floats(-2, 2), leaf: "data" },
              { name: "omega", shape: [], values: floats(0.05, 0.3) },
              { name: "alpha", shape: [], values: floats(0.05, 0.3) },
              { name: "beta", shape: [], values: floats(0.3, 0.6) },
            ],
            ([r, omega, alpha, beta]) => {
              const { carry, ys } = scan(
                ([s2, ll, count], [rt], [w, a, b]) => {
                  const r2 = square(rt!);
                  const next = add(add(w!, mul(a!, r2)), mul(b!, s2!));
                  const ll2 = sub(ll!, mul(0.5, add(log(next), div(r2, next))));
                  return { carry: [next, ll2, add(count!, 1)], ys: [next, cast(count!, dtype)] };
                },
                [constant(1, [], dtype), constant(0, [], dtype), constant(0, [], "i32")],
                [r!],
                [omega!, alpha!, beta!],
                { reverse },
              );
              return { outputs: [...carry, ...ys] };
            },
          ),
        ),
    },
    {
      name: "scan: HMM forward pass (logsumexp over the previous state)",
      ops: ["scan", "tuple_get", "arg", "reduce_logsumexp"],
      tolerance: (dtype) => compositeTol(dtype, 48),
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 4 }), fc.boolean()).chain(([T, K, reverse]) =>
          instanceArb(
            dtype,
            [
              { name: "logB", shape: [T, K], values: floats(-5, 0), leaf: "data" },
              { name: "logA", shape: [K, K], values: floats(-3, 0) },
              { name: "alpha0", shape: [K], values: floats(-2, 0) },
            ],
            ([logB, logA, alpha0]) => {
              const { carry, ys } = scan(
                ([alpha], [lb]) => {
                  // alpha'[j] = log Σ_i exp(alpha[i] + logA[i, j]) + logB[t, j]: a reduction over the leading axis.
                  const next = add(logsumexp(add(reshape(alpha!, [K, 1]), logA!), 0), lb!);
                  return { carry: [next], ys: [next] };
                },
                [alpha0!],
                [logB!],
                [],
                { reverse },
              );
              return { outputs: [logsumexp(carry[0]!), ys[0]!] };
            },
          ),
        ),
    },
    {
      // Tolerances loose enough for a few dozen steps; an accept/reject decision exactly at the error
      // bound could differ between backends, but random parameters practically never sit on one.
      name: "scan: adaptive RK45 (Lotka–Volterra and Michaelis–Menten) with forward sensitivities",
      ops: ["scan", "tuple_get", "arg", "select", "matmul", "is_finite"],
      tolerance: (dtype) => compositeTol(dtype, 256),
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 4 }), fc.boolean()).chain(([N, mm]) =>
          instanceArb(
            dtype,
            [
              { name: "theta", shape: [4], values: floats(0.3, 1.2) },
              { name: "z0", shape: [2], values: floats(0.5, 2) },
              { name: "gaps", shape: [N], values: floats(0.1, 0.8), leaf: "data" },
            ],
            ([theta, z0, gaps]) => {
              const ts = reduce("reduce_sum", mul(reshape(gaps!, [1, N]), lowerOnes(N, dtype)), [1]);
              const sol = mm
                ? odeRK45Solve((t, y, [th]) => {
                    // Absorption from t > 0 and saturating elimination, as in one_comp_mm_elim_abs.
                    const dose = select(gt(t, 0), mul(exp(neg(mul(index(th!, 0), t))), index(th!, 1)), 0);
                    return sub(dose, div(mul(index(th!, 2), y), add(index(th!, 3), y)));
                  }, reshape(index(z0!, 0), [1]), 0, ts, [theta!], { rtol: 1e-4, atol: 1e-6, maxSteps: 80 })
                : odeRK45Solve((_t, z, [th]) => {
                    const [u, v] = [index(z, 0), index(z, 1)];
                    return stack([mul(sub(index(th!, 0), mul(index(th!, 1), v)), u), mul(add(neg(index(th!, 2)), mul(index(th!, 3), u)), v)]);
                  }, z0!, 0, ts, [theta!], { rtol: 1e-4, atol: 1e-6, maxSteps: 80 });
              return { outputs: [sol.states, cast(sol.ok, dtype), sol.steps] };
            },
          ),
        ),
    },
  ];
}

// [N, N] with ones on and below the diagonal: a row-sum of gaps times it gives increasing output times.
function lowerOnes(N: number, dtype: "f32" | "f64") {
  return constant(Array.from({ length: N * N }, (_, q) => (q % N <= Math.floor(q / N) ? 1 : 0)), [N, N], dtype);
}
