import fc from "fast-check";
import * as api from "../../api/elementwise.ts";
import { constant } from "../../api/leaves.ts";
import { UNARY_OPS, BINARY_OPS, COMPARE_OPS, type UnaryOp, type BinaryOp, type CompareOp } from "../../ir/ops.ts";
import { awayFromZero, bits, broadcastShapesArb, floats, shapeArb, smallInts } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { exactTol, specialTol, transcendentalTol, trigTol, type FloatDType, type Tolerance } from "../tolerance.ts";

const int32s = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -(2 ** 31) + 1, max: 2 ** 31 - 1 }));
const divisors = fc.oneof(fc.integer({ min: -7, max: 7 }), int32s);
const nonFinite = fc.oneof(floats(-5, 5), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY));

// Each op's domain (where it is finite and well-conditioned) and how accurate a backend must be there.
const UNARY_DOMAIN: Record<UnaryOp, { values: fc.Arbitrary<number>; tol: (d: FloatDType) => Tolerance; input?: "bool" }> = {
  neg: { values: floats(-5, 5), tol: exactTol },
  abs: { values: floats(-5, 5), tol: exactTol },
  sign: { values: fc.oneof(floats(-5, 5), fc.constant(0)), tol: exactTol },
  exp: { values: floats(-5, 5), tol: transcendentalTol },
  expm1: { values: floats(-5, 5), tol: transcendentalTol },
  log: { values: floats(0.01, 10), tol: transcendentalTol },
  log1p: { values: floats(-0.9, 10), tol: transcendentalTol },
  sqrt: { values: floats(0, 10), tol: exactTol },
  rsqrt: { values: floats(0.01, 10), tol: transcendentalTol },
  square: { values: floats(-5, 5), tol: exactTol },
  reciprocal: { values: awayFromZero(0.05, 10), tol: exactTol },
  sin: { values: floats(-3, 3), tol: trigTol },
  cos: { values: floats(-3, 3), tol: trigTol },
  tanh: { values: floats(-5, 5), tol: transcendentalTol },
  sigmoid: { values: floats(-10, 10), tol: transcendentalTol },
  softplus: { values: floats(-10, 10), tol: transcendentalTol },
  log_sigmoid: { values: floats(-10, 10), tol: transcendentalTol },
  erf: { values: floats(-3, 3), tol: specialTol },
  erfc: { values: floats(-3, 3), tol: specialTol },
  lgamma: { values: floats(0.1, 10), tol: specialTol },
  // Both tails: the quantile's relative accuracy there rests on erfc's.
  inv_phi: { values: fc.oneof(floats(0.001, 0.999), floats(1e-30, 1e-3), floats(0.999, 1)), tol: specialTol },
  floor: { values: floats(-5, 5), tol: exactTol },
  ceil: { values: floats(-5, 5), tol: exactTol },
  not: { values: bits, tol: exactTol, input: "bool" },
  // Finite values mixed with NaN and both infinities, which the inputs carry to the GPU unchanged.
  is_nan: { values: nonFinite, tol: exactTol },
  is_finite: { values: nonFinite, tol: exactTol },
  stop_gradient: { values: floats(-5, 5), tol: exactTol },
};

