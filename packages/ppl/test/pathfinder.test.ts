// Pathfinder: the diagonal-plus-low-rank normal against explicit matrices (the BFGS recursion,
// a quadratic's inverse Hessian, a dense normal's log density), draws on a Gaussian target that
// match its mean and covariance within Monte Carlo error, the ELBO near 0 there, reproducibility
// per seed, and the failure of a run whose every path fails.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cholesky, type Objective } from "../src/optimize/index.ts";
import {
  drawLowRankNormal, lowRankCovariance, lowRankLogDensity, lowRankNormal, pathfinder, PathfinderError, pushPair, emptyHistory, thinQr,
} from "../src/pathfinder/index.ts";

const LOG_TWO_PI = Math.log(2 * Math.PI);

// A symmetric positive-definite n×n matrix from a seed-like array: B Bᵀ + n·I.
function spd(entries: number[], n: number): Float64Array {
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let t = i === j ? n : 0;
    for (let k = 0; k < n; k++) t += entries[i * n + k]! * entries[j * n + k]!;
    a[i * n + j] = t;
  }
  return a;
}

function matVec(a: Float64Array, x: Float64Array): Float64Array {
  const n = x.length;
  return Float64Array.from({ length: n }, (_, i) => x.reduce((t, v, j) => t + a[i * n + j]! * v, 0));
}

// The BFGS inverse update H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ, pair after pair from diag(α).
function bfgsRecursion(alpha: Float64Array, s: Float64Array[], y: Float64Array[]): Float64Array {
  const n = alpha.length;
  let h = new Float64Array(n * n);
  for (let i = 0; i < n; i++) h[i * n + i] = alpha[i]!;
  s.forEach((si, k) => {
    const yi = y[k]!;
    const rho = 1 / si.reduce((t, v, j) => t + v * yi[j]!, 0);
    const e = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) e[i * n + j] = (i === j ? 1 : 0) - rho * si[i]! * yi[j]!;
    const next = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      let t = rho * si[i]! * si[j]!;
      for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) t += e[i * n + a]! * h[a * n + b]! * e[j * n + b]!;
      next[i * n + j] = t;
    }
    h = next;
  });
  return h;
}

