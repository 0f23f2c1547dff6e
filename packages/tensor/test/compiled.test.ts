import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import * as T from "../src/index.ts";
import * as TI from "../src/internals.ts";
import { compiledBackend } from "../src/cpu/compiled/backend.ts";
import { cacheSize, cachedProgram, clearProgramCache } from "../src/cpu/compiled/cache.ts";
import { instantiate } from "../src/cpu/compiled/program.ts";
import { broadcastableTo, floats, shapeArb, valuesArb } from "../src/testing/index.ts";
import type { Node } from "../src/ir/node.ts";

const cpu = compiledBackend();

function expectSame(outputs: Node[], bindings: T.Bindings, rel = 1e-12): T.TensorValue[] {
  const got = cpu.compileSync(outputs).runSync(bindings);
  const want = T.interpret(outputs, bindings);
  got.forEach((g, j) => {
    expect(g.shape).toEqual(want[j]!.shape);
    g.data.forEach((v, i) => {
      const w = want[j]!.data[i]!;
      if (Number.isNaN(w)) expect(v, `output ${j} element ${i}`).toBeNaN();
      else if (!Number.isFinite(w)) expect(v, `output ${j} element ${i}`).toBe(w);
      else expect(Math.abs(v - w), `output ${j} element ${i}: ${v} vs ${w}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(w)));
    });
  });
  return got;
}

const seq = (n: number, f = (i: number) => Math.sin(i + 1)) => Float64Array.from({ length: n }, (_, i) => f(i));

// A small logistic regression: value and hand-written gradient.
function logreg(n: number, d: number) {
  const X = T.data("X", [n, d]), y = T.data("y", [n]), beta = T.param("beta", [d]);
  const eta = T.matmul(X, beta);
  const lp = T.add(T.sum(T.sub(T.mul(y, eta), T.softplus(eta))), T.mul(-0.5, T.sum(T.square(beta))));
  const grad = T.sub(T.matmul(T.transpose(X), T.sub(y, T.sigmoid(eta))), beta);
  return { outputs: [lp, grad], bindings: { X: seq(n * d), y: seq(n, (i) => i % 2), beta: seq(d, (i) => 0.1 * i - 0.2) } };
}

describe("generated source (golden snapshots)", () => {
  it("logistic regression value and gradient", async () => {
    const { outputs } = logreg(6, 3);
    const exe = cpu.compileSync(outputs);
    expect(exe.stats.kernels).toBe(3);
    await expect(exe.source).toMatchFileSnapshot("./__snapshots__/compiled-logreg.js");
  });

  it("row softmax, a column reduction and a scan", async () => {
    const x = T.param("x", [4, 3]);
    const lse = T.logsumexp(x, -1, true);
    const p = T.exp(T.sub(x, lse));
    const col = T.max(T.mul(p, 2), 0);
    const { carry } = T.scan(([c], [xt]) => ({ carry: [T.add(T.mul(c!, 0.5), xt!)] }), [T.constant(0, [3])], [p]);
    const exe = cpu.compileSync([col, carry[0]!]);
    await expect(exe.source).toMatchFileSnapshot("./__snapshots__/compiled-softmax-scan.js");
  });
});

describe("WebAssembly matrix products", () => {
  // Large enough for the WebAssembly kernels (WASM_MIN_PRODUCTS), with an odd width for the last lane.
  const { outputs, bindings } = logreg(700, 47);

  it("the generated code calls them for the long products and keeps the loops for the rest (golden snapshot)", async () => {
    const exe = cpu.compileSync(outputs);
    expect(exe.source).toContain("W.dot(");
    expect(exe.source).toContain("W.dotTransposed(");
    await expect(exe.source).toMatchFileSnapshot("./__snapshots__/compiled-logreg-wasm.js");
  });

  it("with X in an arena they give the bits of the JavaScript loops; with X elsewhere the loops run", () => {
    const exe = cpu.compileSync(outputs);
    const want = exe.runSync(bindings);
    const arena = TI.Arena.create();
    const X = arena.alloc(bindings.X.length);
    X.set(bindings.X);
    for (const data of [X, bindings.X]) {
      const bound = exe.bindSync({ X: data, y: bindings.y, beta: bindings.beta });
      const lp = new Float64Array(1), grad = new Float64Array(47);
      bound.setOutput(0, lp, 0);
      bound.setOutput(1, grad, 0);
      bound.run();
      expect(lp[0]).toBe(want[0]!.data[0]);
      expect(Array.from(grad)).toEqual(Array.from(want[1]!.data));
    }
    // And the interpreter agrees (to rounding: it evaluates the softplus and sigmoid its own way).
    expectSame(outputs, bindings);
  });
});

describe("fusion", () => {
  it("pads of vectors are computed in the loop that adds them up (a parameter vector's gradient from its slices)", () => {
    const q = T.param("q", [7]);
    const one = T.exp(T.slice(q, [{ start: 1, stop: 2 }]));
    const three = T.mul(T.slice(q, [{ start: 4, stop: 7 }]), T.sum(q));
    const strided = T.sin(T.slice(q, [{ start: 0, stop: 7, step: 3 }]));
    const g = T.add(T.add(T.pad(one, [[1, 5]]), T.pad(three, [[4, 0]], -2.5)), T.add(T.pad(strided, [[2, 2]]), T.pad(T.constant(3, [2]), [[0, 5]])));
    const exe = cpu.compileSync([g]);
    expect(exe.source).not.toMatch(/= pad\(/);
    const bindings = { q: seq(7) };
    expect(Array.from(exe.runSync(bindings)[0]!.data)).toEqual(Array.from(T.interpret([g], bindings)[0]!.data));
  });

  it("loops over one shape merge across a kernel in between that they do not depend on, and compute the same bits", () => {
    const x = T.param("x", [8]);
    const a = T.exp(x);
    // a is stored (a reduction and two outputs read it); the outputs' loops join a's, past the sum.
    const outs = [T.sum(a), T.mul(a, 2), T.add(a, x)];
    const exe = cpu.compileSync(outs);
    expect(exe.stats.kernels).toBe(2);
    const bindings = { x: seq(8) };
    const got = exe.runSync(bindings);
    T.interpret(outs, bindings).forEach((w, j) => expect(Array.from(got[j]!.data)).toEqual(Array.from(w.data)));
    // A loop that needs the sum stays after it.
    expect(cpu.compileSync([T.mul(a, T.sum(a)), T.add(a, 1)]).stats.kernels).toBe(3);
  });

  it("a loop does not merge into a reduction's loop whose inner loop reads it at other indices (sum(x · exp(w), 1))", () => {
    // exp(w) [3] is read broadcast in each row's inner loop, and the loop over the rows is also over
    // [3]: merged into it, entry i1 of exp(w) would be read before it is written.
    const xs = T.param("xs", [3, 3]), w = T.param("w", [3]);
    expectSame([T.sum(T.mul(xs, T.exp(w)), 1)], { w: seq(3), xs: seq(9, (i) => i + 0.5) }, 0);
  });

  it("a loop does not merge past the kernel that copies a strided view it reads (the columns of a matrix through reshapes)", () => {
    // The columns S[:, 0] and S[:, 1] are strided: each is copied into a buffer for its reshape. The
    // scalar loops that read those copies must stay after the copy kernel, not join an earlier scalar loop.
    const z = T.param("z", [2]), th = T.param("th", [4]), S = T.param("S", [2, 6]);
    const [u, v] = [T.index(z, 0), T.index(z, 1)];
    const [a, b, g, d] = [0, 1, 2, 3].map((i) => T.index(th, i)) as [Node, Node, Node, Node];
    const f = T.stack([T.mul(T.sub(a, T.mul(b, v)), u), T.mul(T.add(T.neg(g), T.mul(d, u)), v)]);
    const outs = [0, 1].map((p) => T.jvp([f], [z, th], [T.index(S, p, 1), T.constant(0, [4])])[0]!);
    const bindings = { z: [33, 6], th: [0.55, 0.028, 0.8, 0.024], S: [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0] };
    expectSame(outs, bindings);
  });

  it("a 30-op chain over 10 inputs of mixed shapes is one loop and matches the interpreter", () => {
    fc.assert(
      fc.property(
        shapeArb(1, 3, 5).chain((out) =>
          fc.tuple(fc.constant(out), fc.array(broadcastableTo(out), { minLength: 9, maxLength: 9 }), fc.array(fc.nat(5), { minLength: 30, maxLength: 30 })),
        ),
        fc.integer(),
        ([out, shapes, steps], seed) => {
          const all = [out, ...shapes];
          const xs = all.map((s, k) => T.param(`x${k}`, s));
          let acc: Node = xs[0]!;
          steps.forEach((f, i) => {
            const x = xs[i % xs.length]!;
            // Every step involves the running value, so every intermediate that is not cheap arithmetic has the full shape.
            acc = [
              () => T.add(acc, x),
              () => T.tanh(T.mul(acc, T.abs(x))),
              () => T.sin(T.sub(acc, x)),
              () => T.maximum(acc, T.mul(x, 0.5)),
              () => T.select(T.gt(acc, x), acc, T.neg(x)),
              () => T.div(acc, T.add(T.square(x), 1)),
            ][f]!();
          });
          const bindings = Object.fromEntries(all.map((s, k) => [`x${k}`, seq(s.reduce((a, b) => a * b, 1), (i) => Math.sin(seed + 7 * k + i))]));
          expect(cpu.compileSync([acc]).stats.kernels).toBe(1);
          expectSame([acc], bindings);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("reductions fuse with their producers and consumers", () => {
    const x = T.param("x", [5, 4]), w = T.data("w", [4]), y = T.data("y", [5]);
    const eta = T.sum(T.mul(x, w), -1); // trailing reduction fed by a product
    const lp = T.add(T.sum(T.sub(T.mul(y, eta), T.softplus(eta))), T.mul(-0.5, T.sum(T.square(w))));
    const exe = cpu.compileSync([lp]);
    expect(exe.stats.kernels).toBe(1);
    expect(exe.source).not.toMatch(/= T\[/); // no intermediate buffer at all
    expectSame([lp], { x: seq(20), w: seq(4), y: seq(5, (i) => i % 2) });
  });

  it("a leading-axis reduction runs row-major and accumulates (sum, max, logsumexp)", () => {
    const x = T.param("x", [6, 5]);
    const outs = [T.sum(T.exp(x), 0), T.max(T.mul(x, 3), 0), T.logsumexp(T.mul(x, 2), 0), T.min(T.reshape(x, [3, 2, 5]), [0, 2])];
    const exe = cpu.compileSync(outs);
    expect(exe.source).toContain("row-major over [6,5]");
    expectSame(outs, { x: seq(30, (i) => Math.sin(i) * 5) });
  });

  it("reductions over random axes of random chains match the interpreter", () => {
    fc.assert(
      fc.property(
        shapeArb(1, 4, 4).chain((shape) => fc.tuple(fc.constant(shape), fc.subarray([...shape.keys()], { minLength: 1 }), valuesArb(shape, floats(-3, 3)))),
        ([shape, axes, vals]) => {
          const x = T.param("x", shape);
          const chain = T.mul(T.exp(T.tanh(x)), T.add(x, 1));
          expectSame([T.sum(chain, axes), T.logsumexp(chain, axes), T.exp(T.max(chain, axes, true))], { x: vals });
        },
      ),
      { numRuns: 60 },
    );
  });

  it("an innermost loop of at most 5 is written out, one block per index, with the interpreter's bits", () => {
    const x = T.param("x", [50, 4]), c = T.param("c", [4]);
    const outs = [T.sum(T.sum(T.exp(T.sub(x, c)), -1)), T.max(T.mul(x, c), -1)];
    const exe = cpu.compileSync(outs);
    expect(exe.source).not.toMatch(/< 4; /);
    expect(exe.source).toContain("const i1 = 3;");
    const bindings = { x: seq(200, (i) => Math.sin(i) * 3), c: seq(4) };
    const got = exe.runSync(bindings), want = T.interpret(outs, bindings);
    got.forEach((g, j) => g.data.forEach((v, i) => expect(Object.is(v, want[j]!.data[i]), `output ${j} element ${i}`).toBe(true)));
  });

  it("a product with a short vector (unrolled, or lowered to ops in f64) gives the interpreter's bits, -0 included, in f64, f32 and i32", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 5 }), fc.constantFrom("f64" as const, "f32" as const, "i32" as const),
        fc.array(fc.constantFrom(-0, 0, 1.5, -2.25, 1e-300, 3e10), { minLength: 48, maxLength: 48 }),
        (d, n, dtype, pool) => {
          const X = T.data("X", [n, d], dtype), b = T.param("b", [d], dtype);
          const exe = cpu.compileSync([T.matmul(X, b)]);
          // f64 products (i32 operands are multiplied in f64) are lowered to elementwise ops
          // (short-products.ts); f32 ones keep the unrolled kernel.
          if (dtype === "f32") expect(exe.source).toContain("unrolled");
          else expect(exe.source).not.toMatch(/= matmul\(/);
          const bindings = { X: Float64Array.from({ length: n * d }, (_, i) => pool[i % 48]!), b: Float64Array.from({ length: d }, (_, i) => pool[47 - i]!) };
          const got = exe.runSync(bindings)[0]!.data, want = T.interpret([T.matmul(X, b)], bindings)[0]!.data;
          got.forEach((v, i) => expect(Object.is(v, want[i]), `row ${i}: ${v} vs ${want[i]}`).toBe(true));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("strided views (transpose, slice, broadcast) are read in place or copied when an op needs them contiguous", () => {
    const x = T.param("x", [3, 4, 5]);
    const t = T.transpose(x, [2, 0, 1]);
    const outs = [T.exp(t), T.cumsum(t, 1), T.reshape(t, [5, 12]), T.slice(x, [{ step: 2 }, { start: 1, step: 3 }]), T.matmul(T.slice(x, [{ step: 2 }]), T.transpose(x, [0, 2, 1]).shape.length ? T.param("m", [5, 2]) : x)];
    expectSame(outs, { x: seq(60), m: seq(10) });
  });
});

describe("fusion across kernels: short matrix-vector products (short-products.ts), gathers and scatter-adds (fused-indexing.ts)", () => {
  // The properties compile a few hundred graphs: leave the program cache below its bound for the tests after.
  afterAll(() => clearProgramCache());
  const bitsEqual = (outputs: Node[], bindings: T.Bindings): void => {
    const got = cpu.compileSync(outputs).runSync(bindings), want = T.interpret(outputs, bindings);
    got.forEach((g, j) => g.data.forEach((v, i) => expect(Object.is(v, want[j]!.data[i]), `output ${j} element ${i}: ${v} vs ${want[j]!.data[i]}`).toBe(true)));
  };
  const unaries: readonly ((x: Node) => Node)[] = [T.exp, T.softplus, T.sigmoid, T.tanh, T.square, (x) => T.neg(x)];
  const pool = fc.constantFrom(-0, 0, 1.5, -2.25, 0.1, 1e-300, 3e10, -7);

  it("X·β → elementwise → sum, and Xᵀ·h(X·β), give the interpreter's bits in one loop over the rows", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }), fc.integer({ min: 1, max: 8 }), fc.nat(unaries.length - 1), fc.nat(unaries.length - 1),
        fc.boolean(), fc.boolean(), fc.array(pool, { minLength: 64, maxLength: 64 }),
        (n, k, f, h, transposedData, etaOut, values) => {
          // X as data [N, K], or as the transpose of data [K, N] (a strided view).
          const X = transposedData ? T.transpose(T.data("Xt", [k, n])) : T.data("X", [n, k]);
          const y = T.data("y", [n]), beta = T.param("beta", [k]), a = T.param("a", []);
          const eta = T.add(T.matmul(X, beta), a);
          const lp = T.sum(T.mul(y, unaries[f]!(eta)));
          const grad = T.matmul(T.transpose(X), T.mul(y, unaries[h]!(eta)));
          const outputs = etaOut ? [lp, grad, eta] : [lp, grad];
          const v = (len: number, o: number) => Float64Array.from({ length: len }, (_, i) => values[(i + o) % 64]!);
          const bindings = { [transposedData ? "Xt" : "X"]: v(n * k, 0), y: v(n, 7), beta: v(k, 13), a: v(1, 29) };
          const source = cpu.compileSync(outputs).source;
          expect(source).not.toMatch(/= matmul\(/);
          // One pass over the rows when the loop is not written out (n > 5), Xᵀ·r sums over them (n > k)
          // and X·β is not an output (an output's loop is not moved into a reduction's).
          if (n > 5 && n > k && !etaOut) expect(source.match(new RegExp(`< ${n}; `, "g")) ?? []).toHaveLength(1);
          bitsEqual(outputs, bindings);
        },
      ),
      { numRuns: 80 },
    );
  });

  it("a product with few rows and a long inner dimension is sums that share the loop of a reduction over the same rows", () => {
    const A = T.data("A", [3, 40]), r = T.param("r", [40]);
    const outs = [T.add(T.matmul(A, T.exp(r)), 1), T.sum(T.exp(r))];
    const exe = cpu.compileSync(outs);
    expect(exe.source.match(/< 40; /g)).toHaveLength(1);
    bitsEqual(outs, { A: seq(120, (i) => (i % 7) - 3 + 0.25), r: seq(40, (i) => Math.cos(i)) });
  });

  it("gather(θ, g) → elementwise → sum and scatter_add(r, g) over the same rows (a hierarchical model) give the interpreter's bits in one loop", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 6 }), fc.nat(unaries.length - 1), fc.array(pool, { minLength: 64, maxLength: 64 }), fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
        (n, j, f, values, groups) => {
          const theta = T.param("theta", [j]), y = T.data("y", [n]), g = T.data("g", [n], "i32");
          const r = T.sub(y, unaries[f]!(T.gather(theta, g)));
          const outputs = [T.sum(T.square(r)), T.scatterAdd(r, g, 0, j)];
          const v = (len: number, o: number) => Float64Array.from({ length: len }, (_, i) => values[(i + o) % 64]!);
          const bindings = { theta: v(j, 3), y: v(n, 11), g: Float64Array.from({ length: n }, (_, i) => groups[i]! % j) };
          const source = cpu.compileSync(outputs).source;
          expect(source).not.toMatch(/= (gather|scatter_add)\(/);
          if (n > 5) expect(source.match(new RegExp(`i\\d+ < ${n}; `, "g")) ?? []).toHaveLength(1);
          bitsEqual(outputs, bindings);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a sum over rows that reads a scatter-add's output (through a gather) runs after the scatter-add's loop", () => {
    const u = T.param("u", [12]), x = T.data("x", [12]), g = T.data("g", [12], "i32");
    const s = T.scatterAdd(T.exp(u), g, 0, 4);
    const outs = [T.sum(T.mul(T.gather(s, g), x)), T.sum(T.mul(T.exp(u), x)), s];
    expectSame(outs, { u: seq(12), x: seq(12, (i) => i - 5.5), g: Float64Array.from({ length: 12 }, (_, i) => (i * 7) % 4) }, 0);
  });

  it("f32 products and products large enough for WebAssembly keep their kernel", () => {
    const x32 = T.matmul(T.data("X", [50, 4], "f32"), T.param("b", [4], "f32"));
    expect(cpu.compileSync([x32]).source).toMatch(/= matmul\(/);
    const big = T.matmul(T.data("X", [10000, 4]), T.param("b", [4]));
    expect(cpu.compileSync([big]).source).toMatch(/= matmul\(/);
  });
});

describe("executables", () => {
  it("caches programs by graph", () => {
    const { outputs } = logreg(7, 2);
    const before = cacheSize();
    const a = cpu.compileSync(outputs);
    const b = cpu.compileSync(logreg(7, 2).outputs);
    expect(cacheSize()).toBe(before + 1);
    expect(b.source).toBe(a.source);
  });

  it("reuses its buffers across runs and returns fresh outputs", () => {
    const { outputs, bindings } = logreg(9, 3);
    const exe = cpu.compileSync(outputs);
    const first = exe.runSync(bindings);
    const second = exe.runSync({ ...bindings, beta: seq(3, () => 0.3) });
    const again = exe.runSync(bindings);
    expect(Array.from(again[1]!.data)).toEqual(Array.from(first[1]!.data));
    expect(second[1]!.data).not.toBe(first[1]!.data);
    expect(Array.from(second[1]!.data)).not.toEqual(Array.from(first[1]!.data));
  });

  it("rounds f32 and i32 inputs and nodes as the interpreter does", () => {
    const x = T.param("x", [4], "f32"), k = T.data("k", [4], "i32");
    const outs = [T.mul(T.exp(x), T.cast(k, "f32")), T.add(k, 7), T.sum(T.div(x, 3))];
    const got = expectSame(outs, { x: [0.1, 0.2, 1 / 3, 2.5], k: [1.7, -2.2, 3, 4] }, 0);
    expect(got[0]!.data[0]).toBe(Math.fround(got[0]!.data[0]!));
  });

  it("runs nested scans", () => {
    const xs = T.data("xs", [4, 3]);
    const { carry, ys } = T.scan(
      ([c], [row]) => {
        const inner = T.scan(([d], [v]) => ({ carry: [T.add(T.mul(d!, 0.5), v!)] }), [c!], [row!]);
        return { carry: [inner.carry[0]!], ys: [T.mul(inner.carry[0]!, 2)] };
      },
      [T.constant(1)],
      [xs],
    );
    expectSame([carry[0]!, ys[0]!], { xs: seq(12) });
  });

  it("reports unbound inputs, wrong shapes and bad indices", () => {
    const x = T.param("x", [3]);
    const exe = cpu.compileSync([T.exp(x)]);
    expect(() => exe.runSync({})).toThrow(/no value bound for param 'x'/);
    expect(() => exe.runSync({ x: T.tensorValue([1, 2], [2]) })).toThrow(/has shape \[2\], the graph expects \[3\]/);
    const g = cpu.compileSync([T.gather(x, T.data("i", [2], "i32"))]);
    expect(() => g.runSync({ x: [1, 2, 3], i: [0, 3] })).toThrow(/gather: index 3 is out of range \[0, 3\)/);
  });

  it("rejects a gather or scatter_add index out of range with an IndexRangeError naming the entry, as the interpreter does", () => {
    const i = T.data("i", [3], "i32");
    const graphs = [[T.gather(T.param("x", [3]), i)], [T.scatterAdd(T.param("x", [3]), i, 0, 3)]];
    for (const outs of graphs) {
      const bindings = { x: [1, 2, 3], i: [0, 2, 3] };
      for (const run of [() => cpu.compileSync(outs).runSync(bindings), () => T.interpret(outs, bindings)]) {
        expect(run).toThrow(T.IndexRangeError);
        expect(run).toThrow(/index 3 is out of range \[0, 3\) \(entry 2 of the indices\)/);
      }
    }
  });

  it("a bound runner reads rows of a caller's array and writes into caller's arrays, equal to runSync", () => {
    const { outputs, bindings } = logreg(9, 3);
    const exe = cpu.compileSync(outputs);
    const bound = exe.bindSync({ X: bindings.X, y: bindings.y });
    const rows = Float64Array.from({ length: 2 * 3 }, (_, i) => 0.1 * i - 0.25);
    const lp = new Float64Array(2), grad = new Float64Array(2 * 3);
    const slot = bound.slot("beta");
    expect(bound.slot("nothing")).toBe(-1);
    expect(() => bound.run()).toThrow(/no value bound for 'beta'/);
    for (let c = 0; c < 2; c++) {
      bound.setInput(slot, rows, 3 * c);
      bound.setOutput(0, lp, c);
      bound.setOutput(1, grad, 3 * c);
      bound.run();
    }
    for (let c = 0; c < 2; c++) {
      const [v, g] = exe.runSync({ ...bindings, beta: rows.slice(3 * c, 3 * c + 3) });
      expect(lp[c]).toBe(v!.data[0]);
      expect(Array.from(grad.subarray(3 * c, 3 * c + 3))).toEqual(Array.from(g!.data));
    }
    expect(() => bound.setInput(slot, rows, 4)).toThrow(/needs 3 values from offset 4, the array has 6/);
    expect(() => bound.setOutput(1, grad, 5)).toThrow(/output 1 needs 3 values from offset 5/);
  });

  it("a bound runner rounds an f32 input from the caller's array at every run", () => {
    const x = T.param("x", [2], "f32");
    const exe = cpu.compileSync([T.mul(x, 3)]);
    const bound = exe.bindSync({});
    const src = Float64Array.of(0.1, 0.2, 0.3), out = new Float64Array(2);
    bound.setInput(bound.slot("x"), src, 1);
    bound.setOutput(0, out, 0);
    bound.run();
    expect(Array.from(out)).toEqual(Array.from(exe.runSync({ x: [0.2, 0.3] })[0]!.data));
    src[1] = 0.7;
    bound.run();
    expect(Array.from(out)).toEqual(Array.from(exe.runSync({ x: [0.7, 0.3] })[0]!.data));
  });

  it("is registered as the 'cpu' backend", async () => {
    const be = await T.getBackend("cpu");
    expect(be.name).toBe("cpu");
    const exe = await be.compile([T.add(T.param("a"), 1)]);
    expect((await exe.run({ a: 2 }))[0]!.data[0]).toBe(3);
  });
});

describe("loop-invariant work", () => {
  it("a transcendental of a smaller operand gets its own loop instead of being recomputed per element", () => {
    const x = T.param("x", [50, 4]), s = T.param("s", [4]);
    const out = T.mul(x, T.exp(s));
    const exe = cpu.compileSync([out]);
    expect(exe.stats.kernels).toBe(2);
    expectSame([out], { x: seq(200), s: seq(4) });
    // Cheap arithmetic on the smaller operand stays inline.
    expect(cpu.compileSync([T.mul(x, T.add(s, 1))]).stats.kernels).toBe(1);
  });

  it("softplus, sigmoid and log_sigmoid of one operand and of its negation take one exp between them, with the interpreter's bits", () => {
    const x = T.param("x", [40]), d = T.data("d", [40]);
    const z = T.add(x, d);
    const outs = [T.sum(T.add(T.add(T.softplus(z), T.sigmoid(z)), T.add(T.logSigmoid(T.neg(z)), T.sigmoid(T.neg(z)))))];
    const exe = cpu.compileSync(outs);
    expect(exe.source.match(/Math\.exp\(/g)).toHaveLength(1);
    const special = [0, -0, 1e-300, -1e-300, 710, -710, 745.2, -745.2, 36.7, -36.7, Infinity, -Infinity, NaN];
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.double(), fc.constantFrom(...special)), { minLength: 40, maxLength: 40 }), (vals) => {
        const bindings = { x: Float64Array.from(vals), d: new Float64Array(40) };
        const got = exe.runSync(bindings)[0]!.data[0]!, want = T.interpret(outs, bindings)[0]!.data[0]!;
        expect(Object.is(got, want), `${got} vs ${want}`).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe("shared exp(−|x|) forms (cpu/scalar.ts EXP_SHARING)", () => {
  it("each gives its function's bits for every class of double", async () => {
    const { EXP_SHARING, UNARY, sharedExpSource } = await import("../src/cpu/scalar.ts");
    for (const op of ["softplus", "sigmoid", "log_sigmoid"] as const) {
      const f = new Function("x", `"use strict"; const e = ${sharedExpSource("x")}; return ${EXP_SHARING[op]("x", "e")};`) as (x: number) => number;
      fc.assert(
        fc.property(fc.oneof(fc.double(), fc.constantFrom(0, -0, Infinity, -Infinity, NaN, 5e-324, -5e-324)), (v) => {
          expect(Object.is(f(v), UNARY[op](v)), `${op}(${v}): ${f(v)} vs ${UNARY[op](v)}`).toBe(true);
        }),
        { numRuns: 2000 },
      );
    }
  });
});

describe("gradient graphs", () => {
  // Autodiff output is a stress test for the scheduler: broadcasts of reductions, transposed
  // views, scatter-adds, zero-size slices. Every conformance case's gradient must agree.
  it("the optimized gradient of every conformance case matches the interpreter", async () => {
    const { conformanceCases } = await import("../src/testing/index.ts");
    for (const c of conformanceCases()) {
      for (const inst of fc.sample(c.arbitrary("f64"), { numRuns: 6, seed: 3 })) {
        const floats = inst.outputs.filter((o) => o.dtype === "f64");
        const params = TI.toposort(inst.outputs).filter((n) => n.op === "param" && n.dtype === "f64");
        if (!floats.length || !params.length) continue;
        const total = floats.map((o) => T.sum(o)).reduce((a, b) => T.add(a, b));
        expectSame(TI.optimize([total, ...T.grad(total, params)]), inst.bindings);
      }
    }
  });
});

describe("a graph too large for one generated function", () => {
  it("is a GraphError that names its size and what to write instead, not a stack overflow", () => {
    // 45,000 scalar terms fused into one kernel: rendered line by line (no spread of its lines),
    // the function V8 then refuses to enter is said as the graph's size.
    const q = T.param("q", []);
    let terms: Node[] = [];
    for (let i = 0; i < 45_000; i++) terms.push(T.mul(T.exp(T.mul(q, 1 + i * 1e-5)), i % 7));
    while (terms.length > 1) {
      const next: Node[] = [];
      for (let i = 0; i < terms.length; i += 2) next.push(i + 1 < terms.length ? T.add(terms[i]!, terms[i + 1]!) : terms[i]!);
      terms = next;
    }
    const exe = cpu.compileSync([terms[0]!]);
    const tooLarge = /^the compiled CPU program of this graph is too large to run \(1 kernel\(s\), \d+ lines .*write it with whole tensors/;
    expect(() => exe.runSync({ q: Float64Array.of(0.1) })).toThrow(tooLarge);
    // A run that failed leaves the check in place: the next run says the same.
    expect(() => exe.runSync({ q: Float64Array.of(0.2) })).toThrow(tooLarge);
    clearProgramCache();
  }, 60_000);

  it("is checked on the first run only: once a run completes, the instance calls the generated function itself", () => {
    const q = T.param("q", [3]);
    const outputs = [T.sum(T.exp(q))];
    const program = cachedProgram(outputs);
    const inst = instantiate(program);
    expect(inst.run).not.toBe(program.run);
    inst.IN[0] = Float64Array.of(0, 1, 2);
    inst.OUT[0] = new Float64Array(1);
    inst.run(inst.IN, inst.INOFF, inst.OUT, inst.OUTOFF, inst.T, inst.C);
    expect(inst.run).toBe(program.run);
    expect(inst.OUT[0]![0]).toBe(T.interpret(outputs, { q: Float64Array.of(0, 1, 2) })[0]!.data[0]);
    clearProgramCache();
  });
});
