// Stan's core distributions (issue 13, item 2) on the Vulkan backend (lavapipe in CI): each family's
// log density and its gradient, compiled to compute shaders with no node on the host, against the
// reference interpreter, in f64 and in f32; and a model of several of them sampled by the GPU NUTS,
// transition for transition the CPU sampler's.
import { describe, it } from "vitest";
import { add, constant, exp, grad, mT, mul, param, sum, type Node } from "@ppl/tensor";
import { usableDevices, vulkanBackend } from "@ppl/vulkan";
import { expectCpuTransitions, expectReferenceValues } from "./reference-check.ts";
import * as P from "@ppl/ppl";

const device = usableDevices()[0];
const vec = (xs: number[]) => constant(xs, [xs.length]);
const mat = (rows: number[][]) => constant(rows.flat(), [rows.length, rows[0]!.length]);
const sym = (a: Node) => mul(0.5, add(a, mT(a)));

interface Case {
  out: Node;
  wrt: Node[];
  bindings: Record<string, number[]>;
}

/** A scalar family at several points: x and each parameter a leaf with one entry per row; the gradient is taken in the parameters. */
function scalar(make: (p: Node[]) => P.Distribution, rows: number[][]): () => Case {
  return () => {
    const leaves = rows[0]!.map((_, j) => param(`v${j}`, [rows.length]));
    const bindings = Object.fromEntries(leaves.map((_, j) => [`v${j}`, rows.map((r) => r[j]!)]));
    const [x, ...ps] = leaves;
    return { out: sum(make(ps).logpdf(x!)), wrt: ps, bindings };
  };
}

