// Every univariate family's lcdf and lccdf (issue 13, item 1) on the Vulkan backend (lavapipe in
// CI): each family's two log CDFs at several points and their gradients in x and the parameters,
// compiled to compute shaders with no node on the host, against the reference interpreter, in f64
// and in f32; and a model of truncated priors and censored likelihoods of the new families sampled
// by the GPU NUTS, transition for transition the CPU sampler's. The values themselves are checked against SciPy and mpmath in packages/ppl/test/cdf.test.ts.
import { describe, it } from "vitest";
import { eq, grad, param, select, stack, sum, type Node } from "@ppl/tensor";
import { usableDevices, vulkanBackend } from "@ppl/vulkan";
import { expectCpuTransitions, expectReferenceValues } from "./reference-check.ts";
import * as P from "@ppl/ppl";

const device = usableDevices()[0];

interface Family {
  make: (p: Node[]) => P.Distribution;
  /** Rows of [x, ...params], inside the support and away from tails that underflow f32. */
  rows: number[][];
  /** Counts: no gradient in x. */
  discrete?: boolean;
  /** Parameters held as data (integer ones): their columns get no gradient. */
  fixed?: number[];
}

const families: Record<string, Family> = {
  normal: { make: ([m, s]) => P.normal(m!, s!), rows: [[-1.3, 0, 1], [2.5, 1.5, 0.4], [-6, 0, 1]] },
  halfNormal: { make: ([s]) => P.halfNormal(s!), rows: [[0.3, 1], [2.7, 2.5]] },
  studentT: { make: ([n, m, s]) => P.studentT(n!, m!, s!), rows: [[-1.3, 3, 0, 1], [2.5, 0.8, 1, 2], [9, 25, -0.5, 0.7]] },
  halfStudentT: { make: ([n, s]) => P.halfStudentT(n!, s!), rows: [[0.3, 3, 1], [2.7, 7.5, 0.6]] },
  cauchy: { make: ([m, s]) => P.cauchy(m!, s!), rows: [[-1.3, 0, 1], [2.5, 1, 0.3]] },
  halfCauchy: { make: ([s]) => P.halfCauchy(s!), rows: [[0.3, 1], [2.7, 0.2]] },
  laplace: { make: ([m, b]) => P.laplace(m!, b!), rows: [[-1.3, 0, 1], [2.5, 0.5, 2]] },
  logistic: { make: ([m, s]) => P.logistic(m!, s!), rows: [[-1.3, 0, 1], [2.5, -1, 0.5]] },
  logNormal: { make: ([m, s]) => P.logNormal(m!, s!), rows: [[0.3, 0, 1], [2.7, 1.2, 0.3]] },
  exponential: { make: ([r]) => P.exponential(r!), rows: [[0.3, 1], [8, 0.2]] },
  gamma: { make: ([a, b]) => P.gamma(a!, b!), rows: [[0.3, 0.5, 1], [2.7, 3, 2], [8, 12, 0.7]] },
  inverseGamma: { make: ([a, b]) => P.inverseGamma(a!, b!), rows: [[0.3, 0.5, 1], [2.7, 3, 2]] },
  chiSquared: { make: ([n]) => P.chiSquared(n!), rows: [[0.3, 1], [8, 6.5]] },
  beta: { make: ([a, b]) => P.beta(a!, b!), rows: [[0.05, 0.5, 0.5], [0.3, 2, 5], [0.9, 8, 1.3]] },
  uniform: { make: ([lo, hi]) => P.uniform(lo!, hi!), rows: [[-0.2, -1, 2], [1.9, -1, 2]] },
  weibull: { make: ([k, s]) => P.weibull(k!, s!), rows: [[0.3, 1.5, 1], [2.7, 0.7, 3]] },
  skewNormal: { make: ([xi, w, a]) => P.skewNormal(xi!, w!, a!), rows: [[-0.4, 0, 1, 3], [2.5, 1, 2, -1.5]] },
  truncatedNormal: {
    make: ([m, s, lo, hi]) => P.truncatedNormal(m!, s!, { lower: lo!, upper: hi! }),
    rows: [[-0.5, 0.3, 1.2, -1, 3], [1, 1, 0.5, 0.2, 5]],
  },
  gumbel: { make: ([m, b]) => P.gumbel(m!, b!), rows: [[-1.3, 0, 1], [9, 1.5, 2.5]] },
  frechet: { make: ([a, s]) => P.frechet(a!, s!), rows: [[0.3, 1.5, 1], [8, 4, 2.5]] },
  rayleigh: { make: ([s]) => P.rayleigh(s!), rows: [[0.3, 1], [8, 3.5]] },
  pareto: { make: ([m, a]) => P.pareto(m!, a!), rows: [[1.2, 1, 3], [7.5, 1.1, 0.6]] },
  paretoType2: { make: ([m, l, a]) => P.paretoType2(m!, l!, a!), rows: [[0.3, -0.5, 1, 3], [15, 0.2, 2.5, 0.8]] },
  logLogistic: { make: ([a, b]) => P.logLogistic(a!, b!), rows: [[0.3, 1, 3], [8, 2.5, 0.7]] },
  inverseChiSquared: { make: ([n]) => P.inverseChiSquared(n!), rows: [[0.3, 1], [2.7, 6.5]] },
  scaledInverseChiSquared: { make: ([n, s]) => P.scaledInverseChiSquared(n!, s!), rows: [[0.3, 1, 1], [2.7, 6.5, 0.4]] },
  betaProportion: { make: ([m, k]) => P.betaProportion(m!, k!), rows: [[0.05, 0.3, 2], [0.9, 0.8, 12]] },
  expModNormal: { make: ([m, s, l]) => P.expModNormal(m!, s!, l!), rows: [[-1.3, 0, 1, 1], [2.5, 1, 0.5, 3], [9, -1, 2, 0.2]] },
  skewDoubleExponential: { make: ([m, s, t]) => P.skewDoubleExponential(m!, s!, t!), rows: [[-1.3, 0, 1, 0.5], [2.5, 0.5, 2, 0.2]] },
  vonMises: {
    make: ([m, k]) => P.vonMises(m!, k!),
    // Both of G's forms: the Fourier series (kappa < 200) and Hill's approximation above it. The
    // series holds its digits absolutely, so in f32 its points keep both tails above a few percent.
    rows: [[-1.3, 0, 1], [2.5, 0.7, 0.01], [-3, -2, 8], [0.95, 1.1, 150], [0.2, 0.3, 500]],
  },
  bernoulli: { make: ([p]) => P.bernoulli(p!), rows: [[0, 0.3]], discrete: true },
  bernoulliLogit: { make: ([a]) => P.bernoulliLogit(a!), rows: [[0, -1.2]], discrete: true },
  binomial: { make: ([n, p]) => P.binomial(n!, p!), rows: [[2, 10, 0.3], [7, 10, 0.85]], discrete: true, fixed: [0] },
  binomialLogit: { make: ([n, a]) => P.binomialLogit(n!, a!), rows: [[2, 10, 0.4]], discrete: true, fixed: [0] },
  poisson: { make: ([r]) => P.poisson(r!), rows: [[1, 0.7], [8, 6]], discrete: true },
  poissonLog: { make: ([e]) => P.poissonLog(e!), rows: [[3, 1.1]], discrete: true },
  negativeBinomial: { make: ([a, b]) => P.negativeBinomial(a!, b!), rows: [[3, 2, 0.5], [8, 7, 3]], discrete: true },
  negativeBinomial2: { make: ([m, f]) => P.negativeBinomial2(m!, f!), rows: [[3, 4, 1.5], [1, 0.8, 10]], discrete: true },
  // The trials and the counts are leaves here, so the mass tables are sized by the bounds given.
  betaBinomial: { make: ([n, a, b]) => P.betaBinomial(n!, a!, b!, { maxN: 25 }), rows: [[3, 10, 2, 3], [8, 25, 7.5, 1.2]], discrete: true, fixed: [0] },
  betaNegativeBinomial: {
    make: ([r, a, b]) => P.betaNegativeBinomial(r!, a!, b!, { maxCount: 20 }),
    rows: [[3, 2, 3, 1.5], [8, 6.5, 1.5, 9]],
    discrete: true,
  },
  discreteUniform: { make: ([lo, hi]) => P.discreteUniform(lo!, hi!), rows: [[3, 2, 7], [2, 2, 7]], discrete: true, fixed: [0, 1] },
  poissonBinomial: {
    make: (ts) => P.poissonBinomial(stack(ts, -1)),
    rows: [[1, 0.2, 0.5, 0.7, 0.05], [2, 0.9, 0.95, 0.6, 0.99]],
    discrete: true,
  },
};

