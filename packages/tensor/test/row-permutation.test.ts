import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as T from "../src/api/elementwise.ts";
import { constant, data, param } from "../src/api/leaves.ts";
import { matmul } from "../src/api/linalg.ts";
import { sum } from "../src/api/reduce.ts";
import { cumsum, gather, reshape, slice } from "../src/api/shape-ops.ts";
import { grad } from "../src/autodiff/vjp.ts";
import { vmap } from "../src/batch/vmap.ts";
import { interpret } from "../src/cpu/reference/interpret.ts";
import type { TensorValue } from "../src/cpu/value.ts";
import { permutableRows } from "../src/graph/row-permutation.ts";
import type { Node } from "../src/ir/node.ts";

// Data rows whose order the outputs do not depend on: sorting them by the group index they gather
// by must leave every output equal up to the order of additions.

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const reals = (n: number, seed: number) => {
  const r = lcg(seed);
  return Float64Array.from({ length: n }, () => r() * 4 - 2);
};
const val = (dtype: TensorValue["dtype"], shape: number[], values: ArrayLike<number>): TensorValue => ({ dtype, shape, data: Float64Array.from(values) });
const near = (got: TensorValue, want: TensorValue) =>
  got.data.forEach((v, e) => expect(Math.abs(v - want.data[e]!)).toBeLessThanOrEqual(1e-11 * (1 + Math.abs(want.data[e]!))));

/** A random permutation of 0…n−1 (Fisher–Yates on the lcg). */
function shuffle(n: number, seed: number): number[] {
  const r = lcg(seed);
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

/** A value with its rows (axis 0) taken in the order perm. */
function permute(v: TensorValue, perm: readonly number[]): TensorValue {
  const stride = v.shape.slice(1).reduce((a, b) => a * b, 1);
  const out = new Float64Array(v.data.length);
  perm.forEach((p, i) => out.set(v.data.subarray(p * stride, (p + 1) * stride), i * stride));
  return { ...v, data: out };
}

/**
 * A hierarchical regression's log density and gradient for C chains (vmap): a = mu + gamma·u +
 * e^s·a_raw over J groups, y[i] ~ normal(a[g[i] − 1] + X[i]·beta, 1) with a 1-based index cast
 * from a float leaf (as models write a[group]), and a [N, K] row matrix.
 */
function hierarchical(N: number, J: number, K: number, C: number) {
  const theta = param("theta", [J + K + 3]);
  const u = data("u", [J]);
  const g = data("g", [N]);
  const X = data("X", [N, K]);
  const y = data("y", [N]);
  const pick = (k: number) => reshape(slice(theta, [{ start: k, stop: k + 1 }]), []);
  const [mu, gamma, s] = [0, 1, 2].map(pick) as [Node, Node, Node];
  const beta = slice(theta, [{ start: 3, stop: 3 + K }]);
  const aRaw = slice(theta, [{ start: 3 + K }]);
  const a = T.add(T.add(mu, T.mul(gamma, u)), T.mul(T.exp(s), aRaw));
  const r = T.sub(y, T.add(gather(a, T.sub(T.cast(g, "i32"), 1), 0), matmul(X, beta)));
  const lp = T.add(sum(T.mul(-0.5, T.square(r))), sum(T.mul(-0.5, T.square(aRaw))));
  const [dtheta] = grad(lp, [theta]);
  return { outs: vmap([lp, dtheta!], new Map([[theta, C]])), lp, theta };
}

describe("permutableRows", () => {
  it("finds the group index and every row leaf of a hierarchical regression's batched gradient", () => {
    const { outs } = hierarchical(30, 4, 2, 3);
    const rows = permutableRows(outs)!;
    expect(rows.rows).toBe(30);
    expect(rows.index.attrs.name).toBe("g");
    expect(rows.leaves.map((l) => l.attrs.name).sort()).toEqual(["X", "g", "y"]);
  });

  it("leaves the outputs equal when the rows are permuted, for any sizes, groups and orders (property)", () => {
    const arb = fc.record({
      N: fc.integer({ min: 8, max: 25 }), J: fc.integer({ min: 1, max: 6 }), K: fc.integer({ min: 1, max: 3 }),
      C: fc.integer({ min: 1, max: 3 }), seed: fc.integer({ min: 1, max: 1e6 }),
    });
    fc.assert(
      fc.property(arb, ({ N, J, K, C, seed }) => {
        const { outs } = hierarchical(N, J, K, C);
        const rows = permutableRows(outs);
        expect(rows).toBeDefined();
        const r = lcg(seed);
        // Unsorted groups, with duplicates and (when N is small) empty ones.
        const groups = Array.from({ length: N }, () => 1 + Math.floor(r() * J));
        const bind: Record<string, TensorValue> = {
          theta: val("f64", [C, J + K + 3], reals(C * (J + K + 3), seed + 1)), u: val("f64", [J], reals(J, seed + 2)),
          g: val("f64", [N], groups), X: val("f64", [N, K], reals(N * K, seed + 3)), y: val("f64", [N], reals(N, seed + 4)),
        };
        const perm = shuffle(N, seed + 5);
        const moved = { ...bind };
        for (const l of rows!.leaves) moved[l.attrs.name!] = permute(bind[l.attrs.name!]!, perm);
        const want = interpret(outs, bind);
        interpret(outs, moved).forEach((o, k) => near(o, want[k]!));
      }),
      { numRuns: 40, seed: 11 },
    );
  });

  it("finds none where the order of the rows matters", () => {
    const N = 12;
    const theta = param("theta", [3]);
    const g = data("g", [N], "i32");
    const y = data("y", [N]);
    const a = gather(theta, g, 0);
    const r = T.sub(y, a);
    const lp = (x: Node) => grad(x, [theta]).concat([x]);
    // A cumulative sum over the rows (a random walk).
    expect(permutableRows(lp(sum(T.square(cumsum(r, 0)))))).toBeUndefined();
    // Neighbouring rows (a first difference: a time series).
    expect(permutableRows(lp(sum(T.square(T.sub(slice(r, [{ start: 1 }]), slice(r, [{ start: 0, stop: N - 1 }]))))))).toBeUndefined();
    // An output that keeps the rows (pointwise log likelihoods).
    expect(permutableRows([T.mul(-0.5, T.square(r))])).toBeUndefined();
    // A row table gathered by another index: which row is which matters.
    const h = data("h", [4], "i32");
    expect(permutableRows(lp(sum(gather(T.square(r), h, 0))))).toBeUndefined();
    // Rows weighted by a fixed vector that is not data (a constant would not move with them).
    const w = constant(reals(N, 9), [N]);
    expect(permutableRows(lp(sum(T.mul(w, T.square(r)))))).toBeUndefined();
    // The same density without those: the rows are free.
    expect(permutableRows(lp(sum(T.square(r))))?.index).toBe(g);
  });
});
