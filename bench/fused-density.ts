/**
 * Would a fused log-density node (one node with analytic partials, as Stan math writes its
 * `_lpdf`s) beat the expanded graph on the CPU? For three likelihoods over a long data vector x
 * with scalar parameters:
 *
 *   normal:         y ~ normal(alpha + x·beta, sigma)   alpha ~ N(0, 10), beta ~ N(0, 5), sigma ~ half-N(5)
 *   bernoulliLogit: y ~ bernoulli_logit(alpha + x·beta) alpha, beta ~ N(0, 2.5)
 *   poissonLog:     y ~ poisson_log(alpha + x·beta)     alpha, beta ~ N(0, 2.5)
 *
 * it times, per value + gradient evaluation,
 *   (a) the project's path: the model written with the ppl API, compileModel, modelDensity on the
 *       compiled CPU backend, and its `logpGrad` for one chain (what the sampler calls);
 *   (b) a hand-written fused evaluation: one TypeScript loop over the N observations computing the
 *       log density and accumulating its analytic partials in each parameter (Stan math's
 *       operands-and-partials approach), f64 — the best a fused node could do on the CPU.
 *
 * What is compared: the model's whole log density in its unconstrained parameters q (what
 * logpGrad returns), so (b) also adds the priors with their normalising constants, the
 * −N·log(sigma) − N·½·log(2π) of the normal, and the Jacobian of sigma = exp(u) (log|J| = u, the
 * gradient taken in u). The Poisson's Σ log(y!) reads only data; the project's path computes it
 * once when the density is built (hoistData), and so does (b). Before timing, (a) and (b) are
 * checked to agree at three points (value and each gradient entry within 1e-9 relative).
 *
 * The two are timed alternately in one process (a batch of evaluations of one, then of the
 * other, repeated), and the median per evaluation is printed: one line per case with µs of (a)
 * and (b), the ratio (a)/(b) of the medians and the median of each round's own ratio, and the kernels / loops the compiled backend made of the gradient
 * graph (its `stats.kernels`, and the `for (` loops in its generated source).
 *
 *   npx tsx bench/fused-density.ts [--n 100000,1000] [--reps 31] [--json]
 */
import { parseArgs } from "node:util";
import { bernoulliLogit, compileModel, data, halfNormal, model, normal, poissonLog, type CompiledModel } from "../packages/ppl/src/index.ts";
import { recordedDensity } from "../packages/ppl/src/internals.ts";

const { values } = parseArgs({ options: { n: { type: "string" }, reps: { type: "string" }, json: { type: "boolean" } } });
const sizes = (values.n ?? "100000,1000").split(",").map(Number);
const reps = Number(values.reps ?? 31);

const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

// ---- Models (the project's path) ----

const normalModel = model({
  name: "fused_normal",
  data: { N: data.int({ lower: 0 }), x: data.vector("N"), y: data.vector("N") },
  build(m, d) {
    const alpha = m.param("alpha", normal(0, 10));
    const beta = m.param("beta", normal(0, 5));
    const sigma = m.param("sigma", halfNormal(5));
    m.observe(d.y, normal(alpha.add(d.x.mul(beta)), sigma));
  },
});

const bernoulliModel = model({
  name: "fused_bernoulli_logit",
  data: { N: data.int({ lower: 0 }), x: data.vector("N"), y: data.intVector("N", { lower: 0, upper: 1 }) },
  build(m, d) {
    const alpha = m.param("alpha", normal(0, 2.5));
    const beta = m.param("beta", normal(0, 2.5));
    m.observe(d.y, bernoulliLogit(alpha.add(d.x.mul(beta))));
  },
});

const poissonModel = model({
  name: "fused_poisson_log",
  data: { N: data.int({ lower: 0 }), x: data.vector("N"), y: data.intVector("N", { lower: 0 }) },
  build(m, d) {
    const alpha = m.param("alpha", normal(0, 2.5));
    const beta = m.param("beta", normal(0, 2.5));
    m.observe(d.y, poissonLog(alpha.add(d.x.mul(beta))));
  },
});

// ---- Hand-written fused evaluations (b): q is the unconstrained vector, grad written in place ----

/** log N(v | 0, s) and its derivative in v. */
const priorNormal = (v: number, s: number): [number, number] => [-0.5 * (v / s) ** 2 - Math.log(s) - HALF_LOG_TWO_PI, -v / (s * s)];