/** The family's lcdf and lccdf at its rows and the gradient of their sums in every continuous input, each output labelled. */
function graph(f: Family) {
  const width = f.rows[0]!.length;
  const free = (j: number) => (j === 0 ? !f.discrete : !(f.fixed ?? []).includes(j - 1));
  const leaves = Array.from({ length: width }, (_, j) => param(`v${j}`, [f.rows.length]));
  const bindings = Object.fromEntries(leaves.map((_, j) => [`v${j}`, f.rows.map((r) => r[j]!)]));
  const [x, ...ps] = leaves;
  const d = f.make(ps);
  const lo = d.lcdf!(x!), hi = d.lccdf!(x!);
  const wrt = leaves.flatMap((_, j) => (free(j) ? [j] : []));
  const input = (j: number) => (j === 0 ? "x" : `parameter ${j}`);
  const ins = wrt.map((j) => leaves[j]!);
  return {
    outputs: [lo, hi, ...grad(sum(lo), ins), ...grad(sum(hi), ins)],
    bindings,
    labels: ["lcdf", "lccdf", ...wrt.map((j) => `d lcdf/d ${input(j)}`), ...wrt.map((j) => `d lccdf/d ${input(j)}`)],
  };
}

// The families whose one merged shader took lavapipe over half a second to build (those of the
// incomplete gamma and beta functions, of sums over mass tables, of Owen's T and the truncated
// normal): their outputs get a kernel each (merge off).
// lavapipe's build time grows faster than a shader's length, and the merged shader is the same
// lines with each output's part in a function of its own; apart, these families' kernels took half
// the CPU time (halfStudentT in f64: 4.5 s against 12.9 s, and 7.2 s against 12.5 s with the
// SPIR-V cache empty, where each of its 8 kernels runs glslc on the prelude instead of one). The
// other families keep the merged dispatch, so that it still runs these functions' parts side by
// side in one shader; merging itself is checked in packages/vulkan/test/merge-kernels.test.ts.
const apart = new Set([
  "studentT", "halfStudentT", "gamma", "inverseGamma", "chiSquared", "beta", "skewNormal", "truncatedNormal",
  "inverseChiSquared", "scaledInverseChiSquared", "betaProportion", "binomial", "binomialLogit", "poisson", "poissonLog",
  "negativeBinomial", "negativeBinomial2", "betaBinomial", "betaNegativeBinomial",
]);