// `aData`: the first operand is data, for ops with no gradient in it (a gradient case must not differentiate it).
// `input`: both operands are of that dtype rather than the case's float type.
const BINARY_DOMAIN: Record<BinaryOp, { a: fc.Arbitrary<number>; b: fc.Arbitrary<number>; tol: (d: FloatDType) => Tolerance; aData?: boolean; input?: "i32" }> = {
  add: { a: floats(-5, 5), b: floats(-5, 5), tol: exactTol },
  sub: { a: floats(-5, 5), b: floats(-5, 5), tol: exactTol },
  mul: { a: floats(-5, 5), b: floats(-5, 5), tol: exactTol },
  div: { a: floats(-5, 5), b: awayFromZero(0.1, 5), tol: exactTol },
  pow: { a: floats(0.1, 5), b: floats(-3, 3), tol: transcendentalTol },
  max: { a: smallInts(), b: floats(-2, 2), tol: exactTol },
  min: { a: smallInts(), b: floats(-2, 2), tol: exactTol },
  atan2: { a: floats(-5, 5), b: awayFromZero(0.1, 5), tol: transcendentalTol },
  mod: { a: floats(-10, 10), b: awayFromZero(0.5, 5), tol: transcendentalTol },
  // Shapes up to 10 and x out to the far upper tail: both the series and the continued fraction.
  gamma_p: { a: floats(0.5, 10), b: floats(0, 25), tol: specialTol },
  gamma_q: { a: floats(0.5, 10), b: floats(0, 25), tol: specialTol },
  gamma_p_da: { a: floats(0.5, 10), b: floats(0, 25), tol: specialTol, aData: true },
  // Both signs and both sides of |a| = 1 (the quadrature and the reflection).
  owens_t: { a: floats(-6, 6), b: floats(-5, 5), tol: specialTol },
  // Both signs of each operand, zero divisors and the full i32 range (but not −2³¹, whose %/ −1 overflows).
  quotient: { a: int32s, b: divisors, tol: exactTol, aData: true, input: "i32" },
  remainder: { a: int32s, b: divisors, tol: exactTol, aData: true, input: "i32" },
  bit_and: { a: int32s, b: int32s, tol: exactTol, aData: true, input: "i32" },
  bit_or: { a: int32s, b: int32s, tol: exactTol, aData: true, input: "i32" },
  bit_xor: { a: int32s, b: int32s, tol: exactTol, aData: true, input: "i32" },
  // Negative counts and counts past 31 too: both are taken mod 32.
  shift_left: { a: int32s, b: fc.integer({ min: -8, max: 40 }), tol: exactTol, aData: true, input: "i32" },
  shift_right: { a: int32s, b: fc.integer({ min: -8, max: 40 }), tol: exactTol, aData: true, input: "i32" },
};

/** One case per unary op, over random shapes. */
export function unaryCases(): ConformanceCase[] {
  return UNARY_OPS.map((op) => {
    const d = UNARY_DOMAIN[op];
    return {
      name: `unary ${op}`,
      ops: [op],
      tolerance: d.tol,
      arbitrary: (dtype: FloatDType) =>
        shapeArb().chain((shape) =>
          instanceArb(dtype, [{ name: "x", shape, values: d.values, dtype: d.input ?? "float" }], ([x]) => ({ outputs: [api.unary(op, x!)] })),
        ),
    };
  });
}

/** One case per binary op, with NumPy broadcasting between random shapes and, sometimes, a constant operand. */
export function binaryCases(): ConformanceCase[] {
  return BINARY_OPS.map((op) => {
    const d = BINARY_DOMAIN[op];
    return {
      name: `binary ${op} (broadcasting)`,
      ops: [op, "const"],
      tolerance: d.tol,
      arbitrary: (dtype: FloatDType) =>
        fc.tuple(broadcastShapesArb(2), d.b, fc.boolean()).chain(([[sa, sb], c, useConst]) =>
          instanceArb(dtype, [{ name: "a", shape: sa!, values: d.a, leaf: d.aData ? "data" : undefined, dtype: d.input }, { name: "b", shape: sb!, values: d.b, leaf: "data", dtype: d.input }], ([a, b]) => ({
            // A scalar constant operand: inlined as a literal by code generators.
            outputs: [api.binary(op, a!, b!), api.binary(op, a!, constant(c, [], d.input ?? dtype))],
            // mod jumps by |b| across its branch cut: measure its error against |b|.
            scales: op === "mod" ? [api.abs(api.add(api.mul(a!, 0), b!)), constant(Math.abs(c), [], dtype)] : undefined,
          })),
        ),
    };
  });
}

