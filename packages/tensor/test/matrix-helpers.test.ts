/**
 * diagMatrix, identity, rep, kronecker, the quadratic forms and the GP covariance functions:
 * values against direct loops (Stan's definitions), gradients against finite differences.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import type { Node } from "../src/index.ts";

const run = (n: Node, b: T.Bindings = {}) => Array.from(T.interpret([n], b)[0]!.data);
const real = (lo: number, hi: number) => fc.noBias(fc.integer({ min: 0, max: 2 ** 30 })).map((k) => lo + ((hi - lo) * k) / 2 ** 30);
const reals = (n: number, lo = -2, hi = 2) => fc.array(real(lo, hi), { minLength: n, maxLength: n });
const near = (got: number[], want: number[]) => want.forEach((w, i) => expect(got[i]).toBeCloseTo(w, 12));

function gradOk(f: Node, wrt: Node[], b: T.Bindings): void {
  const r = T.checkGrad(f, wrt, b);
  expect(r.ok, r.message).toBe(true);
}

describe("matrix builders", () => {
  it("diagMatrix, identity, rep and kronecker", () => {
    expect(run(T.diagMatrix(T.constant([1, Infinity], [2])))).toEqual([1, 0, 0, Infinity]);
    expect(T.diagMatrix(T.constant(0, [3, 2])).shape).toEqual([3, 2, 2]);
    expect(run(T.identity(2))).toEqual([1, 0, 0, 1]);
    expect(run(T.rep(2.5, [2, 2]))).toEqual([2.5, 2.5, 2.5, 2.5]);
    expect(run(T.rep(T.constant([1, 2], [2]), [2, 2]))).toEqual([1, 2, 1, 2]);
    const A = T.constant([1, 2, 3, 4], [2, 2]), B = T.constant([0, 5, 6, 7], [2, 2]);
    // numpy.kron([[1, 2], [3, 4]], [[0, 5], [6, 7]])
    expect(run(T.kronecker(A, B))).toEqual([0, 5, 0, 10, 6, 7, 12, 14, 0, 15, 0, 20, 18, 21, 24, 28]);
    expect(T.kronecker(T.constant(0, [2, 3]), T.constant(0, [4, 1])).shape).toEqual([8, 3]);
  });

  it("quadratic forms match their matrix definitions", () => {
    const A = [2, 1, 0, 1, 3, 1, 0, 1, 4], B = [1, 2, -1, 0, 3, 1];
    const a = T.constant(A, [3, 3]), b = T.constant(B, [3, 2]), v = T.constant([1, -2, 3], [3]);
    // BᵀAB by loops.
    const at = (M: number[], i: number, j: number, c: number) => M[i * c + j]!;
    const AB = [0, 1, 2].flatMap((i) => [0, 1].map((j) => [0, 1, 2].reduce((s, k) => s + at(A, i, k, 3) * at(B, k, j, 2), 0)));
    const BtAB = [0, 1].flatMap((i) => [0, 1].map((j) => [0, 1, 2].reduce((s, k) => s + at(B, k, i, 2) * at(AB, k, j, 2), 0)));
    near(run(T.quadForm(a, b)), BtAB);
    near(run(T.traceQuadForm(a, b)), [BtAB[0]! + BtAB[3]!]);
    const vv = [1, -2, 3];
    near(run(T.quadForm(a, v)), [[0, 1, 2].reduce((s, i) => s + [0, 1, 2].reduce((t, j) => t + vv[i]! * at(A, i, j, 3) * vv[j]!, 0), 0)]);
    near(run(T.quadFormDiag(a, v)), A.map((x, f) => x * vv[Math.floor(f / 3)]! * vv[f % 3]!));
  });

  it("have gradients (finite differences)", () => {
    const v = T.param("v", [3]), A = T.param("A", [3, 3]), B = T.param("B", [3, 2]), C = T.param("C", [2, 2]);
    const w9 = T.data("w9", [3, 3]), w6 = T.data("w6", [9, 6]), w2 = T.data("w2", [2, 2]);
    const fs: [Node, Node[]][] = [
      [T.sum(T.mul(w9, T.diagMatrix(v))), [v]],
      [T.sum(T.mul(w6, T.kronecker(A, B))), [A, B]],
      [T.sum(T.mul(w2, T.quadForm(A, B))), [A, B]],
      [T.quadForm(A, v), [A, v]],
      [T.sum(T.mul(w9, T.quadFormDiag(A, v))), [A, v]],
      [T.traceQuadForm(A, B), [A, B]],
      [T.sum(T.mul(w2, T.rep(T.sum(C), [2, 2]))), [C]],
    ];
    fc.assert(
      fc.property(reals(3), reals(9), reals(6), reals(4), reals(9), reals(54), reals(4), (vs, As, Bs, Cs, a, b, c) => {
        const bind = { v: vs, A: As, B: Bs, C: Cs, w9: a, w6: b, w2: c };
        for (const [f, wrt] of fs) gradOk(f, wrt, bind);
      }),
      { numRuns: 20 },
    );
  });
});

// Stan's definitions, entry by entry.
const kernels = {
  expQuad: (r: number, a: number, l: number) => a * a * Math.exp(-(r * r) / (2 * l * l)),
  matern32: (r: number, a: number, l: number) => a * a * (1 + (Math.sqrt(3) * r) / l) * Math.exp((-Math.sqrt(3) * r) / l),
  periodic: (r: number, a: number, l: number, p: number) => a * a * Math.exp((-2 * Math.sin((Math.PI * r) / p) ** 2) / (l * l)),
};

describe("GP covariance functions", () => {
  it("match Stan's definitions for real and vector points, and cross covariances", () => {
    const x = [0, 0.5, 2], y = [1, -1];
    const X = T.constant(x, [3]), Y = T.constant(y, [2]);
    const pairs = (u: number[], v: number[]) => u.flatMap((a) => v.map((b) => Math.abs(a - b)));
    near(run(T.gpExpQuadCov(X, 1.5, 0.7)), pairs(x, x).map((r) => kernels.expQuad(r, 1.5, 0.7)));
    near(run(T.gpMatern32Cov(X, 1.5, 0.7, Y)), pairs(x, y).map((r) => kernels.matern32(r, 1.5, 0.7)));
    near(run(T.gpPeriodicCov(X, 1.5, 0.7, 1.3)), pairs(x, x).map((r) => kernels.periodic(r, 1.5, 0.7, 1.3)));
    // Vector points (rows of [n, d]): Euclidean distances.
    const P = T.constant([0, 0, 3, 4], [2, 2]);
    near(run(T.gpMatern32Cov(P, 1, 2)), [0, 5, 5, 0].map((r) => kernels.matern32(r, 1, 2)));
    expect(T.gpExpQuadCov(X, 1, 1, Y).shape).toEqual([3, 2]);
  });

  it("have gradients in the points, alpha, rho and the period, the diagonal included (finite differences)", () => {
    const x = T.param("x", [4]), p = T.param("p", [3, 2]), alpha = T.param("alpha"), rho = T.param("rho"), period = T.param("period");
    const w = T.data("w", [4, 4]), w3 = T.data("w3", [3, 3]);
    const fs: Node[] = [
      T.sum(T.mul(w, T.gpExpQuadCov(x, alpha, rho))),
      T.sum(T.mul(w, T.gpMatern32Cov(x, alpha, rho))),
      T.sum(T.mul(w, T.gpPeriodicCov(x, alpha, rho, period))),
      T.sum(T.mul(w3, T.gpMatern32Cov(p, alpha, rho))),
      T.sum(T.mul(w3, T.gpPeriodicCov(p, alpha, rho, period))),
    ];
    // Points at least 0.1 apart (no coincident off-diagonal pairs, where r has a kink).
    const spread = (n: number) => fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }).map((q) => q.map((i) => i * 0.4 - 1));
    fc.assert(
      fc.property(spread(4), reals(6), real(0.5, 2), real(0.5, 2), real(1, 3), reals(16), reals(9), (xs, ps, a, l, per, ws, w3s) => {
        const bind = { x: xs, p: ps, alpha: a, rho: l, period: per, w: ws, w3: w3s };
        for (const f of fs) gradOk(f, [x, p, alpha, rho, period].filter((n) => TI.toposort([f]).includes(n)), bind);
      }),
      { numRuns: 20 },
    );
  });
});