const cases: [string, () => Case][] = [
  ["vonMises (both series of log I0)", scalar(([m, k]) => P.vonMises(m!, k!), [[0.3, 0.1, 0.5], [1, -0.2, 12], [2, 0, 30], [-1, 0.4, 300]])],
  ["pareto", scalar(([a, b]) => P.pareto(a!, b!), [[2, 1, 3], [5, 0.5, 1.5]])],
  ["paretoType2", scalar(([a, b, c]) => P.paretoType2(a!, b!, c!), [[2, 1, 3, 2], [5, 0.5, 1.5, 1]])],
  ["gumbel", scalar(([a, b]) => P.gumbel(a!, b!), [[2, 1, 3], [-5, 0.5, 1.5]])],
  ["frechet", scalar(([a, b]) => P.frechet(a!, b!), [[2, 1, 3], [5, 0.5, 1.5]])],
  ["rayleigh", scalar(([a]) => P.rayleigh(a!), [[2, 1], [5, 3]])],
  ["expModNormal (both tails)", scalar(([a, b, c]) => P.expModNormal(a!, b!, c!), [[2, 1, 1, 2], [-30, 0.5, 1.5, 1], [40, 0, 1, 0.3]])],
  ["skewDoubleExponential", scalar(([a, b, c]) => P.skewDoubleExponential(a!, b!, c!), [[2, 1, 1, 0.2], [-3, 0.5, 1.5, 0.7]])],
  ["inverseChiSquared", scalar(([a]) => P.inverseChiSquared(a!), [[2, 3], [0.5, 7]])],
  ["scaledInverseChiSquared", scalar(([a, b]) => P.scaledInverseChiSquared(a!, b!), [[2, 3, 1], [0.5, 7, 2]])],
  ["logLogistic", scalar(([a, b]) => P.logLogistic(a!, b!), [[2, 3, 1], [0.5, 7, 2]])],
  ["betaProportion", scalar(([a, b]) => P.betaProportion(a!, b!), [[0.2, 0.3, 5], [0.9, 0.6, 20]])],
  ["discreteUniform", scalar(([a, b]) => P.discreteUniform(a!, b!), [[2, 1, 5], [3, 3, 3]])],
  ["hypergeometric", scalar(([a, b, c]) => P.hypergeometric(a!, b!, c!), [[2, 5, 4, 6], [3, 4, 3, 3]])],
  ["betaNegativeBinomial", scalar(([a, b, c]) => P.betaNegativeBinomial(a!, b!, c!), [[2, 5, 4, 6], [0, 4, 3, 3]])],
  ["zeroInflatedPoisson", scalar(([a, b]) => P.zeroInflatedPoisson(a!, b!), [[0, 0.3, 2], [3, 0.2, 4]])],
  ["zeroInflatedNegativeBinomial", scalar(([a, b, c]) => P.zeroInflatedNegativeBinomial(a!, b!, c!), [[0, 0.3, 2, 1], [3, 0.2, 4, 2]])],
  ["hurdlePoisson", scalar(([a, b]) => P.hurdlePoisson(a!, b!), [[0, 0.3, 2], [3, 0.2, 4]])],
  ["hurdleNegativeBinomial", scalar(([a, b, c]) => P.hurdleNegativeBinomial(a!, b!, c!), [[0, 0.3, 2, 1], [3, 0.2, 4, 2]])],
  ["poissonLogNormal", scalar(([a, b]) => P.poissonLogNormal(a!, b!), [[0, 0.3, 0.5], [7, 1.2, 0.8], [30, 3, 0.2]])],
  ["orderedLogistic", () => {
    const e = param("e", [7]), c = param("c", [6]);
    return { out: sum(P.orderedLogistic(e, c).logpdf(vec([1, 2, 3, 4, 5, 6, 7]))), wrt: [e, c], bindings: { e: [0.1, -2, 4, 0, 1, 2, 3], c: [-2, -1, -0.5, 1, 1.5, 3] } };
  }],
  ["orderedProbit", () => {
    const e = param("e", [7]), c = param("c", [6]);
    return { out: sum(P.orderedProbit(e, c).logpdf(vec([1, 2, 3, 4, 5, 6, 7]))), wrt: [e, c], bindings: { e: [0.1, -2, 4, 0, 1, 2, 3], c: [-2, -1, -0.5, 1, 1.5, 3] } };
  }],
  ["poissonBinomial (60 trials: the recursion is a scan, so its shaders do not grow with N)", () => {
    const t = param("t", [60]);
    const theta = Array.from({ length: 60 }, (_, i) => 0.05 + (0.9 * ((i * 37) % 60)) / 60);
    return { out: sum(P.poissonBinomial(t).logpdf(vec([0, 10, 30, 60]))), wrt: [t], bindings: { t: theta } };
  }],
  ["dirichletMultinomial", () => {
    const a = param("a", [3]);
    return { out: P.dirichletMultinomial(a).logpdf(vec([2, 0, 3])), wrt: [a], bindings: { a: [0.5, 2, 3] } };
  }],
  ["multiStudentT", () => {
    const s = param("s", [2, 2]), mu = param("mu", [2]);
    return { out: sum(P.multiStudentT(4, mu, sym(s)).logpdf(mat([[0.1, 0.2], [1, -1]]))), wrt: [s, mu], bindings: { s: [2, 0.3, 0.3, 1], mu: [0, 1] } };
  }],
  ["wishart", () => {
    const s = param("s", [2, 2]), nu = param("nu");
    return { out: P.wishart(nu, sym(s)).logpdf(mat([[1, 0.2], [0.2, 0.7]])), wrt: [s, nu], bindings: { s: [2, 0.3, 0.3, 1], nu: [3.5] } };
  }],
  ["inverseWishart", () => {
    const s = param("s", [2, 2]), nu = param("nu");
    return { out: P.inverseWishart(nu, sym(s)).logpdf(mat([[1, 0.2], [0.2, 0.7]])), wrt: [s, nu], bindings: { s: [2, 0.3, 0.3, 1], nu: [3.5] } };
  }],
  ["wishartCholesky", () => {
    const nu = param("nu");
    return { out: P.wishartCholesky(nu, mat([[1.2, 0], [0.3, 0.8]])).logpdf(mat([[1, 0], [0.2, 0.7]])), wrt: [nu], bindings: { nu: [3.5] } };
  }],
  ["inverseWishartCholesky", () => {
    const nu = param("nu");
    return { out: P.inverseWishartCholesky(nu, mat([[1.2, 0], [0.3, 0.8]])).logpdf(mat([[1, 0], [0.2, 0.7]])), wrt: [nu], bindings: { nu: [3.5] } };
  }],
  ["lkjCorr", () => {
    const eta = param("eta");
    return { out: P.lkjCorr(3, eta).logpdf(mat([[1, 0.3, 0.1], [0.3, 1, -0.2], [0.1, -0.2, 1]])), wrt: [eta], bindings: { eta: [2] } };
  }],
  ["lkjCov", () => {
    const mu = param("mu", [2]);
    return { out: P.lkjCov(mu, 0.7, 2, 2).logpdf(mat([[1.3, 0.3], [0.3, 0.9]])), wrt: [mu], bindings: { mu: [0.1, -0.2] } };
  }],
  ["multiGP", () => {
    const w = param("w", [2]);
    return { out: P.multiGP(mat([[1.5, 0.4], [0.4, 0.9]]), w).logpdf(mat([[0.3, -0.7], [1.2, 0.1]])), wrt: [w], bindings: { w: [0.5, 2] } };
  }],
  ["matrixNormalPrecision", () => {
    const mu = param("mu", [2, 2]);
    return {
      out: P.matrixNormalPrecision(mu, mat([[2, 0.3], [0.3, 1]]), mat([[1, 0.1], [0.1, 3]])).logpdf(mat([[0.3, -0.7], [1.2, 0.1]])),
      wrt: [mu],
      bindings: { mu: [0, 0.1, 0.2, 0.3] },
    };
  }],
];