/** Comparisons and logical ops, on small integers so that ties happen. */
export function compareCases(): ConformanceCase[] {
  return COMPARE_OPS.map((op: CompareOp) => {
    const logical = op === "and" || op === "or";
    return {
      name: `compare ${op} (broadcasting)`,
      ops: [op],
      tolerance: exactTol,
      arbitrary: (dtype: FloatDType) =>
        broadcastShapesArb(2).chain(([sa, sb]) =>
          instanceArb(
            dtype,
            [
              { name: "a", shape: sa!, values: logical ? bits : smallInts(), dtype: logical ? "bool" : "float" },
              { name: "b", shape: sb!, values: logical ? bits : smallInts(), dtype: logical ? "bool" : "float" },
            ],
            ([a, b]) => ({ outputs: [api.compare(op, a!, b!)] }),
          ),
        ),
    };
  });
}

/** select with three-way broadcasting, cast between every pair of dtypes, polygamma of orders 0–3, betainc and its shape derivatives. */
export function otherElementwiseCases(): ConformanceCase[] {
  return [
    {
      name: "select (three-way broadcasting)",
      ops: ["select"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        broadcastShapesArb(3).chain(([sc, sa, sb]) =>
          instanceArb(
            dtype,
            [{ name: "c", shape: sc!, values: bits, dtype: "bool" }, { name: "a", shape: sa!, values: floats(-5, 5) }, { name: "b", shape: sb!, values: floats(-5, 5) }],
            ([c, a, b]) => ({ outputs: [api.select(c!, a!, b!)] }),
          ),
        ),
    },
    {
      name: "cast (float ↔ i32 ↔ bool)",
      ops: ["cast"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        shapeArb().chain((shape) =>
          instanceArb(
            dtype,
            [{ name: "x", shape, values: fc.oneof(floats(-100, 100), smallInts()) }, { name: "i", shape, values: fc.integer({ min: -1000, max: 1000 }), dtype: "i32" }],
            ([x, i]) => {
              const other = dtype === "f32" ? "f64" : "f32";
              return {
                outputs: [api.cast(x!, "i32"), api.cast(x!, "bool"), api.cast(i!, dtype), api.cast(api.cast(x!, "bool"), dtype), api.cast(api.cast(x!, other), dtype)],
              };
            },
          ),
        ),
    },
    {
      name: "polygamma (orders 0-3)",
      ops: ["polygamma"],
      tolerance: specialTol,
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(), fc.integer({ min: 0, max: 3 })).chain(([shape, order]) =>
          instanceArb(dtype, [{ name: "x", shape, values: floats(0.5, 10) }], ([x]) => ({ outputs: [api.polygamma(order, x!)] })),
        ),
    },
    {
      name: "betainc (three-way broadcasting)",
      ops: ["betainc"],
      tolerance: specialTol,
      arbitrary: (dtype) =>
        broadcastShapesArb(3).chain(([sa, sb, sx]) =>
          instanceArb(
            dtype,
            [{ name: "a", shape: sa!, values: floats(0.5, 10) }, { name: "b", shape: sb!, values: floats(0.5, 10) }, { name: "x", shape: sx!, values: floats(0, 1) }],
            ([a, b, x]) => ({ outputs: [api.betainc(a!, b!, x!)] }),
          ),
        ),
    },
    {
      name: "betainc_grad in a and in b (three-way broadcasting)",
      ops: ["betainc_grad"],
      tolerance: specialTol,
      arbitrary: (dtype) =>
        broadcastShapesArb(3).chain(([sa, sb, sx]) =>
          instanceArb(
            dtype,
            // The shapes are data: betainc_grad has no second derivative in them.
            [
              { name: "a", shape: sa!, values: floats(0.5, 10), leaf: "data" },
              { name: "b", shape: sb!, values: floats(0.5, 10), leaf: "data" },
              { name: "x", shape: sx!, values: floats(0, 1) },
            ],
            ([a, b, x]) => ({ outputs: [api.betaincGrad(a!, b!, x!, 0), api.betaincGrad(a!, b!, x!, 1)] }),
          ),
        ),
    },
  ];
}
