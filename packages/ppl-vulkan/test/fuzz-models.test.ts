// Fuzzing random small models (issue 16, part 2): fast-check builds models from random parameters
// (scalars and vectors, with priors whose supports take every transform kind: real, positive, unit,
// interval, simplex, ordered), random data, and a random expression over them (elementwise maps,
// broadcasting, reductions, a data matrix times a parameter vector, a gather by an index vector)
// observed under a normal or a Poisson likelihood. Each model is compiled, and its log density and
// gradient at random unconstrained points are evaluated by the reference interpreter and by the
// Vulkan backend (lavapipe in CI, f64 where the device has it). The properties: building a model
// either works or fails with one of the typed errors, never anything else; the backend runs the
// whole graph on the device; and both agree — to rounding where the reference is finite, and in
// being non-finite where it is not. Fixed seeds; PPL_LONG=1 runs more models.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  add, constant, exp, gather, GraphError, interpret, matmul, mul, ShapeError, DTypeError, sigmoid, softplus, sub, sum, tanh,
  type Node,
} from "@ppl/tensor";
import { castFloats, optimize } from "@ppl/tensor/internals";
import { usableDevices, vulkanBackend } from "@ppl/vulkan";
import * as P from "@ppl/ppl";

const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const RUNS = LONG ? 200 : 12;
const device = usableDevices()[0];

type Prior = "normal" | "halfNormal" | "beta" | "uniform" | "ordered" | "dirichlet";
interface ParamSpec { prior: Prior; size: number }
type Expr =
  | { kind: "param"; index: number }
  | { kind: "data" }
  | { kind: "const"; value: number }
  | { kind: "unary"; op: "tanh" | "sigmoid" | "softplus" | "expClamped"; x: Expr }
  | { kind: "binary"; op: "add" | "sub" | "mul"; a: Expr; b: Expr }
  | { kind: "sum"; x: Expr }
  | { kind: "matmul" }
  | { kind: "gather"; index: number };
interface ModelSpec { params: ParamSpec[]; expr: Expr; likelihood: "normal" | "poisson"; n: number; k: number; seed: number }

const paramArb: fc.Arbitrary<ParamSpec> = fc.record({
  prior: fc.constantFrom<Prior>("normal", "halfNormal", "beta", "uniform", "ordered", "dirichlet"),
  size: fc.integer({ min: 1, max: 4 }),
});

function exprArb(nParams: number): fc.Arbitrary<Expr> {
  const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.record({ kind: fc.constant("param" as const), index: fc.integer({ min: 0, max: nParams - 1 }) }),
      fc.record({ kind: fc.constant("data" as const) }),
      fc.record({ kind: fc.constant("const" as const), value: fc.double({ min: -2, max: 2, noNaN: true }) }),
      fc.record({ kind: fc.constant("unary" as const), op: fc.constantFrom("tanh" as const, "sigmoid" as const, "softplus" as const, "expClamped" as const), x: tie("expr") }),
      fc.record({ kind: fc.constant("binary" as const), op: fc.constantFrom("add" as const, "sub" as const, "mul" as const), a: tie("expr"), b: tie("expr") }),
      fc.record({ kind: fc.constant("sum" as const), x: tie("expr") }),
      fc.record({ kind: fc.constant("matmul" as const) }),
      fc.record({ kind: fc.constant("gather" as const), index: fc.integer({ min: 0, max: nParams - 1 }) }),
    ),
  }));
  return expr;
}

const modelArb: fc.Arbitrary<ModelSpec> = fc.array(paramArb, { minLength: 1, maxLength: 3 }).chain((params) =>
  fc.record({
    params: fc.constant(params),
    expr: exprArb(params.length),
    likelihood: fc.constantFrom("normal" as const, "poisson" as const),
    n: fc.integer({ min: 1, max: 12 }),
    k: fc.integer({ min: 1, max: 4 }),
    seed: fc.integer({ min: 0, max: 1000 }),
  }),
);

function priorOf(p: ParamSpec): { dist: P.Distribution; opts: P.ParamOptions } {
  const shape = p.size > 1 || p.prior === "dirichlet" || p.prior === "ordered" ? { shape: [Math.max(p.size, 2)] } : {};
  switch (p.prior) {
    case "normal": return { dist: P.normal(0, 1), opts: shape };
    case "halfNormal": return { dist: P.halfNormal(1), opts: shape };
    case "beta": return { dist: P.beta(2, 3), opts: shape };
    case "uniform": return { dist: P.uniform(-1, 2), opts: shape };
    case "ordered": return { dist: P.normal(0, 2), opts: { ...shape, constraint: P.ordered() } };
    case "dirichlet": return { dist: P.dirichlet(constant(new Array(Math.max(p.size, 2)).fill(1.5), [Math.max(p.size, 2)])), opts: {} };
  }
}

