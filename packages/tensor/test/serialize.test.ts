import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";

describe("graph serialization", () => {
  it("rebuilds the same nodes (hashes, constants, a nested scan) through a structured clone", () => {
    const x = T.param("x", [3]), k = T.data("k", [2], "i32");
    const xs = T.data("xs", [4, 3]);
    const { carry, ys } = T.scan(
      ([c], [row]) => {
        const inner = T.scan(([d], [v]) => ({ carry: [T.add(T.mul(d!, 0.5), v!)] }), [c!], [row!]);
        return { carry: [inner.carry[0]!], ys: [T.mul(inner.carry[0]!, T.exp(x))] };
      },
      [T.constant(1)],
      [xs],
    );
    const table = T.constant(Float64Array.of(1.5, -2, 0.25), [3]);
    const outputs = TI.optimize([T.sum(T.mul(ys[0]!, table)), carry[0]!, T.gather(x, k), T.slice(T.transpose(xs, [1, 0]), [{ start: 0, stop: 3, step: 2 }, { start: 1 }])]);
    const copy = structuredClone(TI.serializeGraph(outputs));
    const rebuilt = TI.deserializeGraph(copy);
    expect(rebuilt.map((n) => n.hash)).toEqual(outputs.map((n) => n.hash));
    // Hash-consing makes them the very nodes, as in another thread they are equal ones.
    rebuilt.forEach((n, j) => expect(n).toBe(outputs[j]));
    const bindings = { x: [0.1, -0.2, 0.3], k: [2, 0], xs: Float64Array.from({ length: 12 }, (_, i) => Math.sin(i)) };
    expect(T.interpret(rebuilt, bindings).map((v) => Array.from(v.data))).toEqual(T.interpret(outputs, bindings).map((v) => Array.from(v.data)));
  });

  it("refuses a node that refers forward", () => {
    const [leaf, exp] = TI.serializeGraph([T.exp(T.param("x"))]).nodes;
    const broken = { nodes: [{ ...exp!, inputs: [1] }, leaf!], outputs: [0] };
    expect(() => TI.deserializeGraph(broken)).toThrow(/node 0 refers to node 1, which does not come before it/);
  });
});
