/**
 * Does the sampler draw from the right distribution? Estimates are compared
 * with known answers in units of their Monte Carlo standard error, computed
 * from an effective sample size (multi-chain autocorrelation with Geyer's
 * initial monotone sequence, as Stan). |z| ≤ 4 for single statistics; where
 * many statistics are tested at once, the bound is Bonferroni-adjusted.
 */
import { describe, expect, it } from "vitest";
import { sample, type BatchedDensity, type SampleResult } from "../src/sampler/index.ts";
import { Purpose, seedKey, streamNormals, streamUniform } from "../src/random/index.ts";

// ---------- Monte Carlo error helpers ----------

/** Multi-chain ESS of the series f (one array per chain, equal lengths). */
function ess(chains: Float64Array[]): number {
  const m = chains.length;
  const n = chains[0]!.length;
  const means = chains.map((x) => x.reduce((s, v) => s + v, 0) / n);
  const acov = (c: number, lag: number): number => {
    const x = chains[c]!;
    const mu = means[c]!;
    let s = 0;
    for (let i = 0; i + lag < n; i++) s += (x[i]! - mu) * (x[i + lag]! - mu);
    return s / n;
  };
  const w = chains.reduce((s, _, c) => s + (acov(c, 0) * n) / (n - 1), 0) / m;
  const grand = means.reduce((s, v) => s + v, 0) / m;
  const b = m > 1 ? (n / (m - 1)) * means.reduce((s, v) => s + (v - grand) ** 2, 0) : 0;
  const varPlus = ((n - 1) / n) * w + b / n;
  if (!(varPlus > 0)) return m * n;
  const rho = (lag: number): number => {
    let s = 0;
    for (let c = 0; c < m; c++) s += acov(c, lag);
    return 1 - (w - s / m) / varPlus;
  };
  // Geyer: sum pairs Γ_k = ρ_2k + ρ_2k+1 while positive, forced monotone.
  let tau = -1;
  let prev = Infinity;
  for (let k = 0; 2 * k + 1 < n; k++) {
    let pair = rho(2 * k) + rho(2 * k + 1);
    if (pair < 0) break;
    pair = Math.min(pair, prev);
    prev = pair;
    tau += 2 * pair;
  }
  // Antithetic chains can give τ < 1; Stan caps ESS at n·m·log10(n·m).
  return Math.min((m * n) / Math.max(tau, 1e-12), m * n * Math.log10(m * n));
}

/** Series of coordinate i of every chain. */
function coordinate(r: SampleResult, i: number): Float64Array[] {
  return r.draws.map((d) => {
    const out = new Float64Array(r.drawsDone);
    for (let k = 0; k < r.drawsDone; k++) out[k] = d[k * r.dim + i]!;
    return out;
  });
}

/** z-score of mean(f(x)) against the expected value, with MCSE from f's ESS. */
function zScore(series: Float64Array[], f: (x: number) => number, expected: number): number {
  const fx = series.map((x) => x.map(f));
  const all = fx.flatMap((x) => Array.from(x));
  const mean = all.reduce((s, v) => s + v, 0) / all.length;
  const sd = Math.sqrt(all.reduce((s, v) => s + (v - mean) ** 2, 0) / (all.length - 1));
  if (sd === 0) return mean === expected ? 0 : Infinity;
  return (mean - expected) / (sd / Math.sqrt(ess(fx)));
}

const Q05 = -1.6448536269514722; // 5% quantile of N(0, 1)

/** z-scores of mean, second moment and 5%/95% tail probabilities of coordinate i of N(mu, sd²). */
function normalChecks(series: Float64Array[], mu: number, sd: number): number[] {
  return [
    zScore(series, (x) => x, mu),
    zScore(series, (x) => ((x - mu) / sd) ** 2, 1),
    zScore(series, (x) => ((x - mu) / sd <= Q05 ? 1 : 0), 0.05),
    zScore(series, (x) => ((x - mu) / sd >= -Q05 ? 1 : 0), 0.05),
  ];
}

/** Bonferroni bound for k two-sided z-tests at family error 1e-3, never below the single-test bound 4. */
function zBound(k: number): number {
  // Two-sided normal quantile for 1e-3/k by bisection on erfc.
  const target = 1e-3 / k;
  let lo = 0;
  let hi = 10;
  for (let it = 0; it < 60; it++) {
    const mid = (lo + hi) / 2;
    if (erfc(mid / Math.SQRT2) > target) lo = mid;
    else hi = mid;
  }
  return Math.max(4, lo);
}