/** The model a spec describes; its data are a deterministic function of the spec's seed. */
function build(spec: ModelSpec): { model: P.Model; data: Record<string, unknown> } {
  const { n, k } = spec;
  const wave = (i: number) => Math.sin(spec.seed * 0.37 + i * 1.3);
  const data = {
    N: n,
    K: k,
    x: Array.from({ length: n }, (_, i) => wave(i)),
    X: Array.from({ length: n }, (_, i) => Array.from({ length: k }, (_, j) => wave(7 * i + j))),
    g: Array.from({ length: n }, (_, i) => i % 2),
    y: Array.from({ length: n }, (_, i) => (spec.likelihood === "poisson" ? (i * 3 + spec.seed) % 5 : wave(3 * i))),
  };
  const model = P.model({
    name: "fuzzed",
    data: {
      N: P.data.int({ lower: 1 }), K: P.data.int({ lower: 1 }), x: P.data.vector("N"), X: P.data.matrix("N", "K"),
      g: P.data.intVector("N", { lower: 0 }),
      y: spec.likelihood === "poisson" ? P.data.intVector("N", { lower: 0 }) : P.data.vector("N"),
    },
    build(m, d) {
      const ps = spec.params.map((p, i) => {
        const { dist, opts } = priorOf(p);
        return m.param(`p${i}`, dist, opts);
      });
      const beta = m.param("beta", P.normal(0, 1), { shape: [d.K] });
      const render = (e: Expr): Node | number => {
        switch (e.kind) {
          case "param": return sum(ps[e.index]!);
          case "data": return d.x;
          case "const": return e.value;
          case "unary": {
            const x = render(e.x);
            if (e.op === "tanh") return tanh(x);
            if (e.op === "sigmoid") return sigmoid(x);
            if (e.op === "softplus") return softplus(x);
            return exp(tanh(x));
          }
          case "binary": {
            const a = render(e.a), b = render(e.b);
            return e.op === "add" ? add(a, b) : e.op === "sub" ? sub(a, b) : mul(a, b);
          }
          case "sum": return sum(render(e.x));
          case "matmul": return matmul(d.X, beta);
          case "gather": {
            const table = ps[e.index]!;
            return table.rank === 0 ? mul(table, d.x) : gather(table, d.g);
          }
        }
      };
      const mu = add(render(spec.expr), mul(0, d.x));
      if (spec.likelihood === "normal") m.observe(d.y, P.normal(mu, 1.5));
      else m.observe(d.y, P.poissonLog(tanh(mu)));
    },
  });
  return { model, data };
}

const TYPED = [P.ModelError, P.DataError, GraphError, ShapeError, DTypeError];

describe.runIf(device !== undefined)("random small models on the CPU reference and the Vulkan backend", async () => {
  const backend = await vulkanBackend();
  const dtype = device?.features.shaderFloat64 ? ("f64" as const) : ("f32" as const);
  const tol = dtype === "f64" ? 1e-9 : 1e-4;

  it("compile, run on the device, and agree", async () => {
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(modelArb, fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 64, maxLength: 64 }), async (spec, point) => {
        let compiled: P.CompiledModel;
        try {
          const { model, data } = build(spec);
          compiled = P.compileModel(model, data);
        } catch (e) {
          // A model the builder refuses must say why with a typed error (e.g. a gather of a scalar).
          expect(TYPED.some((T) => e instanceof T), String(e)).toBe(true);
          return;
        }
        const g = P.gradientGraph(compiled);
        const q = Float64Array.from({ length: compiled.dim }, (_, i) => point[i % point.length]!);
        const bindings = { ...compiled.dataBindings, q: { dtype: "f64" as const, shape: [compiled.dim], data: q } };
        const want = interpret([g.lp, g.grad], bindings);
        const outputs = optimize(dtype === "f32" ? castFloats([g.lp, g.grad], "f32") : [g.lp, g.grad]);
        const exe = await backend.compile(outputs);
        ran++;
        try {
          expect(exe.stats.hostNodes).toBe(0);
          const got = await exe.run(bindings);
          want.forEach((w, i) =>
            w.data.forEach((v, j) => {
              const x = Number(got[i]!.data[j]);
              if (!Number.isFinite(v)) expect(Number.isFinite(x), `output ${i}[${j}]: ${x} where the reference is ${v}`).toBe(false);
              else expect(Math.abs(x - v) <= tol * (1 + Math.abs(v)), `output ${i}[${j}]: ${x} vs ${v}`).toBe(true);
            }),
          );
        } finally {
          exe.dispose?.();
        }
      }),
      { numRuns: RUNS, seed: 1601, endOnFailure: true },
    );
    // The generator's models mostly build: the property is about running them, not refusing them.
    expect(ran).toBeGreaterThanOrEqual(RUNS / 2);
  }, LONG ? 3_600_000 : 300_000);
});
