/**
 * Second derivatives: gradient graphs are ordinary graphs, so differentiating them again gives
 * Hessian-vector products. With g = ∇f and u = Σ v ⊙ g(x) for fixed random v, ∇u = H·v, which
 * checkGrad compares with central finite differences of the gradient itself.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import type { Node } from "../src/index.ts";

const real = (lo: number, hi: number) => fc.noBias(fc.integer({ min: 0, max: 2 ** 30 })).map((k) => lo + ((hi - lo) * k) / 2 ** 30);
const reals = (n: number, lo: number, hi: number) => fc.array(real(lo, hi), { minLength: n, maxLength: n });

// The entries of a 4-vector in reverse order, so binary ops see two different operands.
const flip4 = (x: Node) => T.gather(x, T.constant([3, 2, 1, 0], [4], "i32"));

interface HvpCase {
  name: string;
  shape: number[];
  lo: number;
  hi: number;
  f: (x: Node) => Node;
}

const unary = (op: TI.UnaryOp, lo: number, hi: number): HvpCase => ({ name: op, shape: [2, 3], lo, hi, f: (x) => TI.unary(op, x) });
const CASES: HvpCase[] = [
  unary("exp", -2, 2), unary("expm1", -2, 2), unary("log", 0.3, 4), unary("log1p", -0.5, 3), unary("sqrt", 0.3, 4),
  unary("rsqrt", 0.3, 4), unary("square", -2, 2), unary("reciprocal", 0.3, 3), unary("sin", -3, 3), unary("cos", -3, 3),
  unary("tanh", -2, 2), unary("sigmoid", -4, 4), unary("softplus", -4, 4), unary("log_sigmoid", -4, 4),
  unary("erf", -2, 2), unary("erfc", -2, 2), unary("lgamma", 0.5, 6), unary("neg", -2, 2),
  { name: "abs·x", shape: [4], lo: 0.2, hi: 2, f: (x) => T.mul(T.abs(x), x) },
  { name: "polygamma(1)", shape: [4], lo: 0.5, hi: 5, f: (x) => T.polygamma(1, x) },
  unary("inv_phi", 0.05, 0.95),
  { name: "owens_t", shape: [4], lo: -2, hi: 2, f: (x) => T.owensT(x, flip4(x)) },
  { name: "gamma_p, gamma_q in x (constant shapes)", shape: [4], lo: 0.3, hi: 5, f: (x) => T.add(T.gammaP(T.constant([0.7, 1.5, 3, 6], [4]), x), T.gammaQ(2.5, T.square(x))) },
  { name: "betainc in x (constant shapes)", shape: [4], lo: 0.1, hi: 0.9, f: (x) => T.betainc(T.constant([0.8, 2, 3.5, 1.2], [4]), 2.2, x) },
  { name: "logPhi across its branches", shape: [4], lo: -30, hi: 6, f: (x) => T.logPhi(x) },
  { name: "mul, broadcast", shape: [2, 3], lo: -2, hi: 2, f: (x) => T.mul(x, T.reshape(T.sum(x, 1), [2, 1])) },
  { name: "div", shape: [2, 3], lo: 0.5, hi: 2, f: (x) => T.div(T.sin(x), T.add(x, T.reshape(T.sum(x, 0), [1, 3]))) },
  { name: "pow", shape: [4], lo: 0.5, hi: 2, f: (x) => T.pow(x, flip4(x)) },
  { name: "atan2", shape: [4], lo: 0.5, hi: 2, f: (x) => T.atan2(x, flip4(x)) },
  { name: "max/min with distinct operands", shape: [4], lo: 0.5, hi: 2, f: (x) => T.mul(T.maximum(x, T.add(x, 1)), T.minimum(T.square(x), T.add(T.square(x), 1))) },
  { name: "select", shape: [4], lo: -2, hi: 2, f: (x) => T.select(T.gt(T.constant([1, -1, 1, -1], [4]), 0), T.exp(x), T.mul(x, T.sin(x))) },
  { name: "reduce_sum of products", shape: [3, 4], lo: -2, hi: 2, f: (x) => T.square(T.sum(T.mul(x, T.sin(x)), 1)) },
  { name: "reduce_prod", shape: [3, 3], lo: 0.5, hi: 1.5, f: (x) => T.prod(x, 1) },
  { name: "reduce_max", shape: [3, 3], lo: -2, hi: 2, f: (x) => T.mul(T.max(T.mul(x, T.constant([1, 10, 100, 1, 10, 100, 1, 10, 100], [3, 3])), 1), T.sum(x, 1)) },
  { name: "reduce_min", shape: [3, 3], lo: 0.2, hi: 2, f: (x) => T.mul(T.min(T.mul(x, T.constant([1, 10, 100, 1, 10, 100, 1, 10, 100], [3, 3])), 1), T.sum(x, 1)) },
  { name: "reduce_logsumexp", shape: [3, 4], lo: -2, hi: 2, f: (x) => T.logsumexp(x, 1) },
  { name: "matmul", shape: [3, 3], lo: -1, hi: 1, f: (x) => T.matmul(x, T.exp(x)) },
  { name: "movement: transpose, slice, concat, pad, cumsum", shape: [3, 4], lo: -1, hi: 1,
    f: (x) => T.mul(T.cumsum(T.pad(T.concat([T.slice(T.transpose(x), [{ step: 2 }]), T.square(T.transpose(x))], 0), [[1, 0], [0, 1]]), 0), T.sin(T.pad(T.transpose(x), [[3, 0], [0, 1]]))) },
  { name: "gather and scatter_add", shape: [4], lo: -1, hi: 1,
    f: (x) => T.scatterAdd(T.square(T.gather(T.exp(x), T.constant([0, 2, 2, 3], [4], "i32"))), T.constant([1, 0, 1, 2], [4], "i32"), 0, 3) },
  { name: "cholesky (log det of M·Mᵀ + 3I)", shape: [3, 3], lo: -1, hi: 1,
    f: (x) => T.logdetSpd(T.add(T.matmul(x, T.mT(x)), T.constant([3, 0, 0, 0, 3, 0, 0, 0, 3], [3, 3]))) },
  { name: "triangular_solve", shape: [3, 3], lo: -0.5, hi: 0.5,
    f: (x) => T.triangularSolve(T.add(x, T.constant([2, 0, 0, 0, 2, 0, 0, 0, 2], [3, 3])), T.sin(x), { lower: true }) },
  { name: "solve and logDeterminant (general, pivoted)", shape: [3, 3], lo: -0.4, hi: 0.4,
    f: (x) => {
      const A = T.add(x, T.constant([0, 0, 2, 0, 2, 0, 2, 0, 0], [3, 3]));
      return T.add(T.solve(A, T.sin(x)), T.logDeterminant(A));
    } },
  { name: "eighSymmetric (separated eigenvalues)", shape: [3, 3], lo: -0.5, hi: 0.5,
    f: (x) => {
      const { values, vectors } = T.eighSymmetric(T.add(x, T.constant([0, 0, 0, 0, 4, 0, 0, 0, 8], [3, 3])));
      return T.add(T.mul(vectors, T.reshape(values, [1, 3])), T.square(vectors));
    } },
];

/** Hessian-vector check of f at random x along random v, with random output weights w. */
function checkHvp(c: HvpCase, runs: number): void {
  const x = T.param("x", c.shape);
  const out = c.f(x);
  const w = T.data("w", out.shape), v = T.data("v", c.shape);
  const [g] = T.grad(T.sum(T.mul(w, out)), [x]);
  const u = T.sum(T.mul(v, g!));
  const n = x.size;
  fc.assert(
    fc.property(reals(n, c.lo, c.hi), reals(out.size, -1, 1), reals(n, -1, 1), (xv, wv, vv) => {
      const r = T.checkGrad(u, [x], { x: xv, w: wv, v: vv });
      if (!r.ok) throw new Error(`${c.name}: ${r.message}`);
    }),
    { numRuns: runs },
  );
}

