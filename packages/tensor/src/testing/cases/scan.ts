import fc from "fast-check";
import { add, cast, div, log, mul, square, sub } from "../../api/elementwise.ts";
import { constant } from "../../api/leaves.ts";
import { logsumexp } from "../../api/reduce.ts";
import { scan } from "../../api/scan.ts";
import { reshape } from "../../api/shape-ops.ts";
import { floats } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { compositeTol } from "../tolerance.ts";

/** Sequential recurrences through scan: a GARCH(1,1) likelihood and an HMM forward pass (both directions). */
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
  ];
}