/** erfc by the Numerical Recipes Chebyshev fit (relative error < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

// ---------- targets ----------

/** Independent normals N(mu_i, sd_i²). */
function independentNormals(mu: number[], sd: number[]): BatchedDensity {
  const dim = sd.length;
  return {
    dim,
    logpGrad(q, lp, grad, active) {
      for (let c = 0; c < lp.length; c++) {
        if (active && !active[c]) continue;
        let s = 0;
        for (let i = 0; i < dim; i++) {
          const x = (q[c * dim + i]! - mu[i]!) / sd[i]!;
          s += x * x;
          grad[c * dim + i] = -x / sd[i]!;
        }
        lp[c] = -0.5 * s;
      }
    },
  };
}

/** Bivariate normal with sds s1, s2 and correlation r. */
function bivariate(s1: number, s2: number, r: number): BatchedDensity {
  const det = s1 * s1 * s2 * s2 * (1 - r * r);
  const a = (s2 * s2) / det;
  const b = (-r * s1 * s2) / det;
  const d = (s1 * s1) / det;
  return {
    dim: 2,
    logpGrad(q, lp, grad, active) {
      for (let c = 0; c < lp.length; c++) {
        if (active && !active[c]) continue;
        const x = q[2 * c]!;
        const y = q[2 * c + 1]!;
        const gx = a * x + b * y;
        const gy = b * x + d * y;
        grad[2 * c] = -gx;
        grad[2 * c + 1] = -gy;
        lp[c] = -0.5 * (x * gx + y * gy);
      }
    },
  };
}

const mean = (a: Float64Array): number => a.reduce((s, v) => s + v, 0) / a.length;

// ---------- tests ----------