// f32 shares every GLSL line with f64 (the prelude is written once over REAL), so CI checks each
// family in one of the two, in turn down the list (a special function, a mixture, an ordinal link,
// a scan and a matrix density fall in each); PPL_LONG=1 runs every family in both.
const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const inDtype = (name: string, dtype: "f64" | "f32") =>
  LONG || !device?.features.shaderFloat64 || (cases.findIndex(([n]) => n === name) % 2 === 0) === (dtype === "f64");

describe.runIf(device !== undefined)("Stan's core distributions on the Vulkan backend", async () => {
  const backend = await vulkanBackend();
  const dtypes = device?.features.shaderFloat64 ? (["f64", "f32"] as const) : (["f32"] as const);
  // f32 against the f64 reference: a few units of f32 rounding in sums of tens of terms (the quadrature's 81).
  const tolerance = { f64: 1e-9, f32: 1e-4 };
  for (const dtype of dtypes) {
    describe(dtype, () => {
      for (const [name, make] of cases.filter(([n]) => inDtype(n, dtype))) {
        it(`${name}: log density and gradient match the reference interpreter`, async () => {
          const { out, wrt, bindings } = make();
          const outputs = [out, ...grad(out, wrt)];
          await expectReferenceValues(backend, outputs, bindings, dtype, tolerance[dtype]);
        });
      }
    });
  }
});

// Priors with support transforms (Fréchet, beta proportion, Gumbel) and likelihoods that use the
// composed special functions (log Φ, log I0, the Poisson-lognormal quadrature) and the hurdle's log1mExp.
const coreModel = P.model({
  name: "stan_core_gpu",
  data: { N: P.data.int({ lower: 1 }), y: P.data.intVector("N", { lower: 0 }), g: P.data.intVector("N", { lower: 1, upper: 4 }), a: P.data.vector("N") },
  build(m, d) {
    const mu = m.param("mu", P.normal(0, 1));
    const s = m.param("s", P.frechet(4, 1));
    const th = m.param("th", P.betaProportion(0.3, 5));
    const c = m.param("c", P.normal(0, 2), { shape: [3], constraint: P.ordered() });
    const loc = m.param("loc", P.gumbel(0, 1));
    m.observe(d.y, P.poissonLogNormal(mu, s));
    m.observe(d.y, P.zeroInflatedPoisson(th, exp(mu)));
    m.observe(d.y, P.hurdleNegativeBinomial(th, exp(mu), s));
    m.observe(d.a, P.vonMises(loc, s));
    m.observe(d.g, P.orderedProbit(mu, c));
  },
});
const coreData = { N: 8, y: [0, 2, 1, 0, 5, 3, 0, 1], g: [1, 2, 2, 3, 4, 1, 3, 2], a: [0.1, -0.5, 0.3, 1.2, 0.0, -0.2, 0.4, 0.8] };

describe.runIf(device?.features.shaderFloat64 === true)("GPU NUTS on a model of the new families", () => {
  const compiled = P.compileModel(coreModel, coreData);
  const run = { chains: 4, draws: 6, seed: 11, stepSize: 0.25, maxDepth: 10 };
  // The fused per-chain shader (workgroup; thread renders the same function, one chain per invocation,
  // and compiles slowest on lavapipe) and the codegen's batched-gradient kernels (device) render the density differently.
  it.each(["workgroup", "device"] as const)("f64, %s: the CPU sampler's tree depths and draws", async (shape) => {
    await expectCpuTransitions(compiled, run, shape);
  });
});