// f32 shares every GLSL line with f64 (the prelude is written once over REAL), so CI checks f32 on
// one family per special function it reaches (erf, logistic, the incomplete gamma and beta
// functions, von Mises' series, Owen's T, the truncated normal, a mass recursion); PPL_LONG=1 runs
// every family in f32 as well. Building all of them in f32 doubled the file's lavapipe time
// (about 6 of CI's minutes with an empty shader cache).
const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";
const f32Families = new Set(["normal", "logistic", "chiSquared", "binomial", "vonMises", "skewNormal", "truncatedNormal", "poissonBinomial"]);
const inDtype = (name: string, dtype: "f64" | "f32") => dtype === "f64" || LONG || f32Families.has(name);

describe.runIf(device !== undefined)("lcdf and lccdf on the Vulkan backend", async () => {
  const merged = await vulkanBackend();
  const unmerged = await vulkanBackend({ merge: false });
  const dtypes = device?.features.shaderFloat64 ? (["f64", "f32"] as const) : (["f32"] as const);
  // f32 against the f64 reference: the incomplete gamma and beta functions' continued fractions and
  // the von Mises series accumulate a few hundred f32 roundings.
  const tolerance = { f64: 1e-9, f32: 2e-4 };
  for (const dtype of dtypes) {
    describe(dtype, () => {
      for (const [name, f] of Object.entries(families).filter(([n]) => inDtype(n, dtype))) {
        it(`${name}: lcdf, lccdf and their gradients match the reference interpreter`, async () => {
          const { outputs, bindings, labels } = graph(f);
          await expectReferenceValues(apart.has(name) ? unmerged : merged, outputs, bindings, dtype, tolerance[dtype], labels);
        });
      }
    });
  }
});

