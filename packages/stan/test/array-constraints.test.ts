import { describe, expect, it } from "vitest";
import { compileModel } from "@ppl/ppl";
import { toposort } from "@ppl/tensor/ir";
import { compileStan } from "../src/index.ts";

const compile = (text: string, data: unknown) => compileModel(compileStan(text, "t.stan"), data);

describe("arrays of constrained vectors", () => {
  it("array[2] simplex[3] is two simplexes, each from its own run of q (Stan's order)", () => {
    const data = { alpha: [1.5, 2, 3] };
    const arr = compile("data { vector[3] alpha; }\nparameters { array[2] simplex[3] theta; }\nmodel { for (m in 1:2) theta[m] ~ dirichlet(alpha); }", data);
    const two = compile("data { vector[3] alpha; }\nparameters { simplex[3] a; simplex[3] b; }\nmodel { a ~ dirichlet(alpha); b ~ dirichlet(alpha); }", data);
    expect(arr.dim).toBe(4);
    const q = [0.3, -0.8, 1.1, 0.2];
    expect(arr.logDensityAt(q)).toBeCloseTo(two.logDensityAt(q), 12);
    const g = arr.generatedAt(q);
    const names = arr.constrainedNames();
    for (const m of [1, 2]) expect([1, 2, 3].reduce((s, k) => s + g[names.indexOf(`theta[${m},${k}]`)]!, 0)).toBeCloseTo(1, 12);
    expect(Array.from(arr.unconstrain({ theta: [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]] }))).toEqual(Array.from(two.unconstrain({ a: [0.2, 0.3, 0.5], b: [0.6, 0.3, 0.1] })));
  });

  it("an array of simplexes is one batched transform: the graph does not grow with the array's length", () => {
    const program = "data { int M; vector[3] alpha; }\nparameters { array[M] simplex[3] theta; }\nmodel { for (m in 1:M) theta[m] ~ dirichlet(alpha); }";
    const nodes = (M: number) => toposort([compile(program, { M, alpha: [1.5, 2, 3] }).logDensity]).length;
    expect(nodes(40)).toBe(nodes(20));
    // And each element is the simplex of its own run of q.
    const arr = compile(program, { M: 20, alpha: [1.5, 2, 3] });
    const one = compile("data { vector[3] alpha; }\nparameters { simplex[3] a; }\nmodel { a ~ dirichlet(alpha); }", { alpha: [1.5, 2, 3] });
    const q = Array.from({ length: 40 }, (_, i) => 0.4 * Math.sin(1.3 * i));
    const want = Array.from({ length: 20 }, (_, m) => one.logDensityAt(q.slice(2 * m, 2 * m + 2))).reduce((a, b) => a + b, 0);
    expect(arr.logDensityAt(q)).toBeCloseTo(want, 10);
  });
});
