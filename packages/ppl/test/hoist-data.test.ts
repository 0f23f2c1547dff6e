// hoistData evaluates data-only subgraphs once, except where the loop that reads one computes it
// for about the cost of reading it back: broadcasts, and short chains of cheap ops.
import { describe, expect, it } from "vitest";
import * as T from "@ppl/tensor";
import { compiledBackend } from "@ppl/tensor/internals";
import { hoistData } from "../src/density/hoist-data.ts";

const cpu = compiledBackend();
const n = 200;
const y = Float64Array.from({ length: n }, (_, i) => (i % 7) - 1);
const bindings = { y: { dtype: "f64" as const, shape: [n], data: y }, q: { dtype: "f64" as const, shape: [n], data: Float64Array.from(y, (v) => 0.1 * v + 0.3) } };

// The hoisted graph's outputs, evaluated with its new leaves bound: the same bits as the graph's own.
function expectSameValues(outputs: T.Node[]): ReturnType<typeof hoistData> {
  const h = hoistData(outputs, { y: bindings.y }, cpu);
  const got = cpu.compileSync(h.outputs).runSync({ ...bindings, ...h.bindings });
  const want = cpu.compileSync(outputs).runSync(bindings);
  got.forEach((g, j) => expect(Array.from(g.data)).toEqual(Array.from(want[j]!.data)));
  return h;
}

describe("hoistData", () => {
  const Y = T.data("y", [n]), q = T.param("q", [n]);
  const valid = T.ge(Y, 0);

  it("leaves a short chain of cheap ops read by a fused loop to that loop (a Poisson's y ≥ 0 and y·[y ≥ 0])", () => {
    const indicator = T.select(valid, 1, 0);
    const lp = T.sum(T.select(valid, T.sub(T.mul(Y, q), T.exp(q)), -Infinity));
    const grad = T.add(T.mul(T.neg(indicator), T.exp(q)), T.mul(indicator, Y));
    const h = expectSameValues([lp, grad]);
    expect(Object.keys(h.bindings)).toEqual([]);
  });

  it("stores what is not cheap (lgamma), a long chain, and what an op kernel reads (a matrix product)", () => {
    const lfact = T.lgamma(T.add(Y, 1));
    const long = [1, 2, 3, 4, 5].reduce<T.Node>((acc, k) => T.add(T.mul(acc, k), 1), Y);
    const row = T.reshape(T.mul(Y, 2), [1, n]);
    const outs = [T.sum(T.sub(q, lfact)), T.sum(T.mul(q, long)), T.matmul(row, T.reshape(q, [n, 1]))];
    const h = expectSameValues(outs);
    expect(Object.values(h.bindings).map((v) => v.shape.join("×")).sort()).toEqual([`1×${n}`, `${n}`, `${n}`]);
  });
});
