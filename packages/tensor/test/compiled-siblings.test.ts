// Sibling reductions share one loop (siblings.ts), producers move into the loop that reads them
// (sink.ts), and loop-invariant reads are made once before a loop (loops.ts): a regression's log
// density and gradient over a data vector is one pass that stores nothing per element.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import { compiledBackend } from "../src/cpu/compiled/backend.ts";
import { floats, shapeArb, valuesArb } from "../src/testing/index.ts";
import type { Node } from "../src/ir/node.ts";

const cpu = compiledBackend();

// Loops over `n` iterations in generated source: `for (let i3 = 0; i3 < 1000; i3++)`.
const loopsOver = (source: string, n: number): number => (source.match(new RegExp(`for \\(let \\w+ = 0; \\w+ < ${n}; `, "g")) ?? []).length;
// Scratch buffers of shape [n]: `const b46 = T[5]; // n46 div f64[1000]`.
const buffersOf = (source: string, n: number): number => (source.match(new RegExp(`= T\\[\\d+\\]; // .*\\[${n}\\]$`, "gm")) ?? []).length;
const count = (source: string, text: string): number => source.split(text).length - 1;

const seq = (n: number, f: (i: number) => number): Float64Array => Float64Array.from({ length: n }, (_, i) => f(i));

// The bits of every output, for toEqual (which tells -0 from 0 and matches NaN with NaN).
const bitsOf = (values: readonly T.TensorValue[]): number[][] => values.map((v) => Array.from(v.data));

// y ~ normal(alpha + x·beta, sigma) with sigma = exp(u), q = (alpha, beta, u): value and gradient, optimized.
function normalRegression(n: number) {
  const q = T.param("q", [3]), x = T.data("x", [n]), y = T.data("y", [n]);
  const [alpha, beta, u] = [0, 1, 2].map((i) => T.index(q, i)) as [Node, Node, Node];
  const sigma = T.exp(u);
  const z = T.div(T.sub(y, T.add(alpha, T.mul(x, beta))), sigma);
  const terms = T.sub(T.neg(T.add(T.mul(0.5, T.square(z)), T.log(sigma))), 0.5 * Math.log(2 * Math.PI));
  const prior = T.mul(-0.5, T.sum(T.square(q)));
  const lp = T.add(T.sum(terms), T.add(prior, u));
  const outputs = TI.optimize([lp, ...T.grad(lp, [q])]);
  const bindings = { q: [0.3, -0.7, 0.25], x: seq(n, (i) => Math.sin(i)), y: seq(n, (i) => 1.5 + 2 * Math.sin(i) + Math.cos(3 * i)) };
  return { outputs, bindings };
}

