/** The autodiff transform's contract: shapes, dtypes, pruning, interior nodes, edge cases of rules. */
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import type { Node } from "../src/index.ts";

const run = (outs: Node[], b: T.Bindings) => T.interpret(outs, b).map((v) => Array.from(v.data));
const close = (a: number[], b: number[], tol = 1e-12) => {
  expect(a.length).toBe(b.length);
  a.forEach((v, i) => expect(Math.abs(v - b[i]!)).toBeLessThanOrEqual(tol * (1 + Math.abs(b[i]!))));
};

describe("grad and vjp", () => {
  it("gives zeros of the right shape for a node the output does not depend on", () => {
    const x = T.param("x", [3]), z = T.param("z", [2, 2]);
    const [gx, gz] = T.grad(T.sum(T.square(x)), [x, z]);
    expect(gz!.shape).toEqual([2, 2]);
    expect(run([gx!, gz!], { x: [1, 2, 3], z: [1, 1, 1, 1] })).toEqual([[2, 4, 6], [0, 0, 0, 0]]);
  });

  it("differentiates with respect to interior nodes and data", () => {
    const x = T.param("x", [2]), d = T.data("d", [2]);
    const y = T.mul(x, 2);
    const f = T.sum(T.mul(T.square(y), d));
    const [gx, gy, gd] = T.grad(f, [x, y, d]);
    // f = Σ d·(2x)²: ∂f/∂y = 2yd, ∂f/∂x = 8xd, ∂f/∂d = 4x².
    expect(run([gx!, gy!, gd!], { x: [1, -2], d: [3, 5] })).toEqual([[24, -80], [12, -40], [4, 16]]);
  });

  it("gives integer and bool inputs no cotangent (zeros)", () => {
    const x = T.param("x", [4]), i = T.param("i", [2], "i32");
    const f = T.sum(T.mul(T.gather(x, i), T.cast(i, "f64")));
    const [gx, gi] = T.grad(f, [x, i]);
    expect(run([gx!, gi!], { x: [1, 2, 3, 4], i: [3, 1] })).toEqual([[0, 1, 0, 3], [0, 0]]);
  });

  it("takes cotangents for non-scalar and several outputs", () => {
    const x = T.param("x", [2, 3]);
    const a = T.exp(x), b = T.sum(x, 0);
    const ca = T.data("ca", [2, 3]), cb = T.data("cb", [3]);
    const [gx] = T.vjp([a, b], [ca, cb], [x]);
    const xv = [0, 1, 2, -1, 0.5, 3], cav = [1, 2, 3, 4, 5, 6], cbv = [1, -1, 2];
    close(run([gx!], { x: xv, ca: cav, cb: cbv })[0]!, xv.map((v, k) => Math.exp(v) * cav[k]! + cbv[k % 3]!));
    // A null cotangent leaves that output out.
    const [gOnlyB] = T.vjp([a, b], [null, cb], [x]);
    expect(run([gOnlyB!], { x: xv, cb: cbv })[0]).toEqual([1, -1, 2, 1, -1, 2]);
  });

  it("rejects a non-scalar output for grad and mismatched cotangents for vjp", () => {
    const x = T.param("x", [3]);
    expect(() => T.grad(T.exp(x), [x])).toThrow(T.ShapeError);
    expect(() => T.vjp([x], [], [x])).toThrow(T.ShapeError);
  });

  it("returns the value with valueAndGrad, and gradient graphs are hash-consed like any graph", () => {
    const x = T.param("x", [3]);
    const f = T.sum(T.sin(x));
    const { value, grads } = T.valueAndGrad(f, [x]);
    expect(value).toBe(f);
    expect(T.grad(f, [x])[0]).toBe(grads[0]);
  });

  it("gradient graphs compile on a backend like any graph", async () => {
    const x = T.param("x", [2]);
    const { value, grads } = T.valueAndGrad(T.sum(T.log(x)), [x]);
    const exe = await (await T.getBackend("reference")).compile([value, ...grads]);
    const [, g] = await exe.run({ x: [2, 4] });
    expect(Array.from(g!.data)).toEqual([0.5, 0.25]);
  });

  it("keeps f32 graphs in f32 and casts cotangents back across a cast", () => {
    const x = T.param("x", [3], "f32");
    const [g] = T.grad(T.sum(T.square(x)), [x]);
    expect(g!.dtype).toBe("f32");
    expect(run([g!], { x: [0.1, 0.2, 0.3] })[0]).toEqual([0.1, 0.2, 0.3].map((v) => Math.fround(2 * Math.fround(v))));
    const y = T.param("y", [2]);
    const w = T.constant([1 / 3, 2 / 3], [2], "f32");
    const [gy] = T.grad(T.cast(T.sum(T.mul(w, T.cast(y, "f32"))), "f64"), [y]);
    expect(gy!.dtype).toBe("f64");
    expect(run([gy!], { y: [1, 2] })[0]).toEqual([Math.fround(1 / 3), Math.fround(2 / 3)]);
  });
});

describe("rule edge cases", () => {
  it("stop_gradient blocks the gradient but not the value", () => {
    const x = T.param("x", [3]);
    const [g] = T.grad(T.sum(T.mul(T.stopGradient(x), T.sin(x))), [x]);
    const xv = [0.5, -1, 2];
    close(run([g!], { x: xv })[0]!, xv.map((v) => v * Math.cos(v)));
  });

  it("pow: no NaN at a zero base, 0 exponent gradient where the base is not positive", () => {
    const a = T.param("a", [4]), b = T.param("b", [4]);
    const [ga, gb] = T.grad(T.sum(T.pow(a, b)), [a, b]);
    const [va, vb] = run([ga!, gb!], { a: [0, 0, -2, 2], b: [2, 0, 3, 0.5] });
    expect(va).toEqual([0, 0, 12, 0.5 * 2 ** -0.5]);
    expect(vb).toEqual([0, 0, 0, Math.sqrt(2) * Math.log(2)]);
  });

  it("prod: exact gradients with zero entries", () => {
    const x = T.param("x", [3, 3]);
    const [g] = T.grad(T.sum(T.prod(x, 1)), [x]);
    expect(run([g!], { x: [2, 0, 3, 0, 0, 3, 2, 5, 3] })[0]).toEqual([0, 6, 0, 0, 0, 0, 15, 6, 10]);
  });

  it("max/min: ties share the cotangent evenly", () => {
    const x = T.param("x", [4]);
    const [g] = T.grad(T.add(T.max(x), T.min(x)), [x]);
    expect(run([g!], { x: [1, 3, 3, 1] })[0]).toEqual([0.5, 0.5, 0.5, 0.5]);
    const [gm] = T.grad(T.sum(T.maximum(x, T.mul(x, 1))), [x]);
    expect(run([gm!], { x: [1, 2, 3, 4] })[0]).toEqual([1, 1, 1, 1]);
  });

  it("abs has derivative 0 at 0", () => {
    const x = T.param("x", [3]);
    const [g] = T.grad(T.sum(T.abs(x)), [x]);
    expect(run([g!], { x: [-2, 0, 5] })[0]).toEqual([-1, 0, 1]);
  });

  it("cholesky's gradient lies in the lower triangle", () => {
    const a = T.param("a", [2, 2]);
    const [g] = T.grad(T.sum(T.cholesky(a)), [a]);
    expect(run([g!], { a: [4, 1, 1, 3] })[0]![1]).toBe(0);
  });
});