describe("NUTS posterior accuracy", () => {
  it("samples a 1-D standard normal", () => {
    const r = sample(independentNormals([0], [1]), { chains: 4, warmup: 1000, draws: 1000, seed: 101 });
    const z = normalChecks(coordinate(r, 0), 0, 1);
    for (const v of z) expect(Math.abs(v)).toBeLessThanOrEqual(4);
    for (const a of r.adaptation) {
      // A leapfrog step of N(0,1) is stable below 2; with δ = 0.8 Stan settles near 1.
      expect(a.stepSize).toBeGreaterThan(0.5);
      expect(a.stepSize).toBeLessThan(1.6);
    }
    const divergent = r.stats.reduce((s, st) => s + mean(st.divergent), 0);
    expect(divergent).toBe(0);
  });

  it("samples a 100-D standard normal", () => {
    const dim = 100;
    const r = sample(independentNormals(new Array<number>(dim).fill(0), new Array<number>(dim).fill(1)), {
      chains: 4,
      warmup: 1000,
      draws: 1000,
      seed: 202,
    });
    const bound = zBound(4 * dim);
    let sumSq = 0;
    for (let i = 0; i < dim; i++) {
      const z = normalChecks(coordinate(r, i), 0, 1);
      for (const v of z) expect(Math.abs(v)).toBeLessThanOrEqual(bound);
      sumSq += z[0]! ** 2;
    }
    // The 100 mean z-scores together: Σz² ~ χ²(100), whose 0.9999 quantile is about 157.
    expect(sumSq).toBeLessThan(157);
    for (const a of r.adaptation) {
      // In d dimensions the stable step shrinks like d^(−1/4): about 0.3–0.6 at d = 100.
      expect(a.stepSize).toBeGreaterThan(0.2);
      expect(a.stepSize).toBeLessThan(0.8);
      for (const v of a.invMetric) {
        expect(v).toBeGreaterThan(0.6);
        expect(v).toBeLessThan(1.6);
      }
    }
    // Mean accept_stat near the target δ = 0.8 (dual averaging aims at it).
    const acc = r.stats.reduce((s, st) => s + mean(st.acceptStat), 0) / 4;
    expect(acc).toBeGreaterThan(0.7);
    expect(acc).toBeLessThan(0.95);
  });

  it("samples a correlated 2-D Gaussian with a dense metric", () => {
    const s1 = 1;
    const s2 = 10;
    const rho = 0.95;
    const r = sample(bivariate(s1, s2, rho), { chains: 4, warmup: 1000, draws: 1000, seed: 303, metric: "dense" });
    const x = coordinate(r, 0);
    const y = coordinate(r, 1);
    const bound = zBound(9);
    for (const v of [...normalChecks(x, 0, s1), ...normalChecks(y, 0, s2)]) expect(Math.abs(v)).toBeLessThanOrEqual(bound);
    // E[x·y] = ρ·s1·s2.
    const xy = x.map((cx, c) => cx.map((v, k) => v * y[c]![k]!));
    expect(Math.abs(zScore(xy, (v) => v, rho * s1 * s2))).toBeLessThanOrEqual(bound);
    for (const a of r.adaptation) {
      // The adapted inverse metric estimates the covariance from the last 500-draw window; with an
      // ESS of at least 100 an entry's relative error is about sqrt(2/100) = 0.14, so 4 sds = 0.57.
      const cov = [s1 * s1, rho * s1 * s2, rho * s1 * s2, s2 * s2];
      for (let k = 0; k < 4; k++) expect(Math.abs(a.invMetric[k]! / cov[k]! - 1)).toBeLessThan(0.57);
      // With the covariance as metric the target is isotropic: step size like a 2-D standard normal.
      expect(a.stepSize).toBeGreaterThan(0.4);
      expect(a.stepSize).toBeLessThan(1.6);
    }
    const depth = r.stats.reduce((s, st) => s + mean(st.treeDepth), 0) / 4;
    expect(depth).toBeLessThan(3);
  });

  it("adapts a diagonal metric to scales from 1e-3 to 1e3", () => {
    const sds = [1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3];
    const mus = sds.map((s) => 3 * s);
    const r = sample(independentNormals(mus, sds), { chains: 4, warmup: 1000, draws: 1000, seed: 404 });
    const bound = zBound(4 * sds.length);
    for (let i = 0; i < sds.length; i++) {
      for (const v of normalChecks(coordinate(r, i), mus[i]!, sds[i]!)) expect(Math.abs(v)).toBeLessThanOrEqual(bound);
    }
    for (const a of r.adaptation) {
      for (let i = 0; i < sds.length; i++) {
        // Stan's regularized estimate from the last 500-draw window: (n/(n+5))·σ² + 1e-3·5/(n+5);
        // relative error of the variance part at ESS ≥ 100: 4·sqrt(2/100) = 0.57.
        const n = 500;
        const variance = (n / (n + 5)) * sds[i]! ** 2;
        const shrink = 1e-3 * (5 / (n + 5));
        const estimate = a.invMetric[i]! - shrink;
        expect(Math.abs(estimate / variance - 1)).toBeLessThan(0.57 + shrink / variance);
      }
    }
    const depth = r.stats.reduce((s, st) => s + mean(st.treeDepth), 0) / 4;
    expect(depth).toBeLessThan(5);
  });
});

describe("static HMC posterior accuracy", () => {
  it("samples a scaled Gaussian with a fixed number of steps", () => {
    // Scales 0.1…10 rather than 1e-3…1e3: with a fixed number of steps the widest coordinate moves
    // only about L·ε per iteration while ε is set by the narrowest one, so from a unit metric a 1e6
    // ratio is not explored within the warmup (NUTS doubles its way out; Stan's static HMC fixes the
    // integration time instead of the step count).
    const sds = [0.1, 1, 10];
    const r = sample(independentNormals([0, 0, 0], sds), {
      chains: 4,
      warmup: 1000,
      draws: 1000,
      seed: 505,
      sampler: "hmc",
      hmcSteps: 5,
    });
    const bound = zBound(4 * sds.length);
    for (let i = 0; i < sds.length; i++) {
      for (const v of normalChecks(coordinate(r, i), 0, sds[i]!)) expect(Math.abs(v)).toBeLessThanOrEqual(bound);
    }
    for (const st of r.stats) expect(st.nLeapfrog.every((n) => n === 5)).toBe(true);
    const acc = r.stats.reduce((s, st) => s + mean(st.acceptStat), 0) / 4;
    expect(acc).toBeGreaterThan(0.7);
    expect(acc).toBeLessThan(0.95);
  });
});

