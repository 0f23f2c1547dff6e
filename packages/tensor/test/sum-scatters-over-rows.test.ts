import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as T from "../src/api/elementwise.ts";
import { data, param } from "../src/api/leaves.ts";
import { sum } from "../src/api/reduce.ts";
import { gather, reshape, scatterAdd, slice } from "../src/api/shape-ops.ts";
import { grad } from "../src/autodiff/vjp.ts";
import { interpret } from "../src/cpu/reference/interpret.ts";
import { toposort } from "../src/graph/toposort.ts";
import type { Node } from "../src/ir/node.ts";
import { sumScattersOverRows } from "../src/rewrite/sum-scatters-over-rows.ts";
import { vmap } from "../src/batch/vmap.ts";
import type { TensorValue } from "../src/cpu/value.ts";

// Sums over a scatter's targets, written over its rows: Σ_j w[j]·scatter_add(v, idx)[j] = Σ_i w[idx[i]]·v[i].

/** reduce_sum nodes that read a scatter_add over the axis they reduce (directly or through one product). */
function sumsOfScatters(outs: readonly Node[]): Node[] {
  const over = (x: Node, ax: number) => x.op === "scatter_add" && x.attrs.axis === ax;
  return toposort(outs).filter((n) => {
    if (n.op !== "reduce_sum" || n.attrs.axes?.length !== 1) return false;
    const x = n.inputs[0]!;
    const ax = n.attrs.axes[0]!;
    return over(x, ax) || (x.op === "mul" && x.inputs.some((f) => over(f, ax)));
  });
}

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
  got.data.forEach((v, e) => expect(Math.abs(v - want.data[e]!)).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(want.data[e]!))));

describe("sumScattersOverRows", () => {
  it("writes the group-level gradients of a hierarchical regression over its rows, for several chains (vmap)", () => {
    // a = mu + gamma·u + sigma·a_raw (J groups), y[i] ~ normal(a[g[i]] + b·x[i], 1): the gradients of mu,
    // gamma and sigma are sums over the groups of the scatter of the row terms times 1, u and a_raw.
    const J = 6, N = 40, C = 3;
    const theta = param("theta", [J + 4]);
    const u = data("u", [J]);
    const g = data("g", [N], "i32");
    const x = data("x", [N]);
    const y = data("y", [N]);
    const pick = (k: number) => reshape(slice(theta, [{ start: k, stop: k + 1 }]), []);
    const [mu, gamma, sigma, b] = [0, 1, 2, 3].map(pick) as [Node, Node, Node, Node];
    const aRaw = slice(theta, [{ start: 4 }]);
    const a = T.add(T.add(mu, T.mul(gamma, u)), T.mul(T.exp(sigma), aRaw));
    const r = T.sub(y, T.add(gather(a, g, 0), T.mul(b, x)));
    const lp = T.add(sum(T.mul(-0.5, T.square(r))), sum(T.mul(-0.5, T.square(aRaw))));
    const [dtheta] = grad(lp, [theta]);
    const outs = vmap([lp, dtheta!], new Map([[theta, C]]));
    expect(sumsOfScatters(outs).length).toBeGreaterThan(0);
    const rewritten = sumScattersOverRows(outs);
    expect(sumsOfScatters(rewritten)).toEqual([]);
    // The scatter itself stays: the gradient of a_raw reads it.
    expect(toposort(rewritten).some((n) => n.op === "scatter_add")).toBe(true);
    // Duplicate, empty (group 5) and unsorted groups.
    const groups = Array.from({ length: N }, (_, i) => [3, 0, 4, 0, 1, 2, 2, 4][i % 8]!);
    const bind = {
      theta: val("f64", [C, J + 4], reals(C * (J + 4), 1)), u: val("f64", [J], reals(J, 2)), g: val("i32", [N], groups),
      x: val("f64", [N], reals(N, 3)), y: val("f64", [N], reals(N, 4)),
    };
    const want = interpret(outs, bind);
    interpret(rewritten, bind).forEach((o, k) => near(o, want[k]!));
  });

  it("equals the sum over the targets for any shapes, factors and indices (property)", () => {
    const arb = fc.record({
      C: fc.integer({ min: 1, max: 3 }), N: fc.integer({ min: 1, max: 12 }), J: fc.integer({ min: 1, max: 5 }),
      factor: fc.constantFrom("none", "table", "row", "scalar", "chain"), first: fc.boolean(), seed: fc.integer({ min: 1, max: 1e6 }),
    });
    fc.assert(
      fc.property(arb, ({ C, N, J, factor, first, seed }) => {
        const v = param("v", [C, N]);
        const idx = data("idx", [N], "i32");
        const s = scatterAdd(v, idx, 1, J);
        // The factor broadcast against the scatter [C, J]: per chain and group, per group, one value, per chain.
        const w = factor === "table" ? param("w", [C, J]) : factor === "row" ? param("w", [J]) : factor === "scalar" ? param("w", []) : param("w", [C, 1]);
        const summed = sum(factor === "none" ? s : first ? T.mul(s, w) : T.mul(w, s), [1]);
        const rewritten = sumScattersOverRows([summed]);
        expect(sumsOfScatters(rewritten)).toEqual([]);
        const r = lcg(seed);
        const bind = {
          v: val("f64", [C, N], reals(C * N, seed)), idx: val("i32", [N], Array.from({ length: N }, () => Math.floor(r() * J))),
          w: val("f64", [...w.shape], reals(w.size, seed + 1)),
        };
        near(interpret(rewritten, bind)[0]!, interpret([summed], bind)[0]!);
      }),
      { seed: 11, numRuns: 100 },
    );
  });

  it("leaves sums over another axis, and sums of a scatter over a rank-2 index, as they are", () => {
    const v = param("v", [3, 8]);
    const s = scatterAdd(v, data("idx", [8], "i32"), 1, 4);
    const overChains = sum(s, [0]);
    expect(sumScattersOverRows([overChains])[0]).toBe(overChains);
    const s2 = scatterAdd(param("m", [2, 3]), data("idx2", [2, 3], "i32"), 0, 5);
    const whole = sum(s2, [0]);
    expect(sumScattersOverRows([whole])[0]).toBe(whole);
  });
});