function fusedNormal(x: Float64Array, y: Float64Array, q: Float64Array, grad: Float64Array): number {
  const alpha = q[0]!, beta = q[1]!, u = q[2]!;
  const sigma = Math.exp(u), inv = 1 / sigma;
  const n = x.length;
  // One pass: z_i = (y_i − mu_i)/sigma; ∂/∂mu_i = z_i/sigma, ∂/∂sigma = (z_i² − 1)/sigma.
  let szz = 0, sz = 0, szx = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    const z = (y[i]! - alpha - beta * xi) * inv;
    szz += z * z;
    sz += z;
    szx += z * xi;
  }
  const [pa, ga] = priorNormal(alpha, 10), [pb, gb] = priorNormal(beta, 5);
  // sigma ~ half-normal(5): log 2 + log N(sigma | 0, 5); q holds u = log sigma, log|J| = u.
  const ps = Math.LN2 - 0.5 * (sigma / 5) ** 2 - Math.log(5) - HALF_LOG_TWO_PI;
  const dSigma = (szz - n) * inv - sigma / 25;
  grad[0] = sz * inv + ga;
  grad[1] = szx * inv + gb;
  grad[2] = dSigma * sigma + 1;
  return -0.5 * szz - n * u - n * HALF_LOG_TWO_PI + pa + pb + ps + u;
}

function fusedBernoulliLogit(x: Float64Array, y: Float64Array, q: Float64Array, grad: Float64Array): number {
  const alpha = q[0]!, beta = q[1]!;
  const n = x.length;
  // log σ(t) with t = (2y − 1)·eta, as the project (and Stan) write it; ∂/∂eta = (2y − 1)·σ(−t).
  let lp = 0, ga = 0, gb = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    const s = 2 * y[i]! - 1;
    const t = s * (alpha + beta * xi);
    const e = Math.exp(-Math.abs(t));
    lp += (t < 0 ? t : 0) - Math.log1p(e);
    const r = s * (t >= 0 ? e / (1 + e) : 1 / (1 + e));
    ga += r;
    gb += r * xi;
  }
  const [pa, dpa] = priorNormal(alpha, 2.5), [pb, dpb] = priorNormal(beta, 2.5);
  grad[0] = ga + dpa;
  grad[1] = gb + dpb;
  return lp + pa + pb;
}

function fusedPoissonLog(x: Float64Array, y: Float64Array, sumLogFactorial: number, q: Float64Array, grad: Float64Array): number {
  const alpha = q[0]!, beta = q[1]!;
  const n = x.length;
  // y·eta − e^eta − log y!; ∂/∂eta = y − e^eta. Σ log y! reads only data: computed once.
  let lp = 0, ga = 0, gb = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!, yi = y[i]!;
    const eta = alpha + beta * xi;
    const rate = Math.exp(eta);
    lp += yi * eta - rate;
    const r = yi - rate;
    ga += r;
    gb += r * xi;
  }
  const [pa, dpa] = priorNormal(alpha, 2.5), [pb, dpb] = priorNormal(beta, 2.5);
  grad[0] = ga + dpa;
  grad[1] = gb + dpb;
  return lp - sumLogFactorial + pa + pb;
}

// ---- Data: deterministic (an LCG), so every run times the same work ----

function makeData(n: number, seed: number) {
  let state = seed >>> 0;
  const rand = () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const x = Float64Array.from({ length: n }, () => 2 * rand() - 1);
  const yNormal = Float64Array.from(x, (xi) => 1.5 + 2 * xi + 0.8 * gauss());
  const yBern = Float64Array.from(x, (xi) => (rand() < 1 / (1 + Math.exp(-(-0.5 + 1.2 * xi))) ? 1 : 0));
  const yPois = Float64Array.from(x, (xi) => {
    // Knuth's method; rates are at most e^1.3.
    const limit = Math.exp(-Math.exp(0.5 + 0.8 * xi));
    let k = 0, p = rand();
    while (p > limit) { k++; p *= rand(); }
    return k;
  });
  return { x, yNormal, yBern, yPois };
}

const logFactorial = (k: number): number => {
  let s = 0;
  for (let j = 2; j <= k; j++) s += Math.log(j);
  return s;
};

// ---- The project's path, with the compiled backend's kernel count recorded ----

interface Built {
  logpGrad: (q: Float64Array, grad: Float64Array) => number;
  dim: number;
  kernels: number;
  loops: number;
}

async function project(cm: CompiledModel): Promise<Built> {
  const { exe, logpGrad } = await recordedDensity(cm);
  return { dim: cm.dim, kernels: exe.stats.kernels, loops: (exe.source.match(/\bfor \(/g) ?? []).length, logpGrad };
}

// ---- Agreement and timing ----

const relClose = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b), 1);