describe("stationarity of one transition", () => {
  // Start 4000 chains at exact draws from the target, take one transition with a fixed (large) step
  // size: if the kernel leaves the target invariant, the output is again an exact independent sample.
  const chains = 4000;

  function exactStart(draw: (k: number) => number[]): Float64Array[] {
    return Array.from({ length: chains }, (_, k) => Float64Array.from(draw(k)));
  }

  // Exact standard normal pairs from a Philox stream the sampler never uses (seed 999, purpose Init, sub 7).
  function normalPair(k: number): [number, number] {
    const z = new Float64Array(2);
    streamNormals(seedKey(999), k, 0, Purpose.Init, 7, z);
    return [z[0]!, z[1]!];
  }

  /** Kolmogorov–Smirnov distance between the sample and a CDF. */
  function ks(xs: number[], cdf: (x: number) => number): number {
    const s = [...xs].sort((a, b) => a - b);
    let d = 0;
    for (let i = 0; i < s.length; i++) {
      const f = cdf(s[i]!);
      d = Math.max(d, Math.abs(f - i / s.length), Math.abs(f - (i + 1) / s.length));
    }
    return d;
  }
  const normalCdf = (x: number): number => 0.5 * erfc(-x / Math.SQRT2);
  // KS: P(√n·D > 1.95) ≈ 0.001.
  const ksBound = 1.95 / Math.sqrt(chains);

  for (const sampler of ["nuts", "hmc"] as const) {
    it(`${sampler} keeps N(0, 1) invariant at a large step size`, () => {
      const r = sample(independentNormals([0], [1]), {
        chains,
        warmup: 0,
        draws: 1,
        seed: 606,
        stepSize: 1.7,
        sampler,
        hmcSteps: 3,
        init: exactStart((k) => [normalPair(k)[0]]),
      });
      const xs = r.draws.map((d) => d[0]!);
      expect(ks(xs, normalCdf)).toBeLessThan(ksBound);
      const m = xs.reduce((s, v) => s + v, 0) / chains;
      const m2 = xs.reduce((s, v) => s + v * v, 0) / chains;
      expect(Math.abs(m)).toBeLessThan(4 / Math.sqrt(chains));
      expect(Math.abs(m2 - 1)).toBeLessThan(4 * Math.sqrt(2 / chains));
    });
  }

  it("nuts keeps a correlated Gaussian invariant under a dense metric", () => {
    const rho = 0.8;
    const r = sample(bivariate(1, 2, rho), {
      chains,
      warmup: 0,
      draws: 1,
      seed: 707,
      stepSize: 1.2,
      metric: "dense",
      invMetric: Float64Array.from([1, 0, 0, 1]),
      init: exactStart((k) => {
        const [a, b] = normalPair(k);
        return [a, 2 * (rho * a + Math.sqrt(1 - rho * rho) * b)];
      }),
    });
    const xs = r.draws.map((d) => d[0]!);
    const ys = r.draws.map((d) => d[1]! / 2);
    expect(ks(xs, normalCdf)).toBeLessThan(ksBound);
    expect(ks(ys, normalCdf)).toBeLessThan(ksBound);
    const exy = xs.reduce((s, x, k) => s + x * ys[k]!, 0) / chains;
    // sd of the product of a standard bivariate normal pair: sqrt(1 + ρ²).
    expect(Math.abs(exy - rho)).toBeLessThan(4 * Math.sqrt((1 + rho * rho) / chains));
  });

  it("nuts keeps a logistic distribution (non-Gaussian) invariant", () => {
    // Standard logistic: lp = −x − 2·log(1 + e^−x), CDF 1/(1 + e^−x), sampled exactly by inversion.
    const logistic: BatchedDensity = {
      dim: 1,
      logpGrad(q, lp, grad) {
        for (let c = 0; c < lp.length; c++) {
          const x = q[c]!;
          const ax = Math.abs(x);
          lp[c] = -ax - 2 * Math.log1p(Math.exp(-ax));
          grad[c] = -Math.tanh(x / 2);
        }
      },
    };
    const r = sample(logistic, {
      chains,
      warmup: 0,
      draws: 1,
      seed: 808,
      stepSize: 2.5,
      init: exactStart((k) => {
        const u = streamUniform(seedKey(999), k, 0, Purpose.Init, 8, 0, 0);
        return [Math.log(u / (1 - u))];
      }),
    });
    const xs = r.draws.map((d) => d[0]!);
    expect(ks(xs, (x) => 1 / (1 + Math.exp(-x)))).toBeLessThan(ksBound);
  });
});