describe("second derivatives (Hessian-vector products vs finite differences of the gradient)", () => {
  for (const c of CASES) it(c.name, () => checkHvp(c, 15));

  it("through a scan", () => {
    const x = T.param("x", [4]), a = T.param("a");
    const { carry, ys } = T.scan(([s], [xt]) => {
      const next = T.tanh(T.add(T.mul(s!, a), xt!));
      return { carry: [next], ys: [T.square(next)] };
    }, [T.constant(0.1)], [x]);
    const f = T.add(T.sum(ys[0]!), T.mul(carry[0]!, a));
    const [gx, ga] = T.grad(f, [x, a]);
    const u = T.add(T.sum(T.mul(T.data("v", [4]), gx!)), T.mul(ga!, 0.7));
    fc.assert(
      fc.property(reals(4, -1, 1), real(-0.9, 0.9), reals(4, -1, 1), (xv, av, vv) => {
        const r = T.checkGrad(u, [x, a], { x: xv, a: av, v: vv });
        if (!r.ok) throw new Error(r.message);
      }),
      { numRuns: 8 },
    );
  });
});

describe("higher derivatives in closed form", () => {
  it("d²/dx² and d³/dx³ of sin(x)·exp(x)", () => {
    const x = T.param("x");
    const f = T.mul(T.sin(x), T.exp(x));
    const [d1] = T.grad(f, [x]);
    const [d2] = T.grad(d1!, [x]);
    const [d3] = T.grad(d2!, [x]);
    const xv = 0.7;
    const [v2, v3] = T.interpret([d2!, d3!], { x: xv }).map((t) => t.data[0]!);
    // (sin·e^x)'' = 2cos·e^x, (sin·e^x)''' = 2(cos − sin)·e^x.
    expect(v2).toBeCloseTo(2 * Math.cos(xv) * Math.exp(xv), 12);
    expect(v3).toBeCloseTo(2 * (Math.cos(xv) - Math.sin(xv)) * Math.exp(xv), 12);
  });

  it("the full Hessian of Σ x_i³ + x_0·x_1 column by column", () => {
    const x = T.param("x", [3]);
    const f = T.add(T.sum(T.pow(x, 3)), T.mul(T.index(x, 0), T.index(x, 1)));
    const [g] = T.grad(f, [x]);
    const xv = [0.5, -1, 2];
    const rows = [0, 1, 2].map((i) => Array.from(T.interpret(T.grad(T.index(g!, i), [x]), { x: xv })[0]!.data));
    expect(rows).toEqual([[3, 1, 0], [1, -6, 0], [0, 0, 12]]);
  });
});
