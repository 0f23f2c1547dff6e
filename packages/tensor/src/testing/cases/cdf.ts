import fc from "fast-check";
import * as api from "../../api/elementwise.ts";
import { logDiffExp, log1mExp, logPhi, Phi } from "../../api/special.ts";
import { floats, shapeArb } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { compositeTol } from "../tolerance.ts";

/**
 * The compositions the distributions' log CDFs are built from, over their whole range: logPhi in
 * its asymptotic tail (below −8 in f32, −20 in f64), its erfc range and above 0; log1mExp on both
 * sides of its switch; logDiffExp; and an lcdf-shaped chain log P(a, b·x). They use only existing
 * ops, so this checks that a backend renders the clamped selects and the tails as the CPU does.
 */
export function cdfCases(): ConformanceCase[] {
  return [
    {
      name: "cdf compositions: Phi, logPhi, log1mExp, logDiffExp",
      ops: ["erfc", "log1p", "log", "expm1", "select"],
      tolerance: (dtype) => compositeTol(dtype, 12),
      arbitrary: (dtype) =>
        shapeArb(1, 2).chain((shape) =>
          instanceArb(
            dtype,
            [
              { name: "z", shape, values: fc.oneof(floats(-40, -15), floats(-15, 0), floats(0, 8)) },
              { name: "u", shape, values: fc.oneof(floats(-30, -0.7), floats(-0.7, -1e-4)) },
              { name: "a", shape, values: floats(-5, 5), leaf: "data" },
              { name: "b", shape, values: floats(-5, 5) },
            ],
            // The larger and the smaller of two inputs, so that their difference is exact (Sterbenz) even when they are close.
            ([z, u, a, b]) => ({ outputs: [Phi(z!), logPhi(z!), log1mExp(u!), logDiffExp(api.maximum(a!, b!), api.minimum(a!, b!))] }),
          ),
        ),
    },
    {
      // The shapes are data: neither function has a gradient in them.
      name: "cdf compositions: log gamma_p(a, b·x) and log betainc(a, a + 1, x)",
      ops: ["gamma_p", "betainc", "log", "mul"],
      tolerance: (dtype) => compositeTol(dtype, 8),
      arbitrary: (dtype) =>
        shapeArb(1, 2).chain((shape) =>
          instanceArb(
            dtype,
            [
              { name: "a", shape, values: floats(0.5, 8), leaf: "data" },
              { name: "b", shape, values: floats(0.2, 3) },
              { name: "x", shape, values: floats(0.05, 0.95) },
            ],
            ([a, b, x]) => ({ outputs: [api.log(api.gammaP(a!, api.mul(b!, api.mul(x!, 10)))), api.log(api.betainc(a!, api.add(a!, 1), x!))] }),
          ),
        ),
    },
  ];
}