function check(name: string, a: Built["logpGrad"], b: Built["logpGrad"], dim: number, points: readonly number[][]): number {
  let worst = 0;
  for (const p of points) {
    const q = Float64Array.from(p);
    const ga = new Float64Array(dim), gb = new Float64Array(dim);
    const va = a(q, ga), vb = b(q, gb);
    const rel = (u: number, v: number) => Math.abs(u - v) / Math.max(Math.abs(u), Math.abs(v), 1);
    worst = Math.max(worst, rel(va, vb), ...Array.from(ga, (g, j) => rel(g, gb[j]!)));
    if (!relClose(va, vb) || !ga.every((g, j) => relClose(g, gb[j]!))) {
      throw new Error(`${name}: (a) and (b) disagree at q = [${p}]: lp ${va} vs ${vb}, grad [${Array.from(ga)}] vs [${Array.from(gb)}]`);
    }
  }
  return worst;
}

const median = (xs: number[]): number => [...xs].sort((u, v) => u - v)[Math.floor(xs.length / 2)]!;

/**
 * Alternating batches of `batch` evaluations of each (the order flipping every round); median µs
 * per evaluation over `reps` rounds, and the median of the rounds' own ratios (a batch of (a) and
 * the batch of (b) next to it see the same load on a shared machine).
 */
function timeAlternating(fns: Record<"a" | "b", (q: Float64Array, g: Float64Array) => number>, dim: number, batch: number): { a: number; b: number; paired: number } {
  const q = new Float64Array(dim), g = new Float64Array(dim);
  const us: { a: number[]; b: number[] } = { a: [], b: [] };
  let sink = 0;
  for (let r = 0; r < reps + 2; r++) {
    for (const k of (r % 2 === 0 ? ["a", "b"] : ["b", "a"]) as ("a" | "b")[]) {
      const f = fns[k];
      const t0 = performance.now();
      for (let i = 0; i < batch; i++) {
        q[0] = 0.1 + (i % 7) * 0.01; // the position moves a little, as in a trajectory
        sink += f(q, g);
      }
      const dt = ((performance.now() - t0) * 1000) / batch;
      if (r >= 2) us[k].push(dt); // the first two rounds warm up the JIT
    }
  }
  if (!Number.isFinite(sink)) throw new Error("non-finite log density while timing");
  return { a: median(us.a), b: median(us.b), paired: median(us.a.map((a, r) => a / us.b[r]!)) };
}

const rows: Record<string, unknown>[] = [];
for (const n of sizes) {
  const { x, yNormal, yBern, yPois } = makeData(n, 20240611 + n);
  const sumLogFactorial = yPois.reduce((s, k) => s + logFactorial(k), 0);
  const cases = [
    {
      name: "normal",
      cm: compileModel(normalModel, { N: n, x: Array.from(x), y: Array.from(yNormal) }),
      fused: (q: Float64Array, g: Float64Array) => fusedNormal(x, yNormal, q, g),
      points: [[0.3, -0.7, Math.log(1.3)], [1.5, 2, Math.log(0.8)], [-2, 0.5, -1]],
    },
    {
      name: "bernoulliLogit",
      cm: compileModel(bernoulliModel, { N: n, x: Array.from(x), y: Array.from(yBern) }),
      fused: (q: Float64Array, g: Float64Array) => fusedBernoulliLogit(x, yBern, q, g),
      points: [[0.3, -0.7], [-0.5, 1.2], [4, -30]],
    },
    {
      name: "poissonLog",
      cm: compileModel(poissonModel, { N: n, x: Array.from(x), y: Array.from(yPois) }),
      fused: (q: Float64Array, g: Float64Array) => fusedPoissonLog(x, yPois, sumLogFactorial, q, g),
      points: [[0.3, -0.7], [0.5, 0.8], [-1, 2]],
    },
  ];
  for (const c of cases) {
    const built = await project(c.cm);
    const worst = check(`${c.name} N=${n}`, built.logpGrad, c.fused, built.dim, c.points);
    const batch = Math.max(1, Math.round(5e5 / n)); // about 500k element-evaluations a batch
    const t = timeAlternating({ a: built.logpGrad, b: c.fused }, built.dim, batch);
    const row = {
      case: c.name, N: n, a_us: +t.a.toFixed(2), b_us: +t.b.toFixed(2), ratio: +(t.a / t.b).toFixed(2), paired_ratio: +t.paired.toFixed(2),
      kernels: built.kernels, loops: built.loops, max_rel_diff: +worst.toExponential(1), reps, batch,
    };
    rows.push(row);
    if (values.json) console.log(JSON.stringify(row));
    else {
      console.log(
        `${c.name.padEnd(15)} N=${String(n).padEnd(7)} (a) modelDensity ${t.a.toFixed(2).padStart(9)} µs  (b) fused loop ${t.b.toFixed(2).padStart(9)} µs` +
          `  (a)/(b) ${(t.a / t.b).toFixed(2).padStart(6)} (paired ${t.paired.toFixed(2).padStart(6)})  [kernels ${built.kernels}, loops ${built.loops}; max rel diff ${worst.toExponential(1)}]`,
      );
    }
  }
}
