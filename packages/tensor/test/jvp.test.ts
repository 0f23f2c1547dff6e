/** Forward mode (jvp) against central finite differences along the tangent, on the ops ODE right-hand sides use. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import type { Node } from "../src/index.ts";

const x = T.param("x", [3]);
const A = T.param("A", [2, 3]);

// Functions of x (3) and A (2×3): elementwise arithmetic, exp/log/pow, indexing, stack/concat, matmul, sum.
const FUNCTIONS: Record<string, () => Node[]> = {
  "Lotka–Volterra right-hand side": () => {
    const [u, v, a] = [T.index(x, 0), T.index(x, 1), T.index(x, 2)];
    const b = T.index(T.index(A, 0), 0), g = T.index(T.index(A, 1), 1), d = T.index(T.index(A, 0), 2);
    return [T.stack([T.mul(T.sub(a, T.mul(b, v)), u), T.mul(T.add(T.neg(g), T.mul(d, u)), v)])];
  },
  "exp, log and pow": () => [
    T.add(T.mul(T.exp(T.index(x, 0)), T.log(T.add(T.square(T.index(x, 1)), 1))), T.pow(T.add(T.square(T.index(x, 2)), 0.5), 1.5)),
    T.div(T.exp(T.neg(x)), T.add(T.sum(T.square(A)), 1)),
  ],
  "matmul, concat and sum": () => {
    const y = T.matmul(A, T.reshape(x, [3, 1]));
    return [T.concat([T.reshape(y, [2]), T.sum(A, 0), T.reshape(T.sum(T.mul(y, y)), [1])]), T.sum(T.tanh(T.matmul(T.mT(A), A)), 1)];
  },
  "Michaelis–Menten elimination": () => {
    const C = T.index(x, 0), t = T.index(x, 1);
    const ka = T.index(T.index(A, 0), 0), Km = T.index(T.index(A, 0), 1), Vm = T.index(T.index(A, 1), 0);
    return [T.sub(T.mul(T.exp(T.mul(T.neg(ka), t)), T.mul(ka, 15)), T.div(T.mul(T.div(Vm, 2), C), T.add(Km, C)))];
  },
};

const vec = (n: number) => fc.array(fc.double({ min: 0.2, max: 1.5, noNaN: true }), { minLength: n, maxLength: n });

describe("jvp", () => {
  for (const [name, build] of Object.entries(FUNCTIONS)) {
    it(`equals central differences along the tangent: ${name}`, () => {
      const outs = build();
      const tx = T.param("tx", [3]), tA = T.param("tA", [2, 3]);
      const tangentsOut = T.jvp(outs, [x, A], [tx, tA]);
      fc.assert(
        fc.property(vec(3), vec(6), vec(3), vec(6), (xv, Av, txv, tAv) => {
          const at = (s: number) => T.interpret(outs, { x: xv.map((v, i) => v + s * txv[i]!), A: Av.map((v, i) => v + s * tAv[i]!) });
          const got = T.interpret(tangentsOut, { x: xv, A: Av, tx: txv, tA: tAv });
          const h = 1e-6;
          const [up, down] = [at(h), at(-h)];
          got.forEach((g, k) => {
            expect(g.shape).toEqual(outs[k]!.shape);
            g.data.forEach((gi, i) => {
              const fd = (up[k]!.data[i]! - down[k]!.data[i]!) / (2 * h);
              expect(Math.abs(gi - fd)).toBeLessThanOrEqual(1e-6 * (1 + Math.abs(fd)));
            });
          });
        }),
        { numRuns: 30 },
      );
    });
  }

  it("leaves no placeholder behind, works inside a scan body, and gives integer outputs zero tangents", () => {
    const outs = FUNCTIONS["Lotka–Volterra right-hand side"]!();
    const [t] = T.jvp(outs, [x, A], [T.constant(1, [3]), T.constant(0, [2, 3])]);
    const names = TI.toposort([t!]).filter((n) => n.op === "param").map((n) => n.attrs.name);
    expect(new Set(names)).toEqual(new Set(["x", "A"]));
    // d/dx of x² along 1, at each step of a scan: the tangent is 2x.
    const { ys } = T.scan(([c], [xi]) => {
      const [dt] = T.jvp([T.square(xi!)], [xi!], [T.constant(1, [], "f64")]);
      return { carry: [c!], ys: [dt!] };
    }, [T.constant(0)], [x]);
    expect(Array.from(T.interpret([ys[0]!], { x: [1, 2, 3] })[0]!.data)).toEqual([2, 4, 6]);
    const [ti] = T.jvp([T.cast(x, "i32")], [x], [T.constant(1, [3])]);
    expect(Array.from(T.interpret([ti!], { x: [1, 2, 3] })[0]!.data)).toEqual([0, 0, 0]);
    expect(() => T.jvp([x], [x], [T.constant(1, [2])])).toThrow(T.ShapeError);
  });
});