// Truncated priors (their bound transforms follow the bounds) and censored observations, whose
// terms are lcdf at the lower limits and lccdf at the upper ones, of the families given CDFs here.
const censoredModel = P.model({
  name: "cdfs_gpu",
  data: {
    N: P.data.int({ lower: 1 }),
    t: P.data.vector("N", { lower: 0 }),
    cens: P.data.intVector("N", { lower: 0, upper: 1 }),
    angle: P.data.vector("N"),
    k: P.data.intVector("N", { lower: 0, upper: 12 }),
  },
  build(m, d) {
    const loc = m.param("loc", P.truncated(P.gumbel(0, 1), { lower: -2, upper: 3 }));
    const s = m.param("s", P.truncated(P.frechet(3, 1), { upper: 4 }));
    const kappa = m.param("kappa", P.rayleigh(3));
    // Right-censored where cens = 1 (follow-up ended at t), with no limit elsewhere.
    m.observeCensored(d.t, P.paretoType2(0, s, 2.5), { upper: select(eq(d.cens, 1), d.t, Infinity) });
    m.observeCensored(d.angle, P.vonMises(loc, kappa), { lower: -1, upper: 1 });
    m.observeCensored(d.k, P.betaBinomial(12, s, kappa), { lower: 2, upper: 9 });
    m.observeCensored(d.t, P.expModNormal(loc, s, 1.5), { lower: 0.3 });
  },
});
const censoredData = {
  N: 8,
  t: [0.2, 1.5, 0.7, 3, 0.4, 2.2, 0.9, 5],
  cens: [0, 1, 0, 1, 0, 1, 0, 1],
  angle: [0.1, -0.5, 1.3, 0.2, -1.4, 0.6, 0.0, 0.9],
  k: [0, 3, 5, 12, 7, 9, 1, 4],
};

// The same priors with the closed-form CDFs only, for the fused per-chain shader: that of the full
// model takes lavapipe about five minutes to build (a model of any one of its families, seconds),
// the batched-gradient kernels of the device shape about a minute.
const lightModel = P.model({
  name: "cdfs_gpu_light",
  data: { N: P.data.int({ lower: 1 }), t: P.data.vector("N", { lower: 0 }), cens: P.data.intVector("N", { lower: 0, upper: 1 }) },
  build(m, d) {
    const loc = m.param("loc", P.truncated(P.gumbel(0, 1), { lower: -2, upper: 3 }));
    const s = m.param("s", P.truncated(P.frechet(3, 1), { upper: 4 }));
    m.observeCensored(d.t, P.paretoType2(0, s, 2.5), { upper: select(eq(d.cens, 1), d.t, Infinity) });
    m.observeCensored(d.t, P.expModNormal(loc, s, 1.5), { lower: 0.3 });
  },
});

describe.runIf(device?.features.shaderFloat64 === true)("GPU NUTS on truncated priors and censored likelihoods", () => {
  const run = { chains: 4, draws: 6, seed: 17, stepSize: 0.2, maxDepth: 8 };
  const cases = [
    ["the full model, device", P.compileModel(censoredModel, censoredData), "device"],
    ["the closed-form families, workgroup", P.compileModel(lightModel, { N: censoredData.N, t: censoredData.t, cens: censoredData.cens }), "workgroup"],
  ] as const;
  it.each(cases)("f64, %s: the CPU sampler's tree depths and draws", async (_, compiled, shape) => {
    await expectCpuTransitions(compiled, run, shape);
  });
});