describe("sibling reductions", () => {
  it("a normal regression's value and gradient is one loop over the data, with nothing stored per observation", () => {
    const { outputs, bindings } = normalRegression(1000);
    const exe = cpu.compileSync(outputs);
    // Before siblings shared a loop: one loop storing three residual arrays, then four sums over them.
    expect(loopsOver(exe.source, 1000)).toBe(1);
    expect(buffersOf(exe.source, 1000)).toBe(0);
    expect(exe.source).toMatch(/\/\/ n\d+ reduce_sum, n\d+ reduce_sum, n\d+ reduce_sum, n\d+ reduce_sum over axes \[0\] of \[1000\]/);
    // The parameters are read once, before the loop (h0, h1, …), not at every observation.
    const loop = exe.source.slice(exe.source.indexOf("for (let i0 = 0; i0 < 1000;"));
    expect(loop.slice(0, loop.indexOf("\n    }"))).not.toMatch(/b\d+\[b\d+o( \+ \d+)?\]/);
    // Each sum adds the same terms in the same order as the interpreter: the same bits.
    expect(bitsOf(exe.runSync(bindings))).toEqual(bitsOf(T.interpret(outputs, bindings)));
  });

  it("a producer read elsewhere stays stored; an expensive one is computed once either way", () => {
    const x = T.param("x", [50]), w = T.data("w", [50]);
    const g = T.lgamma(T.add(T.square(x), 2));
    const sums = [T.sum(g), T.sum(T.mul(g, w)), T.max(T.sub(g, x))];
    const bindings = { x: seq(50, (i) => Math.sin(i)), w: seq(50, (i) => Math.cos(i)) };
    // Read only by the sums: computed in their one loop.
    const alone = cpu.compileSync(sums);
    expect(loopsOver(alone.source, 50)).toBe(1);
    expect(count(alone.source, "F.lgamma(")).toBe(1);
    expect(bitsOf(alone.runSync(bindings))).toEqual(bitsOf(T.interpret(sums, bindings)));
    // Also an output of its own shape: stored once, read by the sums' loop (not recomputed there).
    const outs = [...sums, T.mul(g, 3)];
    const shared = cpu.compileSync(outs);
    expect(count(shared.source, "F.lgamma(")).toBe(1);
    expect(shared.source).toMatch(/reduce_sum, n\d+ reduce_sum, n\d+ reduce_max over axes \[0\] of \[50\]/);
    expect(bitsOf(shared.runSync(bindings))).toEqual(bitsOf(T.interpret(outs, bindings)));
  });

  it("sums of row reductions share at both levels: one loop over the rows, one over each row's columns", () => {
    // 7 columns: a loop of at most 5 is written out (loops.ts UNROLL_MAX_EXTENT), which would hide the one loop counted here.
    const x = T.param("x", [6, 7]);
    const e = T.exp(T.mul(x, 0.3));
    const outs = [T.sum(T.sum(T.mul(e, 2), -1)), T.sum(T.sum(T.square(e), -1)), T.sum(T.max(e, -1))];
    const exe = cpu.compileSync(outs);
    expect(exe.stats.kernels).toBe(1);
    expect([loopsOver(exe.source, 6), loopsOver(exe.source, 7), count(exe.source, "Math.exp(")]).toEqual([1, 1, 1]);
    const bindings = { x: seq(42, (i) => Math.sin(i) * 2) };
    expect(bitsOf(exe.runSync(bindings))).toEqual(bitsOf(T.interpret(outs, bindings)));
  });

  it("a logsumexp keeps its own two-pass loop beside shared sums", () => {
    const x = T.param("x", [40]);
    const e = T.tanh(T.mul(x, 2));
    const outs = [T.sum(e), T.logsumexp(e), T.sum(T.square(e))];
    const exe = cpu.compileSync(outs);
    expect(exe.source).toMatch(/\/\/ n\d+ reduce_logsumexp over axes/);
    const bindings = { x: seq(40, (i) => Math.sin(i) * 3) };
    expect(bitsOf(exe.runSync(bindings))).toEqual(bitsOf(T.interpret(outs, bindings)));
  });

  it("random sibling reductions of shared elementwise inputs, and their gradients, give the interpreter's bits and each output's alone", () => {
    // Elementwise steps of a shared chain (a, b, c) and the terms the reductions add up: compositions
    // of ops whose compiled formula is the interpreter's (cpu/scalar.ts), so the bits must agree.
    const steps: ((p: Node, q: Node, s: Node) => Node)[] = [
      (p, q, s) => T.add(T.mul(p, s), q),
      (p, q) => T.tanh(T.sub(p, q)),
      (p, q, s) => T.div(p, T.add(T.square(q), s)),
      (p, q) => T.exp(T.mul(T.sin(p), q)),
      (p, q) => T.maximum(p, T.neg(q)),
    ];
    const reductions: ((e: Node, axes: number[]) => Node)[] = [
      (e, axes) => T.sum(e, axes),
      (e, axes) => T.sum(T.square(e), axes),
      (e, axes) => T.max(e, axes),
      (e, axes) => T.min(T.mul(e, 0.5), axes),
      (e, axes) => T.logsumexp(e, axes),
      (e, axes) => T.prod(T.add(T.mul(e, 0.1), 1), axes),
    ];
    let shared = 0;
    fc.assert(
      fc.property(
        shapeArb(1, 3, 5).chain((shape) =>
          fc.record({
            shape: fc.constant(shape),
            axes: fc.subarray([...shape.keys()], { minLength: 1 }),
            chain: fc.array(fc.tuple(fc.nat(steps.length - 1), fc.nat(3), fc.nat(3)), { minLength: 1, maxLength: 4 }),
            sums: fc.array(fc.tuple(fc.nat(reductions.length - 1), fc.nat(5)), { minLength: 2, maxLength: 5 }),
            x: valuesArb(shape, floats(-2, 2)),
            w: valuesArb(shape, floats(-2, 2)),
            s: floats(0.5, 2),
            withGrad: fc.boolean(),
          }),
        ),
        ({ shape, axes, chain, sums, x, w, s, withGrad }) => {
          const X = T.param("x", shape), W = T.data("w", shape), S = T.param("s", []);
          const nodes: Node[] = [X, W];
          for (const [f, i, j] of chain) nodes.push(steps[f]!(nodes[i % nodes.length]!, nodes[j % nodes.length]!, S));
          const reduced = sums.map(([r, k]) => reductions[r]!(nodes[k % nodes.length]!, axes));
          const total = reduced.map((r) => T.sum(r)).reduce((a, b) => T.add(a, b));
          const outputs = TI.optimize(withGrad ? [...reduced, ...T.grad(total, [X, S])] : reduced);
          const bindings = { x, w, s: [s] };
          const exe = cpu.compileSync(outputs);
          if (/\/\/ n\d+ reduce_\w+, n\d+ reduce_/.test(exe.source)) shared++;
          const got = bitsOf(exe.runSync(bindings));
          expect(got).toEqual(bitsOf(T.interpret(outputs, bindings)));
          // Each output compiled on its own (no siblings to share with) gives the same bits.
          outputs.forEach((o, j) => expect(Array.from(cpu.compileSync([o]).runSync(bindings)[0]!.data)).toEqual(got[j]));
        },
      ),
      { numRuns: 80 },
    );
    // The graphs exercise what they are for: about 60% have reductions sharing a loop.
    expect(shared).toBeGreaterThan(20);
  });
});