function expectClose(a: Float64Array, b: Float64Array, tol: number): void {
  const scale = Math.max(1, ...Array.from(b, Math.abs));
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!), `entry ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(tol * scale);
}

describe("the diagonal-plus-low-rank normal", () => {
  it("thin QR: Q has orthonormal columns and Q R is the matrix, tall and wide", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 81, maxLength: 81 }), (n, p, e) => {
      const a = Float64Array.from(e.slice(0, n * p));
      const { q, r, rank: k } = thinQr(a, n, p);
      for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) {
        let t = 0;
        for (let l = 0; l < n; l++) t += q[l * k + i]! * q[l * k + j]!;
        expect(Math.abs(t - (i === j ? 1 : 0))).toBeLessThan(1e-12);
      }
      for (let i = 0; i < n; i++) for (let j = 0; j < p; j++) {
        let t = 0;
        for (let l = 0; l < k; l++) t += q[i * k + l]! * r[l * p + j]!;
        expect(Math.abs(t - a[i * p + j]!)).toBeLessThan(1e-11);
      }
    }), { seed: 45, numRuns: 60 });
  });

  it("its covariance is the BFGS recursion's inverse Hessian from diag(α), for n above and below 2m", () => {
    fc.assert(fc.property(fc.integer({ min: 2, max: 14 }), fc.integer({ min: 1, max: 5 }), fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 14 * 14 + 5 * 14 + 14, maxLength: 14 * 14 + 5 * 14 + 14 }), (n, m, e) => {
      const a = spd(e, n);
      const s = Array.from({ length: m }, (_, k) => Float64Array.from({ length: n }, (_, i) => e[200 + k * n + i]! + (i === k % n ? 1 : 0)));
      const y = s.map((si) => matVec(a, si));
      const alpha = Float64Array.from({ length: n }, (_, i) => 0.5 + Math.abs(e[i]!));
      const x = new Float64Array(n);
      const approx = lowRankNormal(x, new Float64Array(n), alpha, s, y)!;
      expect(approx).not.toBeNull();
      expectClose(lowRankCovariance(approx), bfgsRecursion(alpha, s, y), 1e-9);
    }), { seed: 7, numRuns: 40 });
  });

  it("with n A-conjugate pairs of a quadratic (exact line searches' steps) its covariance is A⁻¹ and its mean the minimum", () => {
    const n = 4;
    const a = spd([0.3, -0.2, 0.5, 0.1, 0.7, 0.2, -0.4, 0.3, 0.1, 0.6, 0.2, -0.5, 0.4, 0.1, 0.3, 0.8], n);
    const b = Float64Array.from([1, -2, 0.5, 3]);
    // A-conjugate steps: Gram–Schmidt of the unit vectors in the A inner product.
    const s: Float64Array[] = [];
    for (let k = 0; k < n; k++) {
      const v = new Float64Array(n);
      v[k] = 1;
      for (const p of s) {
        const ap = matVec(a, p);
        const c = v.reduce((t, vi, i) => t + vi * ap[i]!, 0) / p.reduce((t, pi, i) => t + pi * ap[i]!, 0);
        for (let i = 0; i < n; i++) v[i] = v[i]! - c * p[i]!;
      }
      s.push(v);
    }
    const y = s.map((si) => matVec(a, si));
    const x = Float64Array.from([0.3, 0.1, -0.7, 2]);
    // f(x) = ½ xᵀAx − bᵀx: gradient Ax − b, minimum A⁻¹b.
    const g = matVec(a, x).map((v, i) => v - b[i]!);
    const approx = lowRankNormal(x, g, Float64Array.from([1, 1, 1, 1]), s, y)!;
    const h = lowRankCovariance(approx);
    const ah = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) ah[i * n + j] = ah[i * n + j]! + a[i * n + k]! * h[k * n + j]!;
    expectClose(ah, Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0)), 1e-10);
    expectClose(matVec(a, approx.center), b, 1e-10);
  });

  it("its log density is a dense normal's, and a draw's lp_approx is its log density there", () => {
    fc.assert(fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 5 }), fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 12 * 12 + 5 * 12 + 3 * 12, maxLength: 12 * 12 + 5 * 12 + 3 * 12 }), (n, m, e) => {
      const a = spd(e, n);
      const s = Array.from({ length: m }, (_, k) => Float64Array.from({ length: n }, (_, i) => e[144 + k * n + i]! + (i === k % n ? 1 : 0)));
      const y = s.map((si) => matVec(a, si));
      const alpha = Float64Array.from({ length: n }, (_, i) => 0.2 + Math.abs(e[i + 3]!));
      const x0 = Float64Array.from({ length: n }, (_, i) => e[204 + i]!);
      const g = Float64Array.from({ length: n }, (_, i) => e[216 + i]!);
      const approx = lowRankNormal(x0, g, alpha, s, y)!;
      const cov = lowRankCovariance(approx);
      const l = cholesky(cov, n)!;
      let logDet = 0;
      for (let i = 0; i < n; i++) logDet += Math.log(l[i * n + i]!);
      expect(Math.abs(logDet - approx.logDetCholH)).toBeLessThan(1e-9 * Math.max(1, Math.abs(logDet)));
      const u = Float64Array.from({ length: n }, (_, i) => e[228 + i]! * 2);
      const draw = new Float64Array(n);
      const lpApprox = drawLowRankNormal(approx, u, draw);
      // The dense normal: −½ log det(2πΣ) − ½ (x − μ)ᵀ Σ⁻¹ (x − μ), by forward substitution with L.
      const r = draw.map((v, i) => v - approx.center[i]!);
      const z = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        let t = r[i]!;
        for (let j = 0; j < i; j++) t -= l[i * n + j]! * z[j]!;
        z[i] = t / l[i * n + i]!;
      }
      const dense = -logDet - 0.5 * (n * LOG_TWO_PI + z.reduce((t, v) => t + v * v, 0));
      expect(Math.abs(lowRankLogDensity(approx, draw) - dense)).toBeLessThan(1e-8 * Math.max(1, Math.abs(dense)));
      expect(Math.abs(lpApprox - dense)).toBeLessThan(1e-8 * Math.max(1, Math.abs(dense)));
    }), { seed: 11, numRuns: 40 });
  });

  it("skips a pair whose curvature fails Stan's check (sᵀy ≤ 0, or ‖y‖²/sᵀy > 1e12)", () => {
    const h = emptyHistory(2);
    expect(pushPair(h, Float64Array.from([1, 0]), Float64Array.from([-1, 0]), 5)).toBe(h);
    expect(pushPair(h, Float64Array.from([1e-13, 0]), Float64Array.from([1e-13, 1]), 5)).toBe(h);
    expect(pushPair(h, Float64Array.from([1, 0]), Float64Array.from([2, 0]), 5).s.length).toBe(1);
  });
});

// A correlated Gaussian N(μ, Σ) as the objective −log p (normalized), with Σ⁻¹ = P.
const MU = [1, -2, 0.5];
const SIGMA = [[1, 0.6, 0.2], [0.6, 2, -0.3], [0.2, -0.3, 0.5]];
function gaussianTarget(): Objective {
  const n = MU.length;
  const sig = Float64Array.from(SIGMA.flat());
  const l = cholesky(sig, n)!;
  let logDet = 0;
  for (let i = 0; i < n; i++) logDet += Math.log(l[i * n + i]!);
  // P = Σ⁻¹ column by column.
  const p = new Float64Array(n * n);
  for (let c = 0; c < n; c++) {
    const z = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let t = i === c ? 1 : 0;
      for (let j = 0; j < i; j++) t -= l[i * n + j]! * z[j]!;
      z[i] = t / l[i * n + i]!;
    }
    for (let i = n - 1; i >= 0; i--) {
      let t = z[i]!;
      for (let j = i + 1; j < n; j++) t -= l[j * n + i]! * p[j * n + c]!;
      p[i * n + c] = t / l[i * n + i]!;
    }
  }
  return {
    dim: n,
    evaluate(x, g) {
      const r = Float64Array.from(x, (v, i) => v - MU[i]!);
      const pr = matVec(p, r);
      g.set(pr);
      return 0.5 * r.reduce((t, v, i) => t + v * pr[i]!, 0) + logDet + 0.5 * n * LOG_TWO_PI;
    },
  };
}

function moments(rows: Float64Array[]): { mean: number[]; cov: number[][] } {
  const n = rows[0]!.length;
  const mean = Array.from({ length: n }, (_, i) => rows.reduce((t, r) => t + r[i]!, 0) / rows.length);
  const cov = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => rows.reduce((t, r) => t + (r[i]! - mean[i]!) * (r[j]! - mean[j]!), 0) / (rows.length - 1)));
  return { mean, cov };
}

describe("pathfinder on a Gaussian target", () => {
  it("resampled draws match the mean and covariance within Monte Carlo error; ELBO near 0, Pareto k small", () => {
    const r = pathfinder(gaussianTarget(), { seed: 2026 });
    expect(r.resampled).toBe(true);
    expect(r.draws.x.length).toBe(1000);
    expect(r.paths.length).toBe(4);
    // Exact up to L-BFGS's estimate of Σ: the ELBO (≤ 0, the KL divergence below it) is near 0.
    // The ELBO is −KL(q‖p) ≤ 0, near 0 once L-BFGS's pairs have seen the curvature: each path's
    // best estimate (25 draws of log ratios whose sd is below 0.5, a standard error below 0.1)
    // within 0.25 of 0, and the pooled weights' tail light (k ≤ 0.7).
    for (const p of r.paths) expect(Math.abs(p.elbo), `path ${p.path}`).toBeLessThan(0.25);
    expect(r.paretoK).toBeLessThanOrEqual(0.7);
    // 1000 draws resampled from 4000 near-equal-weight independent ones: the mean's variance is
    // σ²(1/4000 + 1/1000), an effective size of 800; 4 Monte Carlo standard errors.
    const ess = 800;
    const { mean, cov } = moments(r.draws.x);
    for (let i = 0; i < 3; i++) {
      const sd = Math.sqrt(SIGMA[i]![i]!);
      expect(Math.abs(mean[i]! - MU[i]!), `mean ${i}`).toBeLessThan(4 * sd / Math.sqrt(ess));
      for (let j = 0; j < 3; j++) {
        // Var of a sample covariance of a normal: (Σᵢⱼ² + ΣᵢᵢΣⱼⱼ)/ess.
        const se = Math.sqrt((SIGMA[i]![j]! ** 2 + SIGMA[i]![i]! * SIGMA[j]![j]!) / ess);
        expect(Math.abs(cov[i]![j]! - SIGMA[i]![j]!), `cov ${i},${j}`).toBeLessThan(4 * se);
      }
    }
  });

  it("--no-psis-resample gives every path's draws, the first of each path its ELBO draws", () => {
    const r = pathfinder(gaussianTarget(), { seed: 3, psisResample: false, numDraws: 50 });
    expect(r.resampled).toBe(false);
    expect(r.draws.x.length).toBe(200);
    expect(Number.isFinite(r.paretoK)).toBe(true);
    const { mean } = moments(r.draws.x);
    for (let i = 0; i < 3; i++) expect(Math.abs(mean[i]! - MU[i]!)).toBeLessThan(4 * Math.sqrt(SIGMA[i]![i]! / 200));
  });

  it("is reproducible per seed, and another seed gives other draws", () => {
    const a = pathfinder(gaussianTarget(), { seed: 9, numDraws: 40 });
    const b = pathfinder(gaussianTarget(), { seed: 9, numDraws: 40 });
    const c = pathfinder(gaussianTarget(), { seed: 10, numDraws: 40 });
    expect(a.draws.x.map((x) => Array.from(x))).toEqual(b.draws.x.map((x) => Array.from(x)));
    expect(Array.from(a.draws.lp)).toEqual(Array.from(b.draws.lp));
    expect(a.draws.x.map((x) => Array.from(x))).not.toEqual(c.draws.x.map((x) => Array.from(x)));
    // The first resampled draws do not depend on how many are made.
    const d = pathfinder(gaussianTarget(), { seed: 9, numDraws: 40, numResampled: 5 });
    expect(d.draws.x.map((x) => Array.from(x))).toEqual(a.draws.x.slice(0, 5).map((x) => Array.from(x)));
  });

  it("a density finite nowhere near 0 is a PathfinderError naming the initial points", () => {
    const nowhere: Objective = { dim: 2, evaluate: (_x, g) => (g.fill(0), Infinity) };
    expect(() => pathfinder(nowhere, { seed: 1 })).toThrow(PathfinderError);
    expect(() => pathfinder(nowhere, { seed: 1 })).toThrow(/not finite at 100 random initial points/);
  });

  it("every path failing is a PathfinderError with reason 'paths' (here: the density is unbounded, every draw's density is infinite)", () => {
    // Finite at the initial points, +∞ (as NaN) beyond |x| > 3: L-BFGS's first step on a slope
    // this steep leaves the domain and its line search finds no decrease.
    const cliff: Objective = { dim: 1, evaluate: (x, g) => { g[0] = -1e6; return Math.abs(x[0]!) > 3 ? NaN : -1e6 * x[0]!; } };
    let err: unknown;
    try {
      pathfinder(cliff, { seed: 1, numPaths: 2 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PathfinderError);
    expect((err as PathfinderError).reason).toBe("paths");
    expect((err as PathfinderError).message).toMatch(/all 2 Pathfinder paths failed/);
  });
});
